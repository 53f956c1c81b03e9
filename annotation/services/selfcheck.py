"""Writing self-validation's mock scores: the draft's rubric author labels each criterion of a
chosen reference response as met or not met, saves as they go, and submits the response
whole. A submitted response's labels are final; only then are the judge's verdicts on it
shown (``annotation.selectors.selfcheck``). Every save and submit writes an audit row."""

from functools import reduce
from operator import or_

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.audit_actions import AnnotationAction
from annotation.models import MockScore
from annotation.selectors.selfcheck import (
    selfcheck_criteria,
    selfcheck_responses,
    selfcheck_submitted,
)
from annotation.selfcheck import labels_missing
from annotation.services.errors import AnnotationError
from benchmark.models import DraftCase, DraftResponse
from benchmark.services.audit import audit_record
from config.locks import row_lock


class SelfcheckError(AnnotationError):
    """The labels are refused; the message says why in words the author can act on."""


def _write(*, draft: DraftCase, response: DraftResponse, author, labels: dict[int, bool]):
    """Check the labels and upsert them at each criterion's current version; the criteria."""
    if author is None or draft.author_id != author.pk:
        raise SelfcheckError(_("Only the author of the draft's rubric labels it."))
    if response not in selfcheck_responses(draft=draft):
        raise SelfcheckError(_("This response is not one the draft's author labels."))
    row_lock(DraftResponse, response.pk)  # one writer per response
    if selfcheck_submitted(response=response, author=author):
        raise SelfcheckError(_("This response was submitted already; its labels are final."))
    criteria = {criterion.pk: criterion for criterion in selfcheck_criteria(draft=draft)}
    if not criteria:
        raise SelfcheckError(_("The draft has no criteria to label yet."))
    unknown = sorted(set(labels) - set(criteria))
    if unknown:
        raise SelfcheckError(
            _("No active criterion of this draft has the id %(ids)s.")
            % {"ids": ", ".join(map(str, unknown))}
        )
    for criterion_id, met in labels.items():
        MockScore.objects.update_or_create(
            criterion_id=criterion_id,
            criterion_version=criteria[criterion_id].version,
            response=response,
            author=author,
            defaults={"met": met},
        )
    return criteria


def mock_scores_save(
    *, draft: DraftCase, response: DraftResponse, author, labels: dict[int, bool]
) -> None:
    """Keep the author's labels so far (criterion id → met); nothing is shown yet."""
    with transaction.atomic():
        _write(draft=draft, response=response, author=author, labels=labels)
        audit_record(
            actor=author,
            action=AnnotationAction.MOCK_SCORE_SAVE,
            obj=response,
            data={"draft": str(draft), "labels": {str(k): v for k, v in labels.items()}},
        )


def mock_scores_submit(
    *, draft: DraftCase, response: DraftResponse, author, labels: dict[int, bool]
) -> int:
    """Save ``labels`` and submit the response: every active criterion must be labelled at
    its current version, or nothing is written. Returns the number of labels submitted."""
    with transaction.atomic():
        criteria = _write(draft=draft, response=response, author=author, labels=labels)
        scores = MockScore.objects.filter(response=response, author=author)
        current = {
            criterion_id: met
            for criterion_id, version, met in scores.values_list(
                "criterion_id", "criterion_version", "met"
            )
            if criterion_id in criteria and criteria[criterion_id].version == version
        }
        missing = labels_missing(criteria=list(criteria), labels=current)
        if missing:
            raise SelfcheckError(
                _("Label every criterion before submitting: %(positions)s still unlabelled.")
                % {"positions": ", ".join(str(criteria[pk].position + 1) for pk in missing)}
            )
        at_current = reduce(
            or_, (Q(criterion=pk, criterion_version=c.version) for pk, c in criteria.items())
        )
        count = scores.filter(at_current).update(submitted_at=timezone.now())
        audit_record(
            actor=author,
            action=AnnotationAction.MOCK_SCORE_SUBMIT,
            obj=response,
            data={"draft": str(draft), "labels": {str(k): v for k, v in current.items()}},
        )
    return count
