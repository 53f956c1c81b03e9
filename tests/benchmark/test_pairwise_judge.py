"""`heartbench judge --pairwise SET`: the judge chooses in both orders through the one job runner,
against the fake endpoint over real HTTP; its choices are worked out from the fake's rules
(content, position bias, length bias), faults end in the right choices or explicit errors, a
second run does only what is missing (from the cache), a refused key exits 2 and says so."""

import json
import urllib.request

import pytest
from django.core.management.base import CommandError

from benchmark.llm.client import RetryPolicy
from benchmark.llm.fake_pairwise import PairwiseRule, fake_merit, position_draw
from benchmark.llm.fake_server import FakeLLM
from benchmark.llm.pairwise_reply import (
    ReplyError,
    canonical_choice,
    pair_outcome,
    pairwise_reply_parse,
)
from benchmark.llm.prompts import dialogue_render
from benchmark.models import PairwiseRun, PairwiseVerdict
from benchmark.selectors.pairwise import pairwise_run_outcomes, pairwise_set_get
from benchmark.services.judging import judge_resolve
from benchmark.services.llm_jobs import EngineOptions, RunOptions
from benchmark.services.pairwise_judging import (
    pairwise_run_execute,
    pairwise_run_start,
    pairwise_template_load,
)
from tests.builders.pairwise import (
    answered_by,
    draw,
    expected_choices,
    expected_outcomes,
    judge_pairwise,
    pairs_of,
    stored_choices,
)

pytestmark = pytest.mark.django_db

FAST_RETRY = RetryPolicy(max_attempts=4, max_total_wait=10, backoff_base=0.01)
# "ann" and "cat" say 你 twice (a tie by content), "bob" once but at the greatest length.
ANSWERS = {
    "ann": "你好，你还好吗？",
    "bob": "我在这里，愿意听听最近发生的事情，慢慢说就好，不着急，我们一起面对它。你觉得呢？",
    "cat": "我想听听你的感受，你愿意说说吗？",
}


def texts(i: int, name: str) -> str:
    return f"{ANSWERS[name]}（第{i}题）"


@pytest.fixture
def pairs():
    answered_by(names=list(ANSWERS), cases=4, texts=texts, name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    return pairs_of("set")


def run_of(name: str = "set") -> PairwiseRun:
    return PairwiseRun.objects.filter(pair_set__name=name).latest("id")


# ---- the reply and the tie rule (pure) ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("A 更好。", "not one JSON object"),
        ('{"winner": "A", "reasoning": "…"}', "reasoning must come before"),
        ('{"reasoning": "", "winner": "A"}', "reasoning is empty"),
        ('{"reasoning": "理由", "winner": "C"}', "winner is 'C'"),
        ('{"reasoning": "理由", "winner": "a"}', "winner is 'a'"),
        ('{"reasoning": "理由", "winner": "A", "score": 3}', "keys must be"),
        ('["A"]', "not one JSON object"),
    ],
)
def test_a_reply_is_read_strictly(text, problem):
    with pytest.raises(ReplyError, match=problem):
        pairwise_reply_parse(text)


def test_a_fenced_reply_reads_and_maps_back_to_the_stored_pair():
    reply = pairwise_reply_parse('```json\n{"reasoning": "更贴切", "winner": "B"}\n```')
    assert (reply.shown, reply.reasoning) == ("B", "更贴切")
    assert canonical_choice(shown="B", order="ab") == "b"
    assert canonical_choice(shown="B", order="ba") == "a"
    assert canonical_choice(shown="tie", order="ba") == "tie"


def test_a_choice_that_flips_with_the_order_counts_as_a_tie():
    assert pair_outcome(stored="a", swapped="a") == ("a", True)
    assert pair_outcome(stored="tie", swapped="tie") == ("tie", True)
    assert pair_outcome(stored="a", swapped="b") == ("tie", False)
    assert pair_outcome(stored="a", swapped="tie") == ("tie", False)


# ---- the fake's rules -------------------------------------------------------------------


def test_the_fake_answers_a_pairwise_prompt_by_its_rules_over_http():
    prompt = pairwise_template_load().render(
        dialogue=dialogue_render([{"role": "A", "content": "我睡不着。"}]),
        response_a="短",
        response_b="你你，较长的一条",
    )
    body = {"model": "j", "messages": [{"role": "user", "content": prompt}]}

    def ask(fake) -> dict:
        request = urllib.request.Request(
            f"{fake.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as reply:
            return json.loads(json.loads(reply.read())["choices"][0]["message"]["content"])

    with FakeLLM() as plain:
        assert ask(plain)["winner"] == "B"  # more 你
    with FakeLLM(position_bias=1.0) as first:
        assert ask(first)["winner"] == "A"  # always the first shown


# ---- runs through the command ------------------------------------------------------------


def test_both_orders_are_asked_and_stored_as_shown_and_mapped_back(pairs):
    with FakeLLM() as fake:
        out = judge_pairwise(fake, "set")
        assert fake.count() == 24  # 12 pairs × 2 orders, each asked once
    run = run_of()
    assert "pairwise run" in out and "done 24/24, errors 0" in out
    assert run.status == "finished" and run.template_version == "heartbench-pairwise-zh-v1"
    assert run.calls == 24 and run.tokens_in > 0 and run.tokens_out > 0
    assert stored_choices(run) == expected_choices(pairs, PairwiseRule())
    # By hand: ann–bob and cat–bob go to the one with more 你, wherever it is shown; ann–cat tie.
    for row in pairwise_run_outcomes(run=run):
        assert row.consistent is True
        winner = {("ann", "bob"): "a", ("bob", "cat"): "b", ("ann", "cat"): "tie"}
        assert row.outcome == winner[row.model_a, row.model_b]
    ann_bob = next(p for p in pairs if p.response_b.model.name == "bob" and p.case == pairs[0].case)
    swapped = PairwiseVerdict.objects.get(run=run, order="ba", pair=ann_bob)
    assert (swapped.shown_choice, swapped.choice) == ("B", "a")
    assert swapped.reasoning and swapped.raw_reply.startswith("{") and swapped.tokens_out > 0


def test_a_position_bias_shows_as_the_share_of_inconsistent_pairs(pairs):
    rule = PairwiseRule(position_bias=0.5)
    with FakeLLM(position_bias=0.5) as fake:
        judge_pairwise(fake, "set")
    outcomes = {
        row.pair_id: (row.outcome, row.consistent) for row in pairwise_run_outcomes(run=run_of())
    }
    expected = expected_outcomes(pairs, rule)
    assert outcomes == expected
    inconsistent = sum(not consistent for _, consistent in expected.values())
    # Worked from the draws: a pair whose content has a winner flips when the loser is shown
    # first and its draw is below 0.5; a tie by content flips when either order's draw is.
    by_hand = 0
    for p in pairs:
        a, b = p.response_a.text, p.response_b.text
        first_a, first_b = position_draw(a, b) < 0.5, position_draw(b, a) < 0.5
        merit_a, merit_b = fake_merit(a), fake_merit(b)
        if merit_a == merit_b:
            by_hand += first_a or first_b
        else:
            by_hand += first_b if merit_a > merit_b else first_a
    assert inconsistent == by_hand and 0 < inconsistent < len(pairs)
    assert all(outcome == "tie" for outcome, consistent in outcomes.values() if not consistent)


def test_a_length_bias_prefers_the_longer_response(pairs):
    with FakeLLM(length_bias=True) as fake:
        judge_pairwise(fake, "set")
    run = run_of()
    assert stored_choices(run) == expected_choices(pairs, PairwiseRule(length_bias=True))
    for row in pairwise_run_outcomes(run=run):
        # bob is the longest: it wins against ann and cat though it says 你 less.
        longest = {"ann": 0, "cat": 1, "bob": 2}
        expected = "a" if longest[row.model_a] > longest[row.model_b] else "b"
        assert (row.outcome, row.consistent) == (expected, True)


def _execute(fake, *, timeout: float = 2.0, force: bool = False, cases: tuple[str, ...] = ()):
    judge = judge_resolve(
        name="fake-judge", endpoint_model="fake-judge-model", base_url=fake.base_url, template=None
    )
    run, todo = pairwise_run_start(
        judge=judge,
        pair_set=pairwise_set_get(name="set"),
        options=RunOptions(sample_ids=cases),
        force=force,
    )
    if todo:
        options = EngineOptions(concurrency=4, timeout=timeout, retry=FAST_RETRY, force=force)
        pairwise_run_execute(run_id=run.pk, options=options)
    run.refresh_from_db()
    return run


def test_transient_faults_end_in_the_right_choices(pairs):
    faults = ("server_error", "hang", "disconnect", "malformed", "wrong_count")
    with FakeLLM(retry_after=0.05, hang_seconds=2) as fake:
        fake.fail_prompt(texts(0, "ann"), *faults)
        run = _execute(fake, timeout=0.5)
        assert fake.count() == 24 + len(faults)
    assert stored_choices(run) == expected_choices(pairs, PairwiseRule())
    assert run.errors == 0 and run.done == run.total == 24
    assert run.retries == 3 and run.parse_failures == 2 and run.reasks == 2


def test_a_reply_that_never_parses_is_an_error_and_the_command_exits_1(pairs):
    with FakeLLM() as fake:
        fake.fail_prompt(texts(0, "ann"), "malformed", "malformed", "malformed")
        with pytest.raises(CommandError) as failed:
            judge_pairwise(fake, "set", "--concurrency", "1")  # one unit gets all three
    assert failed.value.returncode == 1
    assert "1 pair orders ended in error" in str(failed.value)
    assert "--retry-errors" not in str(failed.value)
    (error,) = PairwiseVerdict.objects.filter(choice="error")
    assert error.shown_choice == "" and "no usable reply after 3 asks" in error.reasoning
    assert "比较" in error.raw_reply
    row = next(r for r in pairwise_run_outcomes(run=run_of()) if r.pair_id == error.pair_id)
    assert row.outcome == "" and row.consistent is None  # unusable, never a tie


def test_a_second_run_does_only_what_is_missing_from_the_cache(pairs):
    with FakeLLM() as fake:
        run = _execute(fake)
        sent = fake.count()
        # A run cut short: five verdicts missing, the run not finished.
        missing = list(PairwiseVerdict.objects.filter(run=run).order_by("pk")[:5])
        PairwiseVerdict.objects.filter(pk__in=[v.pk for v in missing]).delete()
        PairwiseRun.objects.filter(pk=run.pk).update(status="stopped")
        again = _execute(fake)
        assert again.pk == run.pk and again.status == "finished"
        assert fake.count() == sent  # nothing sent: the five came from the cache
        assert again.cached == 5 and again.done == 24
        assert stored_choices(again) == expected_choices(pairs, PairwiseRule())
        assert PairwiseVerdict.objects.filter(run=run, cached=True).count() == 5
        # Finished: the same command sends nothing; --force asks everything anew.
        assert "already finished; nothing sent" in judge_pairwise(fake, "set")
        assert fake.count() == sent
        forced = _execute(fake, force=True)
        assert forced.pk != run.pk and fake.count() == sent + 24 and forced.cached == 0


def test_a_refused_key_exits_2_says_so_and_the_fixed_command_continues(pairs):
    with FakeLLM(api_key="right-key") as fake:
        with pytest.raises(CommandError) as refused:
            judge_pairwise(fake, "set", "--api-key", "wrong-key")
        assert refused.value.returncode == 2
        assert "HTTP 401" in str(refused.value) and "Incorrect API key" in str(refused.value)
        run = run_of()
        assert run.status == "failed" and not PairwiseVerdict.objects.exists()
        out = judge_pairwise(fake, "set", "--api-key", "right-key")
    assert f"pairwise run {run.pk}: finished" in out
    assert PairwiseVerdict.objects.filter(run=run).count() == 24


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--model", "ann"], "--pairwise and --model exclude each other"),
        (["--repeats", "2"], "--pairwise and --repeats exclude each other"),
        (["--retry-errors"], "--pairwise and --retry-errors exclude each other"),
    ],
)
def test_options_of_rubric_runs_are_refused_with_pairwise(pairs, args, words):
    with FakeLLM() as fake:
        with pytest.raises(CommandError) as refused:
            judge_pairwise(fake, "set", *args)
        assert fake.count() == 0
    assert refused.value.returncode == 2 and words in str(refused.value)


def test_an_unknown_set_exits_2():
    with FakeLLM() as fake:
        with pytest.raises(CommandError) as refused:
            judge_pairwise(fake, "nope")
    assert refused.value.returncode == 2 and "no pairwise set named 'nope'" in str(refused.value)
    assert not PairwiseRun.objects.exists()


def test_a_429_is_waited_out_and_asked_again(pairs):
    with FakeLLM(retry_after=0.05, retry_after_ms=50) as fake:
        fake.queue("rate_limit")
        # One case (3 pairs): after a 429 the client paces itself by the rate it learnt.
        run = _execute(fake, cases=(pairs[0].case.question_id,))
        assert fake.count(fault="rate_limit") == 1 and fake.count() == 7
    assert run.retries == 1 and run.errors == 0 and run.done == run.total == 6
    first_case = [p for p in pairs if p.case_id == pairs[0].case_id]
    assert stored_choices(run) == expected_choices(first_case, PairwiseRule())
