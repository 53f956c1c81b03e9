"""Every answer of a judge run carries the requests that judged it — the messages sent (re-asks
included), the reply, tokens and time — in `export-log`'s lines and as the Inspect log's model
events, per-sample usage and timing. Through the `heartbench` console script in a subprocess
against the fake endpoint, its malformed replies forcing re-asks."""

import json
import re

import pytest

from benchmark.llm.fake_server import FakeLLM
from tests.builders.cli import heartbench, seeded_env

JUDGE = ["judge", "--model", "m", "--judge-model", "fake-judge", "--no-progress"]


def run_id(done) -> int:
    assert done.returncode in (0, 1), done.stderr
    return int(re.search(r"judge run (\d+):", done.stdout).group(1))


def log_lines(env, run: int) -> list[dict]:
    done = heartbench(env, "export-log", "--run", str(run), "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_each_answer_holds_its_judge_calls_with_tokens_and_time(tmp_path):
    env = seeded_env(tmp_path / "calls.sqlite3", model="m", cases=6)
    with FakeLLM(latency=0.05, fault_rate=0.4, fault_mix=("malformed",), seed=3) as fake:
        asked = run_id(heartbench(env, *JUDGE, "--base-url", fake.base_url))
        sent = fake.count()
        # Another judge on the same endpoint model: the same prompts; the replies usable at the
        # first ask come from the cache (an unusable one never is cached).
        cached = run_id(heartbench(env, *JUDGE, "--judge", "again", "--base-url", fake.base_url))
    lines = log_lines(env, asked)
    calls = [call for line in lines for call in line["calls"]]
    assert [len(line["calls"]) for line in lines] == [1] * 6  # one request per answer
    assert sum(call["asks"] for call in calls) == sent
    run = lines[0]["run"]
    assert sum(call["tokens_in"] for call in calls) == run["tokens_in"] > 0
    assert sum(call["tokens_out"] for call in calls) == run["tokens_out"] > 0
    assert all(call["seconds"] >= 0.05 * call["asks"] and not call["cached"] for call in calls)
    for line in lines:
        (call,) = line["calls"]
        assert line["response"] in call["messages"][0]["content"]
        assert call["reply"] == line["criteria"][0]["raw_reply"]
        failed = line["criteria"][0]["verdict"] == "error"
        assert (call["error"] is not None) == failed
    reasked = [call for call in calls if call["asks"] > 1]
    assert reasked, "the seed gives no re-ask: pick another"
    # A re-ask sends the conversation so far: the prompt, the unusable reply, the correction.
    assert [m["role"] for m in reasked[0]["messages"]][:3] == ["user", "assistant", "user"]
    again = [call for line in log_lines(env, cached) for call in line["calls"]]
    first_time = [call["asks"] == 1 and call["error"] is None for call in calls]
    assert [call["cached"] for call in again] == first_time
    assert all(call["seconds"] < 0.05 for call in again if call["cached"])

    inspect_log = pytest.importorskip("inspect_ai.log")
    target = tmp_path / "run.eval"
    done = heartbench(env, "export-log", "--run", str(asked), "--format", "inspect",
                      "--output", str(target))  # fmt: skip
    assert done.returncode == 0, done.stderr
    samples = {s.id: s for s in inspect_log.read_eval_log(str(target)).samples}
    for line in lines:
        sample, (call,) = samples[line["question_id"]], line["calls"]
        (event,) = sample.events
        assert event.event == "model" and event.model == "fake-judge"
        assert [m.role for m in event.input] == [m["role"] for m in call["messages"]]
        assert event.output.completion == call["reply"]
        assert event.output.usage.input_tokens == call["tokens_in"]
        assert (event.error is not None) == (call["error"] is not None)
        assert event.cache is None
        usage = sample.model_usage["fake-judge"]
        assert (usage.input_tokens, usage.output_tokens) == (call["tokens_in"], call["tokens_out"])
        assert sample.total_time == pytest.approx(call["seconds"], abs=1e-5)
        assert sample.started_at == call["started_at"]
    done = heartbench(env, "export-log", "--run", str(cached), "--format", "inspect",
                      "--output", str(target))  # fmt: skip
    assert done.returncode == 0, done.stderr
    samples = {s.id: s for s in inspect_log.read_eval_log(str(target)).samples}
    caches = [samples[line["question_id"]].events[0].cache for line in lines]
    assert caches == ["read" if hit else None for hit in first_time]
