"""Issue 14 end to end: synthetic seeds become a published, re-importable dataset version
through every stage — rewrite, reference answers, LLM-drafted rubrics (the fake server), a
judged snapshot, pruning, and the three expert tiers (difficulty marks, the authors'
self-validation against the judge, cross-validation with a revision, the senior panel) — and
the construction report holds every section computed from what happened."""

import io
import json

import pytest
from django.core.management import call_command

from annotation.models import Expert
from annotation.models.construction import TaskKind
from annotation.selectors.selfcheck import selfcheck_responses
from annotation.services.construction import (
    construction_task_claim_next,
    criterion_review_submit,
    difficulty_mark_submit,
    panel_send,
    panel_vote_submit,
)
from annotation.services.selfcheck import mock_scores_submit
from benchmark.llm.fake_server import FakeLLM, fake_verdict
from benchmark.models import (
    Dataset,
    DraftCase,
    DraftCriterion,
    DraftCriterionVersion,
    DraftStatus,
)
from benchmark.services.criteria import draft_criterion_revise
from benchmark.services.standards import standard_write
from tests.builders.accounts import ExpertFactory
from tests.builders.construction import BASE_SEEDS, rubric_top_up

pytestmark = pytest.mark.django_db
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5", "--max-attempts", "2"]


def command(name: str, *args: str) -> str:
    out = io.StringIO()
    call_command(name, *args, stdout=out)
    return out.getvalue()


def experts(prefix: str, count: int, *, senior: bool = False) -> list:
    tier = Expert.Tier.SENIOR if senior else Expert.Tier.EXPERT
    return [ExpertFactory(user__username=f"{prefix}-{n}", tier=tier).user for n in range(count)]


def claim_all(project, kind: str, users: list, submit) -> int:
    """Each user claims and answers every task of ``kind`` they are handed; how many."""
    done = 0
    for user in users:
        while task := construction_task_claim_next(user=user, project=project, kind=kind):
            submit(user, task)
            done += 1
    return done


def test_seeds_become_a_published_version_through_every_stage(tmp_path):
    (author,) = experts("author", 1)
    markers, reviewers, seniors = (
        experts("marker", 3),
        experts("reviewer", 2),
        experts("senior", 4, senior=True),
    )
    for ability, text in [
        ("warmth", "承认来访者的努力，不评判。"),
        ("curiosity", "对未说明之处开放式提问。"),
        ("emotional_understanding", "说出来访者没有明说的情绪。"),
    ]:
        standard_write(ability=ability, text=text, author=seniors[0])
    with FakeLLM(retry_after=0.05) as fake:
        llm = ["--base-url", fake.base_url, *QUICK]
        command("construct", "create-project", "pilot", "--dataset-name", "heartbench-pilot")
        command("construct", "import-seeds", str(BASE_SEEDS), "--project", "pilot",
                "--rewrite", "--model", "rewriter", *llm)  # fmt: skip
        command("construct", "references", "--project", "pilot", "--models",
                "ref-a,ref-b,ref-c", *llm)  # fmt: skip
        command("construct", "synthesize", "--project", "pilot", "--model", "drafter", *llm)
        command("construct", "snapshot", "--project", "pilot")
        for model in ("ref-a", "ref-b", "ref-c"):
            command("judge", "--model", model, "--dataset", "heartbench-pilot-draft",
                    "--judge-model", "fake-judge", *llm)  # fmt: skip
    drafts = list(DraftCase.objects.order_by("position"))
    assert len(drafts) == 3 and all(d.rewrite for d in drafts)
    assert all(c.raw_reply and c.model_name == "drafter" for c in DraftCriterion.objects.all())

    pruned = command("construct", "prune", "--project", "pilot",
                     "--dataset", "heartbench-pilot-draft")  # fmt: skip
    saturated = DraftCriterion.objects.filter(status="removed", removed_stage="saturated")
    assert saturated.exists() and f"removed {saturated.count()} saturated" in pruned
    assert all("ref-a" in c.removed_reason for c in saturated)
    project = drafts[0].project
    for draft in drafts:  # the author writes what pruning left a rubric short of
        rubric_top_up(draft, author=author)

    # The tiers, opened by the admin's command; one author owns every draft.
    command("construct_tasks", "--project", "pilot", "--assign-authors", "author-0",
            "--kind", "difficulty")  # fmt: skip
    command("construct_tasks", "--project", "pilot", "--kind", "review")
    command("construct_tasks", "--project", "pilot", "--kind", "panel")
    drafts = list(DraftCase.objects.order_by("position"))
    assert {d.author for d in drafts} == {author}

    # Difficulty: 2 of 3 call the first draft hard, everyone calls the others normal.
    def mark(user, task):
        hard = task.draft.position == drafts[0].position and user != markers[2]
        difficulty_mark_submit(user=user, task_id=task.pk, difficulty="hard" if hard else "normal",
                               reason="mixed_emotions" if hard else "")  # fmt: skip

    assert claim_all(project, TaskKind.DIFFICULTY, markers, mark) == 9
    decided = dict(DraftCase.objects.values_list("question_id", "difficulty"))
    assert decided == {
        drafts[0].question_id: "hard",
        **{d.question_id: "normal" for d in drafts[1:]},
    }

    # Self-validation: the author marks every active criterion met on the chosen answers.
    for draft in drafts:
        active = DraftCriterion.objects.filter(draft=draft, status="active")
        for response in selfcheck_responses(draft=draft):
            mock_scores_submit(draft=draft, response=response, author=author,
                               labels={c.pk: True for c in active})  # fmt: skip

    # Cross-validation: the second reviewer finds the first criterion of each draft ambiguous.
    def review(user, task):
        active = DraftCriterion.objects.filter(draft=task.draft, status="active")
        first = active.order_by("position").first()
        verdicts = {
            c.pk: ("ambiguous", "两种理解都可能") if user == reviewers[1] and c == first
            else ("clear", "")
            for c in active
        }  # fmt: skip
        criterion_review_submit(user=user, task_id=task.pk, verdicts=verdicts)

    assert claim_all(project, TaskKind.REVIEW, reviewers, review) == 6
    first = DraftCriterion.objects.filter(draft=drafts[0], status="active").order_by("position")[0]
    draft_criterion_revise(criterion=first, text=first.text + "（明确地）", points=first.points,
                           ability=first.ability, author=author, reason="ambiguous")  # fmt: skip

    # The senior panel accepts every draft unanimously.
    for draft in drafts:
        panel_send(user=author, draft=draft)
    vote = lambda user, task: panel_vote_submit(user=user, task_id=task.pk, vote="accept")  # noqa: E731
    assert claim_all(project, TaskKind.PANEL, seniors, vote) == 12
    assert set(DraftCase.objects.values_list("status", flat=True)) == {DraftStatus.ACCEPTED}

    out = tmp_path / "heartbench-pilot.jsonl"
    command("construct", "publish", "--project", "pilot", "--out", str(out))
    published = Dataset.objects.get(name="heartbench-pilot")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["difficulty"] for row in rows].count("hard") == 1
    assert any(item["content"].endswith("（明确地）") for row in rows for item in row["rubric"])
    command("import_dataset", str(out), "--name", "again", "--allow-copy")
    assert Dataset.objects.get(name="again").content_hash == published.content_hash

    report = json.loads(command("construct_report", "--project", "pilot"))
    assert [row["drafts"] for row in report["funnel"]] == [3, 3, 3, 3, 3, 3, 3]
    assert report["criteria"]["removed"] == saturated.count()
    assert report["hard"]["published"] == {"hard": 1, "of": 3, "share": pytest.approx(1 / 3)}
    agreement = report["rubric_agreement"]
    assert agreement["status"] == "computed" and agreement["reviewed"] > 0
    assert agreement["all_clear_share"] == pytest.approx(
        1 - 3 / agreement["reviewed"]
    )  # the three first criteria split one clear, one ambiguous
    judged = report["judge_vs_authors"]
    assert judged["status"] == "computed" and judged["drafts"] == 3
    # The author said "met" to every pair; the judge agreed where the fake judge hits, on each
    # criterion's text at the version the author labelled (the revised one's first version);
    # the criteria written after pruning were never judged.
    labelled = DraftCriterionVersion.objects.filter(
        number=1, criterion__status="active", criterion__model_name="drafter"
    )
    assert judged["n"] == labelled.count() * 2  # two answers per draft
    hits = sum(fake_verdict(text) for text in labelled.values_list("text", flat=True)) * 2
    assert judged["agreement"]["value"] == pytest.approx(hits / judged["n"])
