"""The golden standard: routing split units to a senior, and writing gold labels."""

from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from annotation.models import Submission
from benchmark.audit_actions import AuditAction
from benchmark.models import RubricItem
from benchmark.services.audit import audit_record
from validation.adjudication import split_items
from validation.gold import ADJUDICATED, gold_from_votes
from validation.models import GoldLabel, Study, StudyUnit


def _rating_votes(unit_id: int) -> tuple[dict[int, list[bool]], int]:
    """Each criterion's rating votes on a unit, and how many rating submissions it has."""
    votes: dict[int, list[bool]] = defaultdict(list)
    submissions = annotation_selectors.rating_submissions().filter(unit_id=unit_id)
    submissions = submissions.prefetch_related("labels")
    count = 0
    for submission in submissions:
        count += 1
        for label in submission.labels.all():
            votes[label.rubric_item_id].append(label.hit)
    return votes, count


def study_route_splits(*, unit_id: int) -> list[int]:
    """Send a fully rated unit to the senior queue when a criterion the study chose split 2/1.

    Runs inside the transaction of the unit's last rating (subscribed to
    ``annotation.events.unit_rated`` in validation/apps.py), so gold can never be written from
    the bare majority of a split that a senior must decide. Returns the split rubric item ids
    (empty: none).
    """
    with transaction.atomic():
        # Lock only the study unit (NO KEY: gold rows reference it), never the study or pool
        # rows every other completion in the study also reads.
        study_unit = (
            StudyUnit.objects.select_for_update(of=("self",), no_key=True)
            .select_related("study__pool", "unit")
            .filter(unit_id=unit_id)
            .first()
        )
        if study_unit is None or study_unit.state != StudyUnit.State.PENDING:
            return []
        study = study_unit.study
        votes, count = _rating_votes(unit_id)
        if not study.adjudicate_splits or count < study.pool.raters_per_unit:
            return []
        abilities = dict(RubricItem.objects.filter(pk__in=votes).values_list("pk", "ability"))
        split = split_items(
            votes=votes,
            abilities=abilities,
            chosen=study.adjudicate_splits,
            raters=study.pool.raters_per_unit,
        )
        if not split:
            return []
        annotation_services.unit_queue_adjudication(unit_id=unit_id, items=split)
        study_unit.state = StudyUnit.State.AWAITING
        study_unit.save(update_fields=["state"])
        audit_record(
            actor=None,
            action=AuditAction.STUDY_UNIT_AWAIT_ADJUDICATION,
            obj=study_unit,
            data={"unit": unit_id, "items": split, "chosen": study.adjudicate_splits},
        )
    return split


def study_compute_gold(*, study: Study, unit_ids: Iterable[int] | None = None) -> dict[str, int]:
    """Write the gold label of every criterion of each unit that is ready and has none yet.

    Ready means three rating submissions (majority, provenance 3/3 or 2/1) or a senior's
    adjudication: the senior's decisions are the gold of the criteria they decided
    (provenance "adjudicated"), the majority stays the gold of the others. A fully rated unit
    waiting for a senior (a 2/1 split on a criterion the study chose) gets no gold until the
    decision is in. Submissions are append-only, so gold, once written, never changes;
    running this again is a no-op.
    """
    raters = study.pool.raters_per_unit
    with transaction.atomic():
        waiting = (
            study.units.filter(
                state__in=[
                    StudyUnit.State.PENDING,
                    StudyUnit.State.INCOMPLETE,
                    StudyUnit.State.AWAITING,
                ]
            )
            .select_related("unit")
            .select_for_update(of=("self",))
        )
        if unit_ids is not None:
            waiting = waiting.filter(unit_id__in=list(unit_ids))
        waiting = list(waiting)
        submissions = defaultdict(list)
        for submission in Submission.objects.filter(
            unit_id__in=[u.unit_id for u in waiting]
        ).prefetch_related("labels"):
            submissions[submission.unit_id].append(submission)
        done = {"gold": 0, "adjudicated": 0}
        for study_unit in waiting:
            subs = submissions.get(study_unit.unit_id, [])
            adjudication = [s for s in subs if s.kind == "adjudication"]
            ratings = [s for s in subs if s.kind == "rating"]
            votes = defaultdict(list)
            for s in ratings:
                for label in s.labels.all():
                    votes[label.rubric_item_id].append(label.hit)
            complete = len(ratings) >= raters
            if not adjudication and not complete:
                continue
            if not adjudication and (
                study_unit.unit.needs_adjudication or study_route_splits(unit_id=study_unit.unit_id)
            ):
                continue  # a senior decides the split criteria first
            gold = {pk: gold_from_votes(v) for pk, v in votes.items()} if complete else {}
            decided = {}
            if adjudication:
                decided = {
                    label.rubric_item_id: label.hit for label in adjudication[0].labels.all()
                }
                gold.update({pk: (hit, ADJUDICATED) for pk, hit in decided.items()})
            GoldLabel.objects.bulk_create(
                GoldLabel(study_unit=study_unit, rubric_item_id=pk, hit=hit, provenance=prov)
                for pk, (hit, prov) in gold.items()
            )
            state = StudyUnit.State.ADJUDICATED if adjudication else StudyUnit.State.GOLD
            study_unit.state = state
            study_unit.save(update_fields=["state"])
            done["adjudicated" if adjudication else "gold"] += 1
            if adjudication:
                audit_record(
                    actor=adjudication[0].expert.user,
                    action=AuditAction.ADJUDICATION_DECIDE,
                    obj=study_unit,
                    data={
                        "submission": adjudication[0].pk,
                        "decided": len(decided),
                        "by_majority": len(gold) - len(decided),
                    },
                )
    return done
