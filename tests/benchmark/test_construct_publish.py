"""Quality control and publishing: `heartbench construct snapshot`, `prune` and `publish`.

A snapshot freezes the drafts in the funnel as an ordinary dataset (through the dataset
importer); prune removes what the saturation analysis of its verdicts finds, with reasons, or
only prints it (--dry-run); publish refuses a draft it cannot publish and otherwise makes a
version whose JSONL re-imports unchanged."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark.models import (
    AuditEvent,
    ConstructionSnapshot,
    Dataset,
    DraftCase,
    DraftCriterion,
    DraftResponse,
    DraftStatus,
    Response,
    RubricItem,
)
from benchmark.selectors.construction import project_proposed_hard
from benchmark.selectors.leaderboard_options import (
    leaderboard_datasets,
    leaderboard_default_dataset,
)
from benchmark.services.construction import project_create, seeds_import
from benchmark.services.criteria import (
    draft_case_accept,
    draft_case_difficulty_set,
    draft_criterion_add,
    draft_criterion_revise,
)
from tests.builders.construction import (
    BASE_SEEDS,
    construct,
    pilot_drafts,
    pilot_judged,
    rubric_top_up,
)
from tests.builders.datasets import (
    DatasetFactory,
    ModelUnderTestFactory,
)

pytestmark = pytest.mark.django_db


def written() -> tuple[int, int, int, int]:
    return (
        Dataset.objects.count(),
        ConstructionSnapshot.objects.count(),
        AuditEvent.objects.count(),
        DraftCase.objects.exclude(status=DraftStatus.ACTIVE).count(),
    )


@pytest.fixture
def author():
    return get_user_model().objects.create_user("author")


@pytest.fixture
def project():
    return project_create(name="pilot", dataset_name="heartbench-pilot")


@pytest.fixture
def drafts(project, author):
    return pilot_drafts(project, author)


@pytest.mark.parametrize("action", ["snapshot", "publish", "prune"])
def test_an_unknown_project_is_refused(action):
    extra = ["--dataset", "x"] if action == "prune" else []
    with pytest.raises(CommandError, match="no construction project named 'nope'"):
        construct(action, "--project", "nope", *extra)
    assert written() == (0, 0, 0, 0)


def test_a_snapshot_with_no_draft_in_the_funnel_writes_nothing(project):
    before = written()
    with pytest.raises(CommandError, match="pilot has no draft in the funnel"):
        construct("snapshot", "--project", "pilot")
    assert written() == before


def test_a_snapshot_of_drafts_without_criteria_writes_nothing(project):
    seeds_import(path=BASE_SEEDS, project=project)
    before = written()
    with pytest.raises(CommandError, match="no draft of pilot has an active criterion"):
        construct("snapshot", "--project", "pilot")
    assert written() == before


def test_a_snapshot_freezes_the_funnel_as_a_hidden_dataset(project, drafts, author):
    draft = drafts["s-02"]
    draft.rewrite = [{"role": "A", "content": "改写后的对话"}]
    draft.save()
    DraftCriterion.objects.filter(draft=drafts["s-03"]).update(status="removed")
    draft_criterion_revise(criterion=draft.criteria.get(position=0), text="准确回应了情绪",
                           points=4, ability="warmth", author=author, reason="更清楚")  # fmt: skip
    model = ModelUnderTestFactory(name="ref-a")
    DraftResponse.objects.create(draft=draft, model=model, text="我听见你了")
    public = DatasetFactory(name="public")

    output = construct("snapshot", "--project", "pilot")

    dataset = Dataset.objects.get(name="heartbench-pilot-draft")
    assert "left out, no active criterion: s-03" in output
    assert f"snapshot {dataset}: 2 drafts, 6 criteria, 1 reference answers" in output
    assert (dataset.version, dataset.case_count, dataset.criterion_count) == (1, 2, 6)
    case = dataset.cases.get(question_id="s-02")
    assert case.dialogue == draft.rewrite and case.difficulty == "normal"
    first = case.rubric.get(position=0)
    assert (first.ability, first.points, first.text) == ("warmth", 4, "准确回应了情绪")
    mapped = first.draft_source
    assert (mapped.criterion.draft, mapped.criterion.position, mapped.criterion_version) == (
        draft, 0, 2,
    )  # fmt: skip
    assert mapped.snapshot.purpose == "quality"
    assert Response.objects.get(case=case, model=model).text == "我听见你了"
    assert AuditEvent.objects.filter(action="construction_snapshot.create").count() == 1
    # A scoring round's drafts rank nothing: off the leaderboard's list and default.
    assert leaderboard_datasets() == [public]
    assert leaderboard_default_dataset() == public

    again = construct("snapshot", "--project", "pilot")
    assert f"nothing changed since snapshot {dataset}" in again
    assert Dataset.objects.filter(name="heartbench-pilot-draft").count() == 1


def test_another_projects_snapshot_of_the_same_content_is_not_taken(project, drafts, author):
    construct("snapshot", "--project", "pilot")
    twin = project_create(name="twin", dataset_name="heartbench-pilot")
    pilot_drafts(twin, author)
    before = written()
    with pytest.raises(CommandError, match="holds exactly this content but is no snapshot of twin"):
        construct("snapshot", "--project", "twin")
    assert written() == before


@pytest.fixture
def judged(drafts):
    return pilot_judged(drafts)


def test_prune_needs_a_snapshot_of_the_project(project, drafts):
    DatasetFactory(name="other")
    with pytest.raises(CommandError, match="other v1 is not a snapshot of pilot"):
        construct("prune", "--project", "pilot", "--dataset", "other")
    with pytest.raises(CommandError, match="no dataset named 'ghost'"):
        construct("prune", "--project", "pilot", "--dataset", "ghost")


def test_prune_needs_verdicts(project, drafts):
    construct("snapshot", "--project", "pilot")
    with pytest.raises(CommandError, match="no judge run on heartbench-pilot-draft v1"):
        construct("prune", "--project", "pilot", "--dataset", "heartbench-pilot-draft")


def test_a_dry_run_prints_the_removals_and_writes_nothing(judged):
    before = written()
    statuses = list(DraftCriterion.objects.values_list("status", flat=True))
    output = construct("prune", "--project", "pilot", "--dataset", judged.name, "--dry-run")
    assert "would remove 3 saturated criteria, 1 drafts" in output
    assert "s-02 #0: saturated: hit by every model (100%); models m1, m2, judge j" in output
    assert "s-01: too easy: mean score 100.0 > threshold 80" in output
    assert "proposed hard: s-03" in output and "dry run: nothing written" in output
    assert written() == before
    assert list(DraftCriterion.objects.values_list("status", flat=True)) == statuses
    assert ConstructionSnapshot.objects.get().proposed_hard == []
    assert project_proposed_hard(project=judged.construction_snapshot.project) == []


def test_prune_removes_saturated_criteria_and_too_easy_drafts_with_reasons(judged, drafts):
    output = construct("prune", "--project", "pilot", "--dataset", judged.name)
    assert "removed 3 saturated criteria, 1 drafts" in output
    removed = DraftCriterion.objects.filter(status="removed").order_by("draft", "position")
    assert [(c.draft.question_id, c.position, c.removed_stage) for c in removed] == [
        ("s-01", 0, "saturated"), ("s-01", 1, "saturated"), ("s-02", 0, "saturated"),
    ]  # fmt: skip
    assert "models m1, m2, judge j, on heartbench-pilot-draft v1" in removed[2].removed_reason
    easy = DraftCase.objects.get(question_id="s-01")
    assert (easy.status, easy.removed_stage) == ("removed", "too_easy")
    assert "mean score 100.0 > threshold 80" in easy.removed_reason
    snapshot = ConstructionSnapshot.objects.get()
    assert snapshot.proposed_hard == ["s-03"]
    assert snapshot.saturation["judge"] == "j"
    assert snapshot.saturation["summary"]["saturated"] == 3
    assert AuditEvent.objects.filter(action="draft_criterion.remove").count() == 3
    assert AuditEvent.objects.filter(action="construction_snapshot.prune").count() == 1
    assert project_proposed_hard(project=snapshot.project) == ["s-03"]

    # A second pass finds them gone and says so, without acting twice.
    again = construct("prune", "--project", "pilot", "--dataset", judged.name)
    assert "removed 0 saturated criteria, 0 drafts" in again
    assert "not acted on: draft s-01: removed" in again


def test_prune_leaves_a_criterion_revised_since_the_snapshot(judged, drafts, author):
    criterion = drafts["s-02"].criteria.get(position=0)
    draft_criterion_revise(criterion=criterion, text="更具体的回应", points=3,
                           ability="warmth", author=author, reason="太宽泛")  # fmt: skip
    output = construct("prune", "--project", "pilot", "--dataset", judged.name)
    assert "criterion s-02 #0: revised since the snapshot (v1 → v2)" in output
    criterion.refresh_from_db()
    assert criterion.status == "active"


def accept(draft, *, difficulty="normal"):
    if difficulty:
        draft_case_difficulty_set(draft=draft, difficulty=difficulty, reason="mixed_emotions")
    return draft_case_accept(draft=draft)


def test_publish_refuses_with_no_accepted_draft(drafts, tmp_path):
    before = written()
    with pytest.raises(CommandError, match="no draft of pilot is accepted by the panel"):
        construct("publish", "--project", "pilot", "--out", str(tmp_path / "out.jsonl"))
    assert written() == before and list(tmp_path.iterdir()) == []


def test_publish_names_every_draft_it_cannot_publish_and_writes_nothing(drafts, tmp_path):
    accept(drafts["s-01"], difficulty="")
    DraftCriterion.objects.filter(draft=drafts["s-02"], ability="catastrophic").update(
        status="removed"
    )
    accept(drafts["s-02"])
    draft_criterion_add(draft=drafts["s-03"], ability="catastrophic", points=-4,
                        text="否定感受", author=drafts["s-03"].criteria.first().author)  # fmt: skip
    accept(drafts["s-03"], difficulty="hard")
    before = written()
    with pytest.raises(CommandError) as failure:
        construct("publish", "--project", "pilot", "--out", str(tmp_path / "out.jsonl"))
    message = str(failure.value)
    assert "s-01: no difficulty decision (normal or hard)" in message
    # The rubric rules are benchmark.rubric_rules's, every one of them, each draft named.
    assert "s-02: The rubric has 0 catastrophic criteria (exactly one)." in message
    assert "s-02: The rubric has 2 criteria (from 4 to 24" in message
    assert "s-03: The rubric has 2 catastrophic criteria (exactly one)." in message
    assert message.count("s-03:") == 1
    assert written() == before and list(tmp_path.iterdir()) == []


def test_publish_makes_a_version_that_reimports_unchanged(drafts, author, tmp_path):
    for name in ("s-01", "s-03"):
        rubric_top_up(drafts[name], author=author)
    accept(drafts["s-01"], difficulty="hard")
    accept(drafts["s-03"])
    out = tmp_path / "pilot.jsonl"

    output = construct("publish", "--project", "pilot", "--out", str(out))

    dataset = Dataset.objects.get(name="heartbench-pilot")
    assert f"published {dataset}: 2 cases, 8 criteria" in output
    snapshot = dataset.construction_snapshot
    assert snapshot.purpose == "published" and snapshot.criteria.count() == 8
    assert dict(dataset.cases.values_list("question_id", "difficulty")) == {
        "s-01": "hard", "s-03": "normal",
    }  # fmt: skip
    statuses = dict(DraftCase.objects.values_list("question_id", "status"))
    assert statuses == {"s-01": "published", "s-02": "active", "s-03": "published"}
    assert AuditEvent.objects.filter(action="draft.publish").count() == 2
    assert dataset in leaderboard_datasets()
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["question_id"] for line in lines] == ["s-01", "s-03"]
    # The criteria added by hand after the catastrophic one come before it: a published rubric
    # ends with its catastrophic criterion (其他), as the upstream files do.
    assert lines[0]["rubric"][-1] == {"dimension": "其他", "score": None, "content": "鼓励自伤"}
    assert [c["dimension"] for c in lines[0]["rubric"]].count("其他") == 1

    call_command("import_dataset", str(out), "--name", "heartbench-pilot", stdout=io.StringIO())
    assert Dataset.objects.filter(name="heartbench-pilot").count() == 1  # same content: no-op
    call_command(
        "import_dataset", str(out), "--name", "reimported", "--allow-copy", stdout=io.StringIO()
    )
    copy = Dataset.objects.get(name="reimported")
    assert copy.content_hash == dataset.content_hash

    def content(of):
        items = RubricItem.objects.filter(case__dataset=of).order_by("case__position", "position")
        return list(items.values_list("case__question_id", "ability", "points", "text"))

    assert content(copy) == content(dataset)

    with pytest.raises(CommandError, match="no draft of pilot is accepted"):
        construct("publish", "--project", "pilot")
