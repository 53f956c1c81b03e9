"""Rubric synthesis against the fake server through the LLM job runner: the prompt holds the
dialogue (the rewrite where there is one), every ability's standard and the reference answers;
a usable reply becomes the draft's criteria with provenance, an unusable one is asked again
with the reasons, three bad replies list the draft as failed; resumable, under a budget."""

import io
import json
import os
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from benchmark.llm.engine import WorkItem
from benchmark.llm.fake_server import CATASTROPHIC_TEXT, REWRITTEN, FakeLLM, fake_rubric, prompt_key
from benchmark.llm.parser import ReplyError
from benchmark.llm.prompts import DEFAULT_RUBRIC_TEMPLATE, template_load
from benchmark.llm.rubric_reply import rubric_reply_read
from benchmark.models import (
    AuditEvent,
    Dataset,
    DraftCase,
    DraftCriterion,
    DraftCriterionVersion,
    SynthesisRun,
)
from benchmark.selectors.construction import standards_current
from benchmark.services.criteria import (
    draft_case_accept,
    draft_case_difficulty_set,
    draft_case_remove,
    draft_criterion_add,
)
from benchmark.services.standards import standard_write
from benchmark.services.synthesis import (
    TEMPLATE_VARIABLES,
    _reask,
    standards_render,
    synthesis_prompt,
)
from tests.builders.cli import heartbench
from tests.builders.construction import BASE_SEEDS, rubric_top_up
from tests.conftest import sqlite_migrated

pytestmark = pytest.mark.django_db
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5", "--max-attempts", "2"]
TEMPLATE = "heartbench-rubric-zh-v1"


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


def construct(*args: str) -> str:
    out = io.StringIO()
    call_command("construct", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def drafts(fake):
    """Three drafts (s-03 rewritten), two written standards, two reference answers each."""
    senior = get_user_model().objects.create_user("senior")
    construct("create-project", "pilot", "--dataset-name", "heartbench-pilot")
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
    DraftCase.objects.filter(question_id="s-03").update(
        rewrite=[{"role": "A", "content": REWRITTEN + "搬家以后我只和同事说话。"}]
    )
    standard_write(ability="warmth", text="承认来访者的努力。", author=senior)
    standard_write(ability="warmth", text="承认来访者的努力，\n不评判。", author=senior,
                   reason="clearer")  # fmt: skip
    standard_write(ability="curiosity", text="对未说明之处开放式提问。", author=senior)
    construct("references", "--project", "pilot", "--models", "ref-a,ref-b",
              "--base-url", fake.base_url, *QUICK)  # fmt: skip
    return {d.question_id: d for d in DraftCase.objects.all()}


def synthesize(fake, *extra: str) -> str:
    args = ["synthesize", "--project", "pilot", "--model", "synth", "--base-url", fake.base_url]
    return construct(*args, *QUICK, *extra)


def sent_prompt(draft: DraftCase) -> str:
    template = template_load(DEFAULT_RUBRIC_TEMPLATE, allowed=TEMPLATE_VARIABLES)
    draft = DraftCase.objects.prefetch_related("responses__model").get(pk=draft.pk)
    return synthesis_prompt(
        draft=draft, standards=standards_render(standards_current()), template=template
    )


def test_the_prompt_holds_the_rewrite_every_standard_and_every_reference_answer(drafts):
    prompt = sent_prompt(drafts["s-03"])
    assert REWRITTEN + "搬家以后" in prompt and "Since the move" not in prompt
    assert "- warmth（温暖，第 2 版）：承认来访者的努力， 不评判。" in prompt
    assert "- curiosity（好奇心，第 1 版）：对未说明之处开放式提问。" in prompt
    assert "- humor（幽默）：尚未撰写" in prompt and "catastrophic（" not in prompt
    answers = list(drafts["s-03"].responses.order_by("model__name").values_list("text", flat=True))
    assert len(answers) == 2 and all(f"回答 {n}：\n{a}" in prompt for n, a in enumerate(answers, 1))
    assert "ref-a" not in prompt  # the models are not named
    seed = sent_prompt(drafts["s-02"])
    assert "A：我妈每天打三个电话" in seed and "from -10 to 10" not in seed
    assert "从 -10 到 10" in seed and "总共 4 到 24 条" in seed


def test_every_draft_gets_criteria_with_their_provenance(drafts, fake):
    before = fake.count()
    out = synthesize(fake)
    assert "synthesis run" in out and "done 3/3, errors 0" in out
    run = SynthesisRun.objects.get()
    assert run.status == "finished" and run.template_version == TEMPLATE
    assert fake.count() - before == 3
    assert f"criteria drafted by this run: {run.criteria.count()}" in out
    for draft in drafts.values():
        reply = fake_rubric(sent_prompt(draft))
        expected = json.loads(reply)["criteria"]
        criteria = list(draft.criteria.order_by("position"))
        assert [(c.ability, c.points, c.text) for c in criteria] == [
            (e["ability"], e["points"], e["text"]) for e in expected
        ]
        assert {(c.origin, c.version, c.synthesis_run_id, c.template_version, c.model_name)
                for c in criteria} == {("synthesised", 1, run.pk, TEMPLATE, "synth")}  # fmt: skip
        assert all(c.raw_reply == reply and c.author is None for c in criteria)
    # Two written standards: two positive criteria, the negative one, the catastrophic one.
    s02 = drafts["s-02"].criteria.order_by("position")
    assert [c.ability for c in s02] == ["curiosity", "warmth", "verbal_expression",
                                        "catastrophic"]  # fmt: skip
    assert s02.last().text == CATASTROPHIC_TEXT and s02.last().points is None
    assert "一次性给出5条" in s02[2].text  # two reference answers + 3
    assert DraftCriterionVersion.objects.count() == DraftCriterion.objects.count() == 12
    assert AuditEvent.objects.filter(action="draft_criterion.add").count() == 12


def test_an_invalid_rubric_is_asked_again_with_the_reasons_then_used(drafts, fake):
    fake.fail_prompt("喘不过气", "invalid_rubric")
    out = synthesize(fake)
    assert "done 3/3, errors 0" in out
    run = SynthesisRun.objects.get()
    assert (run.reasks, run.parse_failures, run.errors) == (1, 1, 0)
    criteria = drafts["s-02"].criteria.all()
    assert criteria.count() == 4 and not any("？" in c.text for c in criteria)
    assert {c.raw_reply for c in criteria} == {fake_rubric(sent_prompt(drafts["s-02"]))}


def test_the_reask_names_every_reason_after_the_unusable_reply():
    bad = fake_rubric("A：来访者\n各能力的绝对标准", valid=False)
    with pytest.raises(ReplyError) as error:
        rubric_reply_read(bad, None)
    problem = error.value.problem
    assert "criterion 1: The text asks a question" in problem
    assert "criterion 2: points must be a non-zero whole number" in problem
    first = [{"role": "user", "content": "prompt"}]
    messages = _reask(WorkItem(ident=1, messages=first), first, bad, problem)
    assert messages[:2] == [*first, {"role": "assistant", "content": bad}]
    assert problem in messages[2]["content"] and messages[2]["role"] == "user"


def test_three_bad_replies_list_the_draft_as_failed_with_the_reason_and_write_nothing(drafts, fake):
    fake.fail_prompt("喘不过气", "invalid_rubric", "malformed", "invalid_rubric")
    with pytest.raises(CommandError, match="1 drafts got no usable rubric") as failure:
        synthesize(fake)
    assert failure.value.returncode == 1
    run = SynthesisRun.objects.get()
    assert (run.status, run.errors, run.reasks) == ("finished", 1, 2)
    (listed,) = run.failures
    assert listed["draft_id"] == drafts["s-02"].pk
    assert "no usable reply after 3 asks" in listed["reason"]
    assert "2 catastrophic criteria" not in listed["reason"]  # per-criterion reasons first
    assert "asks a question" in listed["reason"]
    assert not drafts["s-02"].criteria.exists()
    assert drafts["s-01"].criteria.count() == drafts["s-03"].criteria.count() == 4


def test_a_rerun_asks_only_for_drafts_without_criteria(drafts, fake):
    fake.fail_prompt("喘不过气", *["malformed"] * 3)
    author = get_user_model().objects.create_user("author")
    draft_criterion_add(draft=drafts["s-03"], ability="warmth", points=2, text="AI安慰来访者",
                        author=author)  # fmt: skip
    with pytest.raises(CommandError):
        synthesize(fake)
    first = SynthesisRun.objects.get()
    assert first.total == 3 and first.done == 3 and first.errors == 1
    assert drafts["s-03"].criteria.count() == 1  # hand-written: not asked
    sent = fake.count()
    out = synthesize(fake)
    assert "done 3/3, errors 0" in out and fake.count() == sent + 1
    assert SynthesisRun.objects.count() == 2
    assert drafts["s-02"].criteria.count() == 4
    # Nothing left: a third run asks nothing.
    synthesize(fake)
    assert fake.count() == sent + 1


def test_removed_drafts_are_not_asked_and_limit_takes_the_first_in_the_funnel(drafts, fake):
    draft_case_remove(draft=drafts["s-01"], stage="triage", reason="duplicate scenario")
    before = fake.count()
    out = synthesize(fake, "--limit", "1")
    assert "done 1/1" in out and fake.count() == before + 1
    assert drafts["s-02"].criteria.count() == 4
    assert not drafts["s-01"].criteria.exists() and not drafts["s-03"].criteria.exists()
    assert SynthesisRun.objects.get().limit == 1


PRICED = ["--price-in", "1000", "--price-out", "1000", "--concurrency", "1"]


def test_a_budget_stop_keeps_what_was_drafted_and_the_same_command_continues(drafts, fake):
    before = fake.count()
    with pytest.raises(CommandError, match="with --max-cost") as stop:
        synthesize(fake, *PRICED, "--max-cost", "2.5")
    assert stop.value.returncode == 3
    stopped = SynthesisRun.objects.get()
    assert stopped.status == "stopped" and stopped.stop_reason == "budget"
    paid = fake.count() - before
    assert 0 < paid < 3
    drafted = DraftCriterion.objects.values("draft").distinct().count()
    assert drafted == paid
    synthesize(fake, *PRICED, "--max-cost", "20")
    resumed = SynthesisRun.objects.get()
    assert resumed.pk == stopped.pk and resumed.status == "finished"
    assert fake.count() - before == 3 and DraftCriterion.objects.count() == 12


def test_a_sent_prompt_is_the_one_the_service_builds(drafts, fake):
    synthesize(fake, "--limit", "1")
    key = prompt_key([{"role": "user", "content": sent_prompt(drafts["s-01"])}])
    assert key in {request.key for request in fake.requests}


def test_synthesize_needs_a_base_url_and_ctrl_c_says_how_to_resume(drafts, fake, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(CommandError, match="has no base URL") as failure:
        construct("synthesize", "--project", "pilot", "--model", "nowhere", *QUICK)
    assert failure.value.returncode == 2 and not DraftCriterion.objects.exists()

    def interrupted(*, run, options, on_progress):
        SynthesisRun.objects.filter(pk=run.pk).update(status="stopped", total=3, done=1)
        raise KeyboardInterrupt

    monkeypatch.setattr(
        "benchmark.management.commands.construct.synthesis_run_execute", interrupted
    )
    with pytest.raises(CommandError, match=r"stopped with 1 of 3 drafts stored") as failure:
        synthesize(fake)
    assert failure.value.returncode == 130


def test_synthesised_rubrics_are_judged_pruned_and_published(drafts, fake, tmp_path):
    """Issue 14's path with the rubrics drafted by the fake synthesiser, not by hand."""
    synthesize(fake)
    construct("snapshot", "--project", "pilot")
    for model in ("ref-a", "ref-b"):
        call_command("judge", "--model", model, "--dataset", "heartbench-pilot-draft",
                     "--judge-model", "fake-judge", "--base-url", fake.base_url, *QUICK,
                     stdout=io.StringIO())  # fmt: skip
    pruned = construct("prune", "--project", "pilot", "--dataset", "heartbench-pilot-draft")
    # The fake judge's verdict depends on the text only, so both models hit the same criteria:
    # two positive ones are hit (saturated), no draft's mean score passes 80.
    assert "removed 2 saturated criteria, 0 drafts" in pruned
    active = list(DraftCase.objects.filter(status="active"))
    assert len(active) == 3
    author = get_user_model().objects.create_user("author")
    for draft in active:
        rubric_top_up(draft, author=author)  # what pruning left short of four criteria
        draft_case_difficulty_set(draft=draft, difficulty="normal", reason="")
        draft_case_accept(draft=draft)
    out = tmp_path / "heartbench-pilot.jsonl"
    construct("publish", "--project", "pilot", "--out", str(out))
    published = Dataset.objects.get(name="heartbench-pilot")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert published.case_count == len(rows) == 3 and published.criterion_count == 3 * 4
    drafted = set(DraftCriterion.objects.filter(status="active").values_list("text", flat=True))
    texts = [item["content"] for row in rows for item in row["rubric"]]
    assert set(texts) == drafted
    assert all([i["dimension"] for i in row["rubric"]].count("其他") == 1 for row in rows)
    call_command(
        "import_dataset", str(out), "--name", "again", "--allow-copy", stdout=io.StringIO()
    )
    assert Dataset.objects.get(name="again").content_hash == published.content_hash


@pytest.mark.django_db(transaction=False)
def test_the_console_lists_a_failed_draft_in_english_only(tmp_path):
    """The command line speaks English: a failed draft's reason, the rubric rules' words
    included, has no Chinese but what it quotes from the reply."""
    env = {**os.environ, "DATABASE_URL": sqlite_migrated(tmp_path / "synth.sqlite3")}
    env.pop("REDIS_URL", None)
    with FakeLLM() as fake:
        for command in (
            ["create-project", "pilot", "--dataset-name", "heartbench-pilot"],
            ["import-seeds", str(BASE_SEEDS), "--project", "pilot"],
            ["references", "--project", "pilot", "--models", "ref-a", "--base-url",
             fake.base_url, *QUICK],
        ):  # fmt: skip
            done = heartbench(env, "construct", *command)
            assert done.returncode == 0, done.stderr
        fake.fail_prompt("喘不过气", *["invalid_rubric"] * 3)
        done = heartbench(env, "construct", "synthesize", "--project", "pilot", "--model",
                          "synth", "--base-url", fake.base_url, *QUICK)  # fmt: skip
    assert done.returncode == 1, done.stderr
    (failed,) = [line for line in done.stdout.splitlines() if line.startswith("  failed ")]
    assert "s-02" in failed and "asks a question" in failed
    quoted = re.sub(r"“[^”]*”|'[^']*'|: [^;]*[\u4e00-\u9fff][^;]*$", "", failed)
    assert not re.search(r"[\u4e00-\u9fff]", quoted), failed
