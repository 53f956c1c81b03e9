"""Peer-agreement rows: each rating submission's agreement with the other raters of its unit
(on each criterion of a response, or on the choice of a pair).

``assignment_submit`` records a unit's rows in the transaction of the submit that completes it;
``peer_agreements_backfill`` records them for units completed without that submit (the
migration that added the rows, bulk loaders). Rows are never edited: a unit completes once and
its labels never change.
"""

from collections import defaultdict
from collections.abc import Iterable

from django.apps import apps as installed_apps
from django.db import transaction
from django.db.models import Count, F, Q

from annotation.quality import Agreement, unit_pair_agreements, unit_peer_agreements
from annotation.selectors import RatingRow, pair_answers
from annotation.services.inserts import rows_insert

BACKFILL_BATCH = 500


def _record(
    *, labels: Iterable[tuple[int, int, int, int, bool]], unit_pools: dict[int, int], apps
) -> int:
    """Write the rows of these units from their rating labels: (unit id, submission id,
    expert id, criterion id, hit)."""
    row_model = apps.get_model("annotation", "PeerAgreement")
    per_unit: dict[int, list[tuple[int, int, bool]]] = defaultdict(list)
    experts: dict[int, int] = {}
    for unit_id, submission_id, expert_id, item_id, hit in labels:
        per_unit[unit_id].append((submission_id, item_id, hit))
        experts[submission_id] = expert_id
    return _insert(
        (
            (submission_id, unit_pools[unit_id], experts[submission_id], agreement)
            for unit_id, unit_labels in per_unit.items()
            for submission_id, agreement in unit_peer_agreements(unit_labels).items()
        ),
        row_model=row_model,
    )


def _insert(rows: Iterable[tuple[int, int, int, Agreement]], *, row_model) -> int:
    # A row already there (a unit recorded twice) is the same row: keep the first.
    return rows_insert(
        row_model,
        ("submission_id", "pool_id", "expert_id", "agreed", "compared"),
        ((s, pool, expert, a.agreed, a.compared) for s, pool, expert, a in rows),
        ignore_conflicts=True,
    )


def unit_record_peer_agreement(*, unit_id: int, pool_id: int, ratings: list[RatingRow]) -> int:
    """Record the rows of a unit that has just completed from its rating rows (read once by
    the submit, ``unit_rating_rows``); called inside the submit's transaction. Returns how
    many rows (one per rating submission with labels)."""
    labels = (
        (unit_id, submission_id, expert_id, item_id, hit)
        for submission_id, expert_id, item_id, hit in ratings
        if item_id is not None
    )
    return _record(labels=labels, unit_pools={unit_id: pool_id}, apps=installed_apps)


def unit_record_pair_agreement(*, unit_id: int, pool_id: int) -> int:
    """Record the rows of a pair that has just completed, from its rating choices; called
    inside the submit's transaction. Returns how many rows (one per rating submission)."""
    choices = [a for a in pair_answers(unit_id=unit_id) if a.is_rating]
    agreements = unit_pair_agreements((a.submission_id, a.winner) for a in choices)
    return _insert(
        ((a.submission_id, pool_id, a.expert_id, agreements[a.submission_id]) for a in choices),
        row_model=installed_apps.get_model("annotation", "PeerAgreement"),
    )


def peer_agreements_backfill(*, apps=installed_apps, batch: int = BACKFILL_BATCH) -> int:
    """Record the rows of every completed unit (all the pool's raters, at least two); rows
    already there are kept. ``apps`` is a migration's historical registry when called from
    one. Returns how many rows were written or found."""
    unit_model = apps.get_model("annotation", "Unit")
    complete = list(
        unit_model.objects.annotate(
            raters=Count("submissions", filter=Q(submissions__kind="rating"))
        )
        .filter(raters__gte=F("pool__raters_per_unit"))
        .filter(raters__gte=2)
        .order_by("id")
        .values_list("id", "pool_id")
    )
    label_model = apps.get_model("annotation", "Label")
    written = 0
    with transaction.atomic():
        for start in range(0, len(complete), batch):
            unit_pools = dict(complete[start : start + batch])
            labels = label_model.objects.filter(
                submission__unit_id__in=list(unit_pools), submission__kind="rating"
            ).values_list(
                "submission__unit_id",
                "submission_id",
                "submission__expert_id",
                "rubric_item_id",
                "hit",
            )
            written += _record(labels=labels, unit_pools=unit_pools, apps=apps)
    return written
