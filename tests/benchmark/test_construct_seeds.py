"""`heartbench construct`: projects, and seed files imported as draft cases whole or not at all."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark.models import AuditEvent, ConstructionProject, DraftCase
from tests.builders.construction import BASE_SEEDS
from tests.builders.importing import CORPUS

# file → (line, part of the reason). Each must fail whole: nothing written.
SEEDS_CORPUS = {
    "seeds-missing-dialogue.jsonl": (2, 'missing required field "dialogue"'),
    "seeds-unknown-field.jsonl": (2, "unknown field 'primary scene'; a seed has id, dialogue"),
    "seeds-duplicate-id.jsonl": (3, 'duplicate id "s-01" (first on line 1)'),
    "seeds-last-turn-counsellor.jsonl": (2, "dialogue: the last turn must be the user's (role A)"),
    "seeds-bad-role.jsonl": (1, 'dialogue[1].role: expected "A" or "B", got "C"'),
    "seeds-empty-id.jsonl": (2, "id: must not be empty"),
    "seeds-truncated-json.jsonl": (3, "invalid JSON"),
    "seeds-non-string-notes.jsonl": (2, "notes: expected a string, got a number"),
    "seeds-empty-dialogue.jsonl": (3, "dialogue: must not be empty"),
    "seeds-missing-primary-scene.jsonl": (1, 'missing required field "primary_scene"'),
}

pytestmark = pytest.mark.django_db


def construct(*args: str) -> str:
    out = io.StringIO()
    call_command("construct", *args, stdout=out)
    return out.getvalue()


def counts() -> tuple[int, int]:
    return DraftCase.objects.count(), AuditEvent.objects.count()


@pytest.fixture
def project() -> ConstructionProject:
    construct("create-project", "pilot", "--dataset-name", "heartbench-pilot")
    return ConstructionProject.objects.get(name="pilot")


def assert_refused(path, line: int, reason: str) -> None:
    before = counts()
    with pytest.raises(CommandError) as failure:
        construct("import-seeds", str(path), "--project", "pilot")
    assert f"{path}:{line}: " in str(failure.value)
    assert reason in str(failure.value)
    assert counts() == before


def test_the_corpus_holds_every_listed_file():
    assert {p.name for p in CORPUS.glob("seeds-*.jsonl")} == set(SEEDS_CORPUS)


@pytest.mark.parametrize("name", sorted(SEEDS_CORPUS))
def test_a_malformed_seed_file_is_refused_whole(project, name):
    line, reason = SEEDS_CORPUS[name]
    assert_refused(CORPUS / name, line, reason)


def test_create_project_is_audited_and_refuses_a_second_of_the_same_name(project):
    event = AuditEvent.objects.get(action="construction_project.create")
    assert event.object_id == str(project.pk)
    assert event.data == {"name": "pilot", "dataset_name": "heartbench-pilot"}
    with pytest.raises(CommandError, match="a project named 'pilot' exists already"):
        construct("create-project", "pilot", "--dataset-name", "other")
    assert ConstructionProject.objects.count() == 1


def test_seeds_become_drafts_in_file_order_with_an_audit_row(project):
    output = construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
    assert "3 drafts added to pilot (3 in all)" in output
    drafts = list(project.drafts.order_by("position"))
    assert [(d.question_id, d.position) for d in drafts] == [("s-01", 0), ("s-02", 1), ("s-03", 2)]
    first = json.loads(BASE_SEEDS.read_text(encoding="utf-8").splitlines()[0])
    assert drafts[0].dialogue == first["dialogue"]
    assert (drafts[0].primary_scene, drafts[0].source, drafts[0].notes) == (
        "workplace", "clinic notes, paraphrased", "avoidance",
    )  # fmt: skip
    assert drafts[2].source == "" and drafts[2].notes == "" and drafts[0].rewrite is None
    event = AuditEvent.objects.get(action="drafts.import")
    assert event.object_id == str(project.pk)
    assert event.data == {"file": "base-seeds.jsonl", "drafts": 3, "ids": ["s-01", "s-02", "s-03"]}


def test_a_seed_already_a_draft_is_refused_on_its_line(project, tmp_path):
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
    more = tmp_path / "more.jsonl"
    first = BASE_SEEDS.read_text(encoding="utf-8").splitlines()[0]
    more.write_text(first.replace('"s-01"', '"s-04"') + "\n" + first + "\n", encoding="utf-8")
    assert_refused(more, 2, 'id "s-01" is already a draft of pilot')
    more.write_text(first.replace('"s-01"', '"s-04"') + "\n", encoding="utf-8")
    assert "1 drafts added to pilot (4 in all)" in construct(
        "import-seeds", str(more), "--project", "pilot"
    )
    assert project.drafts.get(question_id="s-04").position == 3


def test_the_same_seed_id_may_be_a_draft_of_two_projects(project):
    construct("create-project", "second", "--dataset-name", "other")
    construct("import-seeds", str(BASE_SEEDS), "--project", "pilot")
    construct("import-seeds", str(BASE_SEEDS), "--project", "second")
    assert DraftCase.objects.filter(question_id="s-01").count() == 2


def test_an_unknown_project_or_a_missing_file_is_a_clear_error(project, tmp_path):
    with pytest.raises(CommandError, match="no construction project named 'nope'"):
        construct("import-seeds", str(BASE_SEEDS), "--project", "nope")
    with pytest.raises(CommandError, match="cannot read the file"):
        construct("import-seeds", str(tmp_path / "absent.jsonl"), "--project", "pilot")
