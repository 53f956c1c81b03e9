"""Seed dialogues rewritten by an LLM (the fake server) through the LLM job runner: kept beside
the seed's own, checked turn by turn, asked again when unusable, cached and resumable."""

import io

import pytest
from django.core.management import CommandError, call_command

from benchmark.llm.engine import WorkItem
from benchmark.llm.fake_server import REWRITTEN, FakeLLM
from benchmark.llm.parser import ReplyError
from benchmark.models import AuditEvent, DraftCase, RewriteRun
from benchmark.services.rewrite import rewrite_interpret
from tests.builders.construction import BASE_SEEDS

pytestmark = pytest.mark.django_db
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5"]


@pytest.fixture
def fake():
    with FakeLLM(retry_after=0.05) as server:
        yield server


def construct(*args: str) -> str:
    out = io.StringIO()
    call_command("construct", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def project():
    construct("create-project", "pilot", "--dataset-name", "heartbench-pilot")


def test_import_then_rewrite_keeps_the_seed_beside_the_rewrite(project, fake):
    out = construct(
        "import-seeds", str(BASE_SEEDS), "--project", "pilot", "--rewrite",
        "--model", "rewriter", "--base-url", fake.base_url, *QUICK,
    )  # fmt: skip
    assert "3 drafts added" in out and "rewrite run" in out and "done 3/3, errors 0" in out
    for draft in DraftCase.objects.all():
        assert draft.rewrite_model == "rewriter" and draft.rewrite_error == ""
        assert [t["role"] for t in draft.rewrite] == [t["role"] for t in draft.dialogue]
        assert [t["content"] for t in draft.rewrite] == [
            REWRITTEN + t["content"] for t in draft.dialogue
        ]
    run = RewriteRun.objects.get()
    assert run.status == "finished" and run.template_version == "heartbench-rewrite-zh-v1"
    assert fake.count() == 3
    events = AuditEvent.objects.filter(action="draft.rewrite")
    assert events.count() == 3 and all(e.data["rewritten"] for e in events)


def test_an_unusable_reply_is_asked_again_then_left_as_an_error_and_resumed(project, fake):
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
    # s-02's seed: asked, re-asked twice, all unusable; the run ends with one error.
    fake.fail_prompt("喘不过气", "malformed", "malformed", "malformed")
    args = ["rewrite", "--project", "pilot", "--model", "rewriter", "--base-url", fake.base_url]
    with pytest.raises(CommandError, match="1 drafts got no usable rewrite") as failure:
        construct(*args, *QUICK)
    assert failure.value.returncode == 1
    failed = DraftCase.objects.get(question_id="s-02")
    assert failed.rewrite is None and "not a dialogue as JSON" in failed.rewrite_error
    assert failed.dialogue[0]["content"].startswith("我妈")  # the seed is untouched
    audit = AuditEvent.objects.get(action="draft.rewrite", object_id=str(failed.pk))
    assert audit.data["rewritten"] is False and "not a dialogue" in audit.data["error"]
    first_run = RewriteRun.objects.get()
    assert (first_run.errors, first_run.reasks) == (1, 2)
    sent = fake.count()
    # Again: only the draft without a rewrite is asked, in a new run.
    out = construct(*args, *QUICK)
    assert "done 3/3, errors 0" in out and fake.count() == sent + 1
    failed.refresh_from_db()
    assert failed.rewrite[0]["content"].startswith(REWRITTEN) and failed.rewrite_error == ""


def test_rewrite_needs_a_model_and_a_base_url(project, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(CommandError, match="--rewrite needs --model"):
        construct("import-seeds", str(BASE_SEEDS), "--project", "pilot", "--rewrite")
    assert not DraftCase.objects.exists()
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")  # drafts to rewrite
    with pytest.raises(CommandError, match="has no base URL"):
        construct("rewrite", "--project", "pilot", "--model", "rewriter", *QUICK)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ('{"dialogue": [{"role": "A", "content": "x"}]}', "roles are A, not AB"),
        ('{"dialogue": [{"role": "B", "content": "x"}, {"role": "A", "content": "y"}]}', "BA"),
        ('{"dialogue": [{"role": "A", "content": "x"}, {"role": "B", "content": " "}]}', "empty"),
        ('{"turns": []}', "not a dialogue"),
        ("改写如下：A：你好", "not a dialogue"),
    ],
)
def test_a_reply_must_have_the_seeds_turns(reply, problem):
    check = rewrite_interpret(["A", "B"])
    with pytest.raises(ReplyError, match=problem):
        check(WorkItem(ident=1, messages=[]), reply, None)


def test_a_fenced_reply_with_the_seeds_turns_is_used():
    check = rewrite_interpret(["A"])
    reply = '```json\n{"dialogue": [{"role": "A", "content": "改写后"}]}\n```'
    assert check(WorkItem(ident=1, messages=[]), reply, None) == [
        {"role": "A", "content": "改写后"}
    ]


def test_the_admin_shows_the_seed_beside_the_rewrite_escaped(project, fake, admin_client):
    construct(
        "import-seeds", str(BASE_SEEDS), "--project", "pilot", "--rewrite",
        "--model", "rewriter", "--base-url", fake.base_url, *QUICK,
    )  # fmt: skip
    draft = DraftCase.objects.get(question_id="s-01")
    DraftCase.objects.filter(pk=draft.pk).update(
        dialogue=[*draft.dialogue[:-1], {"role": "A", "content": "<b>tight</b>"}]
    )
    page = admin_client.get(f"/admin/benchmark/draftcase/{draft.pk}/change/")
    html = page.content.decode()
    assert page.status_code == 200 and 'class="draft-comparison"' in html
    assert draft.dialogue[0]["content"] in html and draft.rewrite[0]["content"] in html
    assert "&lt;b&gt;tight&lt;/b&gt;" in html and "<b>tight</b>" not in html


def test_ctrl_c_says_what_was_stored_and_exits_130(project, fake, monkeypatch):
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")

    def interrupted(*, run, options, on_progress):
        RewriteRun.objects.filter(pk=run.pk).update(status="stopped", total=3, done=1)
        raise KeyboardInterrupt

    monkeypatch.setattr("benchmark.management.commands.construct.rewrite_run_execute", interrupted)
    args = ["rewrite", "--project", "pilot", "--model", "rewriter", "--base-url", fake.base_url]
    with pytest.raises(CommandError, match=r"stopped with 1 of 3 drafts stored") as failure:
        construct(*args, *QUICK)
    assert failure.value.returncode == 130


def test_import_seeds_rewrite_asks_only_for_the_imported_drafts_and_then_nothing(
    project, fake, tmp_path
):
    """Drafts imported earlier without --rewrite stay as they are; a rewrite with nothing
    left says so and makes no run."""
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
    later = tmp_path / "later.jsonl"
    lines = BASE_SEEDS.read_text(encoding="utf-8").splitlines()
    later.write_text(
        "\n".join(line.replace('"id": "s-0', '"id": "t-0') for line in lines[:2]) + "\n",
        encoding="utf-8",
    )
    out = construct(
        "import-seeds", str(later), "--project", "pilot", "--rewrite",
        "--model", "rewriter", "--base-url", fake.base_url, *QUICK,
    )  # fmt: skip
    assert "2 drafts added" in out and "done 2/2" in out
    rewritten = set(DraftCase.objects.exclude(rewrite=None).values_list("question_id", flat=True))
    assert rewritten == {"t-01", "t-02"} and fake.count() == 2
    construct("rewrite", "--project", "pilot", "--model", "rewriter",
              "--base-url", fake.base_url, *QUICK)  # fmt: skip
    # The three earlier drafts now (two of them served from the cache: the same dialogues).
    assert not DraftCase.objects.filter(rewrite=None).exists()
    runs, asked = RewriteRun.objects.count(), fake.count()
    out = construct("rewrite", "--project", "pilot", "--model", "rewriter",
                    "--base-url", fake.base_url, *QUICK)  # fmt: skip
    assert "nothing to rewrite" in out
    assert RewriteRun.objects.count() == runs and fake.count() == asked
