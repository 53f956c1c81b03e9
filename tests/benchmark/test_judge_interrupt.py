"""Ctrl-C on a real `heartbench judge` / `generate`: one line saying what was stored and how to
resume, exit status 130, the run marked stopped, no traceback (a subprocess on its own SQLite
database against the fake endpoint, slowed down so the interrupt lands halfway)."""

import json
import signal
import subprocess
import time

import pytest

from benchmark.llm.fake_server import FakeLLM
from tests.builders.cli import CLI, run_tool, seeded_env
from tests.services import hears_ctrl_c

pytestmark = pytest.mark.slow
CASES = 36  # about 5 s of work at 0.3 s and two at once: the interrupt lands well inside it


@pytest.mark.parametrize("command", ["judge", "generate"])
def test_ctrl_c_stops_the_run_with_one_line_and_exit_130(tmp_path, command):
    env = seeded_env(tmp_path / "interrupt.sqlite3", model="victim", cases=CASES)
    with FakeLLM(latency=0.3) as fake:
        args = ["--model", "victim", "--base-url", fake.base_url, "--concurrency", "2"]
        if command == "judge":
            args += ["--judge-model", "fake-judge"]
        else:
            args += ["--endpoint-model", "fake-writer"]
            run_tool(env, "forget-answers", "--model", "victim")
        child = subprocess.Popen(
            [CLI, command, *args, "--no-progress"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=hears_ctrl_c,
        )
        deadline = time.monotonic() + 60
        while fake.stats()["by_status"].get("200", 0) < 3 and time.monotonic() < deadline:
            assert child.poll() is None, child.communicate()
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        _out, err = child.communicate(timeout=30)
        sent = fake.stats()["requests"]
    assert child.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "interrupted" in lines[0] and "stored" in lines[0] and "resume" in lines[0]
    runs = json.loads(run_tool(env, "runs", "--model", "victim"))
    assert [r["status"] for r in runs] == ["stopped"]
    assert 0 < runs[0]["done"] < runs[0]["total"]
    # Every request sent is counted, those still in flight at the interrupt too (they are paid).
    assert runs[0]["calls"] == sent, (runs[0], sent)
