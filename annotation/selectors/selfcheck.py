"""Reads of self-validation: the drafts an author mock-scores, the responses chosen for it,
their labels, and the judge's verdicts beside them once a response is submitted.

The judge's verdict on a criterion is the one on the snapshot rubric item that froze that
criterion AT THE VERSION the author labelled (``SnapshotCriterion``), for the snapshot's
response of the same model to the same case; with several, the newest snapshot's newest run 0.
A verdict is only read for a response its author has submitted (blindness).
"""

from dataclasses import dataclass, field
from types import SimpleNamespace

from django.core.exceptions import PermissionDenied
from django.db.models import Count, F, Q, QuerySet
from django.http import Http404

from annotation.models import MockScore
from annotation.selectors import blind_dialogue
from annotation.selfcheck import (
    MOCK_RESPONSES_PER_DRAFT,
    MockScorePair,
    pair_state,
    response_letter,
    responses_choose,
)
from benchmark.models import (
    ConstructionProject,
    DraftCase,
    DraftCriterion,
    DraftResponse,
    DraftStatus,
    Verdict,
)
from benchmark.selectors.construction import drafts_in, snapshot_verdicts

# Drafts still being built: a removed or published draft has nothing left to validate.
OPEN_STATUSES = (DraftStatus.ACTIVE, DraftStatus.ACCEPTED)


def selfcheck_drafts(*, user) -> QuerySet[DraftCase]:
    """The drafts whose rubric ``user`` wrote (staff: every draft with an author), with
    ``reference_count`` and ``submitted_count`` (responses whose mock scores are in)."""
    drafts = drafts_in(statuses=OPEN_STATUSES).filter(author__isnull=False)
    if not user.is_staff:
        drafts = drafts.filter(author=user)
    submitted = Q(
        responses__mock_scores__submitted_at__isnull=False,
        responses__mock_scores__author=F("author"),
    )
    return (
        drafts.select_related("project", "author")
        .annotate(
            reference_count=Count("responses", distinct=True),
            submitted_count=Count("responses", filter=submitted, distinct=True),
        )
        .order_by("project__name", "position")
    )


def selfcheck_chosen_count(*, reference_count: int) -> int:
    return min(reference_count, MOCK_RESPONSES_PER_DRAFT)


def selfcheck_draft_get(*, user, draft_id: int, labelling: bool = False) -> DraftCase:
    """The draft if ``user`` wrote its rubric; staff may read it but not label it (403).
    Anyone else gets 404, as for a draft that does not exist."""
    draft = (
        drafts_in(statuses=OPEN_STATUSES)
        .filter(pk=draft_id)
        .select_related("project", "author")
        .first()
    )
    if draft is None or draft.author_id is None:
        raise Http404
    if draft.author_id == user.pk:
        return draft
    if user.is_staff:
        if labelling:
            raise PermissionDenied("only the rubric's author labels it")
        return draft
    raise Http404


def selfcheck_responses(*, draft: DraftCase) -> list[DraftResponse]:
    """The reference responses the author mock-scores (``annotation.selfcheck``'s choice)."""
    return responses_choose(
        draft.responses.select_related("model"), model_name=lambda response: response.model.name
    )


def selfcheck_response_get(*, draft: DraftCase, response_id: int) -> tuple[DraftResponse, str]:
    """One of the chosen responses, with its letter; 404 for any other."""
    for index, response in enumerate(selfcheck_responses(draft=draft)):
        if response.pk == response_id:
            return response, response_letter(index)
    raise Http404


def selfcheck_dialogue(*, draft: DraftCase, response: DraftResponse | None = None) -> list[dict]:
    """The dialogue as experts see it (``blind_dialogue``): the rewrite where the response
    answered it (without a response: the rewrite when there is one), else the seed's."""
    rewrite = draft.rewrite if (response is None or response.from_rewrite) else None
    return blind_dialogue(case=SimpleNamespace(dialogue=rewrite or draft.dialogue))


def selfcheck_criteria(*, draft: DraftCase) -> list[DraftCriterion]:
    """The draft's active criteria, in rubric order: what a response is labelled with."""
    return list(draft.criteria.filter(status=DraftCriterion.Status.ACTIVE).order_by("position"))


def selfcheck_submitted(*, response: DraftResponse, author) -> bool:
    return MockScore.objects.filter(
        response=response, author=author, submitted_at__isnull=False
    ).exists()


def selfcheck_saved_labels(*, response: DraftResponse, author) -> dict[int, bool]:
    """The author's labels of the response at each criterion's current version."""
    return {
        criterion: met
        for criterion, met in MockScore.objects.filter(
            response=response, author=author, criterion_version=F("criterion__version")
        ).values_list("criterion_id", "met")
    }


def _judge_verdicts(*, criteria, models) -> dict[tuple[int, int, int], Verdict]:
    """(criterion, version, model) → the judge's verdict on the snapshot item that froze that
    version, for the snapshot's response of that model to the same case."""
    verdicts = snapshot_verdicts(criteria=criteria, models=models)
    found = {}
    for verdict in verdicts:  # newest last, so it stays
        source = verdict.rubric_item.draft_source
        key = (source.criterion_id, source.criterion_version, verdict.response.model_id)
        found[key] = verdict
    return found


@dataclass
class ComparisonRow:
    criterion: DraftCriterion
    author_met: bool | None
    label_version: int | None
    verdict: Verdict | None
    state: str

    @property
    def stale(self) -> bool:
        """The label is of a version the criterion has left since."""
        return self.label_version is not None and self.label_version != self.criterion.version


@dataclass
class ResponseComparison:
    response: DraftResponse
    letter: str
    submitted: bool
    rows: list[ComparisonRow] = field(default_factory=list)

    @property
    def disagreements(self) -> int:
        return sum(row.state == "disagree" for row in self.rows)


def selfcheck_comparison(*, draft: DraftCase) -> list[ResponseComparison]:
    """Per chosen response (shown as A, B, …, never by model): whether the author submitted
    it and, only then, each active criterion's submitted label beside the judge's verdict at
    the labelled version."""
    responses = selfcheck_responses(draft=draft)
    criteria = selfcheck_criteria(draft=draft)
    scores = {
        (score.response_id, score.criterion_id): score
        for score in MockScore.objects.filter(
            response__in=responses, author_id=draft.author_id, submitted_at__isnull=False
        ).order_by("criterion_version")  # the newest version's label last, so it stays
    }
    submitted = {response for response, _ in scores}
    verdicts = _judge_verdicts(
        criteria=criteria, models=[response.model_id for response in responses]
    )
    comparisons = []
    for index, response in enumerate(responses):
        comparison = ResponseComparison(
            response=response, letter=response_letter(index), submitted=response.pk in submitted
        )
        for criterion in criteria if comparison.submitted else ():
            score = scores.get((response.pk, criterion.pk))
            verdict = score and verdicts.get(
                (criterion.pk, score.criterion_version, response.model_id)
            )
            comparison.rows.append(
                ComparisonRow(
                    criterion=criterion,
                    author_met=score.met if score else None,
                    label_version=score.criterion_version if score else None,
                    verdict=verdict or None,
                    state=pair_state(
                        author_met=score.met if score else None,
                        judge_state=verdict.state if verdict else None,
                    ),
                )
            )
        comparisons.append(comparison)
    return comparisons


def mock_score_pairs(*, project: ConstructionProject) -> list[MockScorePair]:
    """Every submitted mock score of the project's drafts that has a judge verdict (met or not
    met) on the same criterion version and model, as plain tuples for the construction
    report; a judge error or no verdict is no pair. Ordered by draft, criterion, response."""
    scores = list(
        MockScore.objects.filter(
            criterion__draft__project=project, submitted_at__isnull=False
        ).select_related("criterion__draft", "response")
    )
    verdicts = _judge_verdicts(
        criteria={score.criterion_id for score in scores},
        models={score.response.model_id for score in scores},
    )
    pairs = []
    for score in scores:
        verdict = verdicts.get(
            (score.criterion_id, score.criterion_version, score.response.model_id)
        )
        if verdict is not None and verdict.state != Verdict.State.ERROR:
            pairs.append(
                MockScorePair(
                    draft=score.criterion.draft.question_id,
                    criterion=score.criterion_id,
                    response=score.response_id,
                    author_met=score.met,
                    judge_met=verdict.state == Verdict.State.MET,
                )
            )
    return sorted(pairs)
