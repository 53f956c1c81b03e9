"""From seeds to a published version on the command line, with the fake LLM server answering
as the reference models and the judge: the snapshot is judged by the ordinary `judge` command,
pruned on its verdicts, and the accepted drafts publish a file that re-imports unchanged."""

import io
import json
from itertools import count

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from benchmark.llm.fake_server import FakeLLM, fake_verdict
from benchmark.models import Dataset, DraftCase, DraftCriterion, JudgeRun
from benchmark.services.criteria import (
    draft_case_accept,
    draft_case_difficulty_set,
    draft_criterion_add,
)
from tests.builders.construction import BASE_SEEDS, construct

pytestmark = pytest.mark.django_db
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5"]


def text_judged(verdict: bool, prefix: str) -> str:
    """A criterion text the fake judge marks ``verdict`` for every response."""
    return next(f"{prefix} {n}" for n in count() if fake_verdict(f"{prefix} {n}") == verdict)


def test_seeds_to_a_published_version(tmp_path):
    author = get_user_model().objects.create_user("author")
    with FakeLLM() as fake:
        construct("create-project", "pilot", "--dataset-name", "heartbench-pilot")
        construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
        construct("references", "--project", "pilot", "--models", "ref-a,ref-b",
                  "--base-url", fake.base_url, *QUICK)  # fmt: skip
        for draft in DraftCase.objects.all():
            for ability, points, verdict in [
                ("warmth", 3, True),  # every model hits it: saturated
                ("curiosity", 2, False),
                ("emotional_understanding", 2, False),
                ("verbal_expression", -3, False),
                ("catastrophic", None, False),
            ]:
                text = text_judged(verdict, f"{draft.question_id} {ability}")
                draft_criterion_add(draft=draft, ability=ability, points=points, text=text,
                                    author=author)  # fmt: skip
        construct("snapshot", "--project", "pilot")
        for model in ("ref-a", "ref-b"):
            call_command("judge", "--model", model, "--dataset", "heartbench-pilot-draft",
                         "--judge-model", "fake-judge", "--base-url", fake.base_url, *QUICK,
                         stdout=io.StringIO())  # fmt: skip
    assert set(JudgeRun.objects.values_list("status", flat=True)) == {"finished"}

    output = construct("prune", "--project", "pilot", "--dataset", "heartbench-pilot-draft")
    assert "removed 3 saturated criteria, 0 drafts" in output
    assert "models ref-a, ref-b, judge fake-judge" in output
    removed = DraftCriterion.objects.filter(status="removed")
    assert set(removed.values_list("ability", flat=True)) == {"warmth"}

    for draft in DraftCase.objects.all():
        draft_case_difficulty_set(draft=draft, difficulty="normal", reason="")
        draft_case_accept(draft=draft)
    out = tmp_path / "heartbench-pilot.jsonl"
    construct("publish", "--project", "pilot", "--out", str(out))
    published = Dataset.objects.get(name="heartbench-pilot")
    assert (published.case_count, published.criterion_count) == (3, 12)
    assert all(
        [c["dimension"] for c in json.loads(line)["rubric"]]
        == ["好奇心", "情绪理解", "言语表达", "其他"]
        for line in out.read_text(encoding="utf-8").splitlines()
    )
    call_command(
        "import_dataset", str(out), "--name", "again", "--allow-copy", stdout=io.StringIO()
    )
    assert Dataset.objects.get(name="again").content_hash == published.content_hash

    report = io.StringIO()
    call_command("construct_report", "--project", "pilot", stdout=report)
    data = json.loads(report.getvalue())
    assert [row["drafts"] for row in data["funnel"]] == [3, 0, 3, 3, 3, 3, 3]
    assert data["criteria"] == {"written": 15, "active": 12, "removed": 3, "published": 12}
