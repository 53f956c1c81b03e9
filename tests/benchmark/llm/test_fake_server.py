"""`heartbench fake-llm` serves the protocol from the command line, for local demos."""

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from benchmark.llm.fake_server import FakeLLM, fake_verdict
from tests.services import free_port

CLI = shutil.which("heartbench", path=str(Path(sys.executable).parent)) or "heartbench"


def test_fake_llm_command_answers_judge_prompts():
    port = free_port()
    proc = subprocess.Popen(
        [CLI, "fake-llm", "--port", str(port), "--style", "upstream"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert "fake LLM endpoint at" in proc.stdout.readline()
        reply = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"model": "x", "messages": [{"role": "user", "content": "[温暖][3] 说你好\n"}]},
            timeout=10,
        ).json()
        content = reply["choices"][0]["message"]["content"]
        assert f"'detail': [{int(fake_verdict('说你好'))}]" in content
        stats_url = proc.stdout.readline().split("what was sent: ")[1].strip()
        stats = httpx.get(stats_url, timeout=10).json()
        assert stats == {
            "requests": 1,
            "in_flight": 0,
            "by_status": {"200": 1},
            "by_fault": {"ok": 1},
        }
    finally:
        proc.terminate()
        proc.wait(10)


def test_unknown_fault_is_a_clear_error():
    done = subprocess.run(
        [CLI, "fake-llm", "--faults", "rate_limit,nope"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "unknown fault(s) ['nope']" in done.stderr


def test_stats_count_requests_by_status_and_fault_and_those_in_flight():
    with FakeLLM(hang_seconds=30) as fake:
        url = f"{fake.base_url}/chat/completions"
        body = {"model": "x", "messages": [{"role": "user", "content": "你好"}]}
        fake.queue("rate_limit", "server_error", "ok", "malformed", "hang")
        for _ in range(4):
            httpx.post(url, json=body, timeout=10)
        hanging = threading.Thread(target=lambda: _post_ignoring_timeout(url, body), daemon=True)
        hanging.start()
        deadline = time.monotonic() + 10
        while fake.count() < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        stats = httpx.get(f"{fake.base_url}/stats", timeout=10).json()
        assert stats == {
            "requests": 5,
            "in_flight": 1,
            "by_status": {"200": 2, "429": 1, "500": 1},
            "by_fault": {"hang": 1, "malformed": 1, "ok": 1, "rate_limit": 1, "server_error": 1},
        }
        assert httpx.get(f"{fake.base_url}/nothing", timeout=10).status_code == 404


def _post_ignoring_timeout(url: str, body: dict) -> None:
    try:
        httpx.post(url, json=body, timeout=1)
    except httpx.TimeoutException:
        pass
