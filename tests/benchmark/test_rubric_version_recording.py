"""Verdicts record the rubric version the judge was shown (engine against the fake LLM, and
imported upstream files)."""

import json

import pytest

from benchmark.llm.client import RetryPolicy
from benchmark.llm.fake_server import FakeLLM, fake_verdict
from benchmark.llm.prompts import DEFAULT_JUDGE_TEMPLATE, template_load
from benchmark.models import RubricItem, Verdict
from benchmark.services.imports import verdicts_import
from benchmark.services.judging import (
    EngineOptions,
    judge_resolve,
    judge_run_execute,
    judge_run_start,
    verdicts_store,
)
from benchmark.services.rubric import rubric_item_edit
from tests.builders.accounts import UserFactory
from tests.builders.datasets import JudgeRunFactory
from tests.builders.llm import answered_dataset

pytestmark = pytest.mark.django_db

FAST_RETRY = RetryPolicy(max_attempts=3, max_total_wait=5, backoff_base=0.01)


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


def _judge(fake, model, dataset, *, force=False):
    judge = judge_resolve(
        name="fake-judge",
        endpoint_model="fake-judge-model",
        base_url=fake.base_url,
        template=template_load(DEFAULT_JUDGE_TEMPLATE),
    )
    run, _ = judge_run_start(judge=judge, model=model, dataset=dataset, force=force)
    options = EngineOptions(concurrency=2, timeout=2.0, retry=FAST_RETRY, force=force)
    judge_run_execute(run_id=run.pk, options=options)
    return run


def _find_text_flipping_the_fake_verdict(text: str) -> str:
    # The fake judge's verdict is a function of the text: pick an edit that flips it, so the
    # stored verdict proves the judge was shown the new text.
    for n in range(100):
        candidate = f"{text}（修订{n}）"
        if fake_verdict(candidate) != fake_verdict(text):
            return candidate
    raise AssertionError("no flipping text found")


def test_engine_verdicts_carry_the_version_the_prompt_showed(fake):
    dataset, model = answered_dataset(cases=2)
    edited = RubricItem.objects.filter(case__dataset=dataset).order_by("pk").first()
    new_text = _find_text_flipping_the_fake_verdict(edited.text)
    editor = UserFactory()
    rubric_item_edit(item=edited, text=new_text, author=editor, reason="clarify")
    rubric_item_edit(item=edited, points=4, author=editor, reason="weigh")
    run = _judge(fake, model, dataset)

    versions = dict(Verdict.objects.filter(run=run).values_list("rubric_item_id", "rubric_version"))
    assert len(versions) == 8
    assert versions.pop(edited.pk) == 3
    assert set(versions.values()) == {1}
    verdict = Verdict.objects.get(run=run, rubric_item=edited)
    assert verdict.state == ("met" if fake_verdict(new_text) else "not_met")


def test_a_rejudge_after_an_edit_records_the_new_version_beside_the_old_run(fake):
    dataset, model = answered_dataset(cases=1)
    first = _judge(fake, model, dataset)
    item = RubricItem.objects.filter(case__dataset=dataset).order_by("pk").first()
    rubric_item_edit(item=item, text=item.text + "。", author=UserFactory(), reason="punctuation")
    again = _judge(fake, model, dataset, force=True)
    assert Verdict.objects.get(run=first, rubric_item=item).rubric_version == 1
    assert Verdict.objects.get(run=again, rubric_item=item).rubric_version == 2


def test_verdicts_keep_the_version_of_the_prompt_even_if_edited_while_out():
    dataset, model = answered_dataset(cases=1)
    run = JudgeRunFactory(dataset=dataset, model=model)
    item = RubricItem.objects.filter(case__dataset=dataset).order_by("pk").first()
    response = model.responses.get()
    shown = item.version
    rubric_item_edit(item=item, text="edited while the request was out", author=UserFactory(),
                     reason="r")  # fmt: skip
    verdicts_store(run_id=run.pk, response_id=response.pk, item_ids=[item.pk], states=["met"],
                   reasons=[""], raw="", versions=[shown])  # fmt: skip
    assert Verdict.objects.get(run=run).rubric_version == 1
    # Without versions, the criterion's current one is recorded.
    other = RubricItem.objects.filter(case__dataset=dataset).exclude(pk=item.pk).first()
    rubric_item_edit(item=other, points=-2, author=UserFactory(), reason="r")
    verdicts_store(run_id=run.pk, response_id=response.pk, item_ids=[other.pk], states=["met"],
                   reasons=[""], raw="")  # fmt: skip
    assert Verdict.objects.get(run=run, rubric_item=other).rubric_version == 2


def test_imported_verdicts_are_on_the_imported_version(tmp_path):
    dataset, model = answered_dataset(cases=1)
    case = dataset.cases.get()
    item = case.rubric.order_by("position").first()
    rubric_item_edit(item=item, text="curated text", author=UserFactory(), reason="r")
    scored = tmp_path / "scored.jsonl"
    scored.write_text(
        json.dumps({"question_id": case.question_id, "score_detail": [1, 0, 1, 0]}) + "\n"
    )
    result = verdicts_import(path=scored, model_name=model.name, dataset_name=dataset.name)
    versions = set(Verdict.objects.filter(run=result.run).values_list("rubric_version", flat=True))
    assert versions == {1}
    assert RubricItem.objects.get(pk=item.pk).version == 2
