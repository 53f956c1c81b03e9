"""Settling a unit: the one writer of gold labels and of a study unit's way to a senior.

``validation.outcome.unit_outcome`` decides what becomes of a unit; these services apply it.
A unit is settled in the transaction of its last rating (``annotation.events.unit_rated``,
subscribed in validation/apps.py), in that of a senior's decision (``unit_decided``), and by
``study_close``, whose sweep settles whatever is still unsettled. Every path goes through
``_settle``; none waits on the broker.
"""

from collections import defaultdict
from collections.abc import Sequence

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from annotation.models import Submission
from annotation.selectors import RatingRow
from benchmark.selectors.rubric import criteria_by_id
from benchmark.services.audit import audit_record
from config import compiled
from validation.audit_actions import ValidationAction
from validation.models import GoldLabel, PairwiseGold, Study, StudyUnit
from validation.outcome import (
    NeedsSenior,
    PairSettled,
    Policy,
    Settled,
    UnitOutcome,
    pair_outcome,
    unit_outcome,
)
from validation.services.announce import gold_ready_announce
from validation.services.locks import study_units_locked
from validation.services.stored import GOLD_PAUSE, study_figures_warm_later

# States whose unit may still change: everything but gold, adjudicated and dropped.
UNSETTLED = (StudyUnit.State.PENDING, StudyUnit.State.INCOMPLETE, StudyUnit.State.AWAITING)


def unit_settle(*, unit_id: int, ratings: list[RatingRow] | None = None) -> UnitOutcome | None:
    """Apply the unit's outcome: write its gold, or send it to the senior queue.

    A fully rated unit whose criterion the study chose split 2/1 goes to the senior queue for
    those criteria (so gold is never written from the bare majority of a split a senior must
    decide); a unit with a senior's decisions, or with all its ratings and no such split, gets
    its gold. Idempotent: a settled unit, or a unit of no study, is left alone (None).
    ``ratings`` are the unit's rating rows when the caller read them (its last rating did);
    read here otherwise.
    """
    # No savepoint of its own inside the last rating's transaction: a settle that fails rolls
    # the rating back with it (``annotation.events.unit_rated``).
    with transaction.atomic(savepoint=False):
        study_unit = compiled.first(("unsettled study unit",), _unsettled_locked, unit_id=unit_id)
        return None if study_unit is None else _settle(study_unit, ratings)


def _unsettled_locked(*, unit_id: int) -> QuerySet[StudyUnit]:
    # Read on every unit's last rating: compiled once (``config.compiled``).
    return (
        study_units_locked()
        .select_related("study__pool", "unit")
        .filter(unit_id=unit_id, state__in=UNSETTLED)
        .order_by("pk")[:1]
    )


def study_settle(*, study: Study) -> dict[str, int]:
    """Settle every unit of the study not settled yet (the sweep of ``study_close``).

    Returns how many got gold from their raters (``gold``) and from a senior
    (``adjudicated``).
    """
    done = {"gold": 0, "adjudicated": 0}
    with transaction.atomic():
        waiting = (
            study_units_locked(no_key=False)
            .filter(study=study, state__in=UNSETTLED)
            .select_related("study__pool", "unit")
        )
        for study_unit in list(waiting):
            outcome = _settle(study_unit)
            if isinstance(outcome, Settled | PairSettled):
                done["adjudicated" if outcome.adjudicated else "gold"] += 1
    return done


def study_units_to_senior(*, study: Study, study_units: Sequence[StudyUnit]) -> None:
    """Send whole units that will get no more ratings (the study closed) to a senior."""
    with transaction.atomic():
        StudyUnit.objects.filter(pk__in=[u.pk for u in study_units]).update(
            state=StudyUnit.State.INCOMPLETE
        )
        annotation_services.units_mark_for_adjudication(
            pool=study.pool, unit_ids=[u.unit_id for u in study_units]
        )


def _settle(study_unit: StudyUnit, ratings: list[RatingRow] | None = None) -> UnitOutcome:
    """Decide the locked, unsettled study unit's outcome and write it (from its rating rows,
    read here unless the caller has them)."""
    study, unit = study_unit.study, study_unit.unit
    if unit.pair_id is not None:
        return _settle_pair(study_unit)
    if ratings is None:
        ratings = annotation_selectors.unit_rating_rows(unit_id=unit.pk)
    votes, submitted = _rating_votes(ratings)
    # A senior decides only a unit queued for it (the flag stays set): no read otherwise.
    decision = None
    if unit.needs_adjudication:
        decision = compiled.first(("decision of a unit",), _decision_of, unit_id=unit.pk)
    decisions = None
    if decision is not None:
        decisions = {label.rubric_item_id: label.hit for label in decision.labels.all()}
    outcome = unit_outcome(
        votes=votes,
        ratings=submitted,
        decisions=decisions,
        policy=Policy(
            raters=study.pool.raters_per_unit,
            adjudicate=study.adjudicate_splits,
            abilities=_abilities(votes) if study.adjudicate_splits else {},
        ),
        queued=list(unit.adjudicate_items) if unit.needs_adjudication else None,
    )
    if isinstance(outcome, Settled):
        now = timezone.now()
        annotation_services.rows_insert(
            GoldLabel,
            ("study_unit_id", "rubric_item_id", "hit", "provenance", "created_at"),
            ((study_unit.pk, pk, g.hit, g.provenance, now) for pk, g in outcome.gold.items()),
        )
        _gold_written(
            study_unit,
            outcome,
            decided={
                "decided": outcome.decided,
                "by_majority": len(outcome.gold) - outcome.decided,
            },
            decision=decision,
        )
    elif isinstance(outcome, NeedsSenior):
        _to_senior(study_unit, outcome)
    return outcome


def _settle_pair(study_unit: StudyUnit) -> UnitOutcome:
    """A pair's outcome (``validation.outcome.pair_outcome``) written: its gold, or the
    senior queue for a three-way split."""
    unit = study_unit.unit
    answers = annotation_selectors.pair_answers(unit_id=unit.pk)
    decided = [a.winner for a in answers if not a.is_rating]
    outcome = pair_outcome(
        choices=[a.winner for a in answers if a.is_rating],
        decision=decided[-1] if decided else None,
        raters=study_unit.study.pool.raters_per_unit,
        queued=unit.needs_adjudication,
    )
    if isinstance(outcome, PairSettled):
        PairwiseGold.objects.create(
            study_unit=study_unit, winner=outcome.winner, provenance=outcome.provenance
        )
        decision = None
        if outcome.adjudicated:
            decision = compiled.first(("decision of a unit",), _decision_of, unit_id=unit.pk)
        _gold_written(study_unit, outcome, decided={"winner": outcome.winner}, decision=decision)
    elif isinstance(outcome, NeedsSenior):
        _to_senior(study_unit, outcome)
    return outcome


def _gold_written(study_unit: StudyUnit, outcome, *, decided: dict, decision) -> None:
    """The unit's state after its gold was written, the announcement and the audit."""
    study = study_unit.study
    study_unit.state = StudyUnit.State.ADJUDICATED if outcome.adjudicated else StudyUnit.State.GOLD
    study_unit.save(update_fields=["state"])
    gold_ready_announce(study_unit=study_unit)
    if study.closed_at is not None:  # a senior's decision after the close: a new report
        study_figures_warm_later(study=study, countdown=GOLD_PAUSE)
    if outcome.adjudicated:
        audit_record(
            actor=decision.expert.user,
            action=ValidationAction.ADJUDICATION_DECIDE,
            obj=study_unit,
            data={"submission": decision.pk, **decided},
        )


def _to_senior(study_unit: StudyUnit, outcome: NeedsSenior) -> None:
    """Queue a pending unit for a senior (a unit already waiting is left as it is)."""
    if study_unit.state != StudyUnit.State.PENDING:
        return
    study, unit = study_unit.study, study_unit.unit
    items = list(outcome.items)
    annotation_services.unit_queue_adjudication(unit_id=unit.pk, items=items)
    study_unit.state = StudyUnit.State.AWAITING
    study_unit.save(update_fields=["state"])
    audit_record(
        actor=None,
        action=ValidationAction.STUDY_UNIT_AWAIT_ADJUDICATION,
        obj=study_unit,
        data={"unit": unit.pk, "items": items, "chosen": study.adjudicate_splits},
    )


def _decision_of(*, unit_id: int) -> QuerySet[Submission]:
    return (
        annotation_selectors.decision_submissions()
        .filter(unit_id=unit_id)
        .select_related("expert__user")
        .order_by("pk")[:1]
    )


def _rating_votes(rows: list[RatingRow]) -> tuple[dict[int, list[bool]], int]:
    """Each criterion's rating votes on a unit, and how many rating submissions it has."""
    votes: dict[int, list[bool]] = defaultdict(list)
    for _, _, item, hit in rows:
        if item is not None:
            votes[item].append(hit)
    return votes, len({submission_id for submission_id, *_ in rows})


def _abilities(votes: dict[int, list[bool]]) -> dict[int, str]:
    return dict(criteria_by_id(ids=votes).values_list("pk", "ability"))
