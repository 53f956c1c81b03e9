"""The relative standard: reference models answer a project's drafts through the LLM job
runner (the fake server), the rewrite where there is one; resumable, failures listed."""

import io

import pytest
from django.core.management import CommandError, call_command

from benchmark.llm.fake_server import REWRITTEN, FakeLLM, prompt_key
from benchmark.llm.prompts import DEFAULT_GENERATE_TEMPLATE, dialogue_render, template_load
from benchmark.models import AuditEvent, DraftCase, DraftResponse, ReferenceRun
from tests.builders.construction import BASE_SEEDS

pytestmark = pytest.mark.django_db
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5", "--max-attempts", "2"]


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
    construct("create-project", "pilot", "--dataset-name", "heartbench-pilot")
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
    # One draft rewritten (by hand here): its reference answers are to the rewrite.
    DraftCase.objects.filter(question_id="s-03").update(
        rewrite=[{"role": "A", "content": REWRITTEN + "搬家以后我只和同事说话。"}]
    )


def test_every_reference_model_answers_every_draft_once(drafts, fake):
    args = ["references", "--project", "pilot", "--models", "ref-a,ref-b"]
    out = construct(*args, "--base-url", fake.base_url, *QUICK)
    assert "ref-a: reference run" in out and "ref-b: reference run" in out
    responses = DraftResponse.objects.all()
    assert responses.count() == 6 and all("模拟回复" in r.text for r in responses)
    assert {r.draft.question_id for r in responses if r.from_rewrite} == {"s-03"}
    assert fake.count() == 6
    assert set(ReferenceRun.objects.values_list("status", flat=True)) == {"finished"}
    assert AuditEvent.objects.filter(action="draft.reference_response").count() == 6
    # Again: nothing left to ask.
    construct(*args, "--base-url", fake.base_url, *QUICK)
    assert fake.count() == 6 and DraftResponse.objects.count() == 6


def test_the_rewrite_is_what_the_model_answers(drafts, fake):
    construct("references", "--project", "pilot", "--models", "ref-a",
              "--base-url", fake.base_url, *QUICK)  # fmt: skip
    draft = DraftCase.objects.get(question_id="s-03")
    assert DraftResponse.objects.get(draft=draft).from_rewrite

    def sent(dialogue):
        content = template_load(DEFAULT_GENERATE_TEMPLATE, allowed=frozenset({"dialogue"}))
        text = content.render(dialogue=dialogue_render(dialogue))
        return prompt_key([{"role": "user", "content": text}])

    keys = {request.key for request in fake.requests}
    assert sent(draft.rewrite) in keys and sent(draft.dialogue) not in keys


def test_a_failed_draft_is_listed_and_asked_again_next_time(drafts, fake):
    fake.fail_prompt("喘不过气", "server_error", "server_error")
    args = ["references", "--project", "pilot", "--models", "ref-a", "--base-url", fake.base_url]
    with pytest.raises(CommandError, match=r"drafts got no answer from ref-a \(1\)") as failure:
        construct(*args, *QUICK)
    assert failure.value.returncode == 1
    run = ReferenceRun.objects.get()
    assert (
        run.errors == 1
        and run.failures[0]["draft_id"] == DraftCase.objects.get(question_id="s-02").pk
    )
    assert DraftResponse.objects.count() == 2
    construct(*args, *QUICK)
    assert DraftResponse.objects.count() == 3 and ReferenceRun.objects.count() == 2
