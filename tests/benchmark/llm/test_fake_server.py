"""`heartbench fake-llm` serves the protocol from the command line, for local demos."""

import io
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command

from benchmark.llm.fake_server import FakeLLM, fake_verdict, model_skill
from benchmark.llm.parser import ReplyError
from benchmark.llm.prompts import dialogue_render
from benchmark.llm.rubric_reply import rubric_reply_read
from benchmark.models import Verdict
from benchmark.services.pairwise_judging import pairwise_template_load
from tests.builders.datasets import DatasetFactory, case_with_rubric
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


def test_reseeding_draws_the_same_faults_again():
    with FakeLLM(fault_rate=0.5, fault_mix=("server_error",), latency=0) as fake:
        url = f"{fake.base_url}/chat/completions"
        body = {"model": "x", "messages": [{"role": "user", "content": "你好"}]}

        def statuses() -> list[int]:
            fake.reseed(7)
            return [httpx.post(url, json=body, timeout=10).status_code for _ in range(24)]

        first = statuses()
        assert first == statuses() and {200, 500} == set(first)


def _post_ignoring_timeout(url: str, body: dict) -> None:
    try:
        httpx.post(url, json=body, timeout=1)
    except httpx.TimeoutException:
        pass


RUBRIC_PROMPT = (
    "对话：\nA：我快喘不过气了。\nB：发生了什么？\nA：我妈每天打三个电话。\n\n"
    "各能力的绝对标准（…）：\n- curiosity（好奇心，第 1 版）：开放式提问。\n"
    "- humor（幽默）：尚未撰写\n"
    "- warmth（温暖，第 3 版）：承认努力。\n\n参考回答：\n回答 1：\n我在。\n\n回答 2：\n慢慢说。\n"
)


def ask(fake: FakeLLM, content: str) -> str:
    reply = httpx.post(
        f"{fake.base_url}/chat/completions",
        json={"model": "x", "messages": [{"role": "user", "content": content}]},
        timeout=10,
    ).json()
    return reply["choices"][0]["message"]["content"]


def test_a_rubric_prompt_gets_a_usable_rubric_derived_from_it():
    with FakeLLM() as fake:
        text = ask(fake, RUBRIC_PROMPT)
        assert ask(fake, RUBRIC_PROMPT) == text  # deterministic
    criteria = rubric_reply_read(text, None)
    # The abilities with a written standard, in the prompt's order; the last user turn; two
    # reference answers (+3 in the negative criterion); the catastrophic one last.
    assert [c.ability for c in criteria] == ["curiosity", "warmth", "verbal_expression",
                                             "catastrophic"]  # fmt: skip
    assert "「我妈每天打三个电话。」" in criteria[0].text and "好奇心" in criteria[0].text
    assert "5条" in criteria[2].text and criteria[2].points == -3
    assert all(1 <= c.points <= 5 for c in criteria[:2]) and criteria[3].points is None


def test_invalid_rubric_breaks_the_rules_on_rubric_prompts_only():
    with FakeLLM() as fake:
        fake.queue("invalid_rubric", "invalid_rubric")
        bad = ask(fake, RUBRIC_PROMPT)
        judged = ask(fake, "[温暖][3] 说你好\n")
    with pytest.raises(ReplyError) as error:
        rubric_reply_read(bad, None)
    assert "criterion 1: The text asks a question" in error.value.problem
    assert "criterion 2: points must be" in error.value.problem
    assert '"verdicts"' in judged


@pytest.mark.django_db
def test_the_skilled_fake_gives_each_model_its_own_plausible_board():
    """What `heartbench fake-llm` serves: answers differ per model, boards follow each model's
    stable skill, and catastrophic failures are rare (the plain fake zeroes most cases)."""
    dataset = DatasetFactory(name="demo-board")
    rubric = [("warmth", 3), ("curiosity", 2), ("emotional_coping", -3), ("catastrophic", None)]
    for i in range(40):
        case_with_rubric(
            dataset=dataset, rubric=rubric, dialogue=[{"role": "A", "content": f"第{i}天"}]
        )
    # Three models of clearly different skill: the least, a middle and the most skilled name.
    candidates = sorted((f"model-{i}" for i in range(40)), key=model_skill)
    names = [candidates[0], candidates[20], candidates[-1]]
    out = io.StringIO()
    with FakeLLM(skilled=True) as fake:
        url = ["--base-url", fake.base_url, "--no-progress"]
        for name in names:
            call_command("generate", "--model", name, *url, stdout=out)
            call_command("judge", "--model", name, "--judge-model", "j", *url, stdout=out)
    assert "served from cache 0" in out.getvalue()  # no two models share an answer
    board = json.loads(_stdout("leaderboard", "--dataset", "demo-board", "--format", "json"))
    overall = {m["model"]: m["overall"] for m in board["models"]}
    by_skill = sorted(names, key=model_skill)
    assert sorted(overall, key=overall.get) == by_skill, (overall, [model_skill(n) for n in names])
    assert len({round(v) for v in overall.values()}) == 3 and all(
        5 < v < 95 for v in overall.values()
    )
    catastrophic = Verdict.objects.filter(rubric_item__ability="catastrophic", state="met").count()
    assert catastrophic <= 0.05 * 40 * 3


def _stdout(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("flags", "winner"),
    [([], "A"), (["--length-bias"], "B"), (["--position-bias", "1"], "A")],
)
def test_the_command_takes_the_pairwise_biases(flags, winner):
    # "你你" says 你 more often (the content rule: A); B is longer (the length bias).
    prompt = pairwise_template_load().render(
        dialogue=dialogue_render([{"role": "A", "content": "我睡不着。"}]),
        response_a="你你",
        response_b="我在听，慢慢说就好。",
    )
    port = free_port()
    proc = subprocess.Popen(
        [CLI, "fake-llm", "--port", str(port), *flags], stdout=subprocess.PIPE, text=True
    )
    try:
        assert "fake LLM endpoint at" in proc.stdout.readline()
        reply = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"model": "j", "messages": [{"role": "user", "content": prompt}]},
            timeout=10,
        ).json()
        assert json.loads(reply["choices"][0]["message"]["content"])["winner"] == winner
    finally:
        proc.terminate()
        proc.wait(10)
