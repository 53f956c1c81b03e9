"""Writes of the annotation app: experts, pools, leases, drafts, reassignment.

Handing out units (the next-unit claim) lives in ``claims``, recording a submission in
``submissions``.
"""

import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation import selectors
from annotation.active_time import active_seconds_parse
from annotation.audit_actions import AnnotationAction
from annotation.labels import labels_parse
from annotation.models import Assignment, Expert, Pool, Unit
from annotation.services.errors import AnnotationError
from annotation.services.leases import lease_extend, leases_lapse
from annotation.services.locks import assignment_lock, pool_lock
from benchmark.models import PairwisePair, Response
from benchmark.services.audit import audit_record


def expert_create(
    *,
    username: str,
    password: str | None,
    tier: str = Expert.Tier.EXPERT,
    specialties: Iterable[str] = (),
    languages: Iterable[str] = ("zh",),
    display_name: str = "",
    daily_capacity: int = 200,
    is_demo: bool = False,
    actor=None,
) -> Expert:
    """Create a login and its expert profile (or give an existing login a profile);
    ``is_demo`` marks a public demo login (``Expert.is_demo``).

    The user name follows the User model's own rules (its username field's validators and
    length: no spaces, no markup) and the password the configured AUTH_PASSWORD_VALIDATORS;
    both are checked before anything is written. ``password=None`` creates the login with an
    unusable password, for an invitation link the expert sets it from
    (``annotation.services.experts``).
    """
    if tier not in Expert.Tier.values:
        raise AnnotationError(f"tier must be one of {', '.join(Expert.Tier.values)}")
    if daily_capacity < 1:
        raise AnnotationError(f"daily capacity must be at least 1 unit, got {daily_capacity}")
    if password is not None and not password:
        raise AnnotationError("a password is required")
    user_model = get_user_model()
    username = user_model.normalize_username(username)
    field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    try:
        field.clean(username, None)
    except ValidationError as exc:
        raise AnnotationError(f"user name {username!r}: {_messages(exc)}") from None
    existing = user_model.objects.filter(**{user_model.USERNAME_FIELD: username}).first()
    if existing is not None and Expert.objects.filter(user=existing).exists():
        raise AnnotationError(f"{username} is already an expert")
    if password is not None:
        try:
            validate_password(password, user=existing or user_model(**{field.name: username}))
        except ValidationError as exc:
            raise AnnotationError(f"password refused: {_messages(exc)}") from None
    with transaction.atomic():
        user, _ = user_model.objects.get_or_create(**{user_model.USERNAME_FIELD: username})
        if Expert.objects.filter(user=user).exists():
            raise AnnotationError(f"{username} is already an expert")
        if password is None:
            user.set_unusable_password()
        else:
            user.set_password(password)
        user.save()
        expert = Expert.objects.create(
            user=user,
            tier=tier,
            specialties=list(specialties),
            languages=list(languages),
            display_name=display_name or username,
            daily_capacity=daily_capacity,
            is_demo=is_demo,
        )
        audit_record(
            actor=actor,
            action=AnnotationAction.EXPERT_CREATE,
            obj=expert,
            data={"tier": tier, "invited": password is None},
        )
    return expert


def _messages(error: ValidationError) -> str:
    """A validation error's messages on one line (a validator may give several)."""
    return " ".join(" ".join(str(m).split()) for m in error.messages)


def pool_create(
    *,
    name: str,
    responses: Iterable[Response] = (),
    experts: Iterable[Expert],
    raters_per_unit: int,
    lease_seconds: int,
    show_ability: bool = False,
    pairs: Iterable[PairwisePair] | None = None,
) -> Pool:
    """A draft pool with one unit per response, or with ``pairs`` a pairwise pool with one
    unit per pair (the expert chooses between its two responses); callers open it with
    ``pool_set_status``."""
    if lease_seconds < 60:
        # A shorter lease would expire while the expert reads the first criterion.
        raise AnnotationError(f"a lease lasts at least a minute, got {lease_seconds} seconds")
    with transaction.atomic():
        pool = Pool.objects.create(
            name=name,
            raters_per_unit=raters_per_unit,
            lease_seconds=lease_seconds,
            show_ability=show_ability,
            question_type=Pool.QuestionType.RUBRIC if pairs is None else Pool.QuestionType.PAIRWISE,
        )
        pool.experts.set(list(experts))
        if pairs is None:
            pool_units_create(pool=pool, units=[Unit(pool=pool, response=r) for r in responses])
        else:
            pool_units_create(
                pool=pool,
                units=[Unit(pool=pool, response_id=p.response_a_id, pair=p) for p in pairs],
            )
    return pool


def pool_units_create(*, pool: Pool, units: list[Unit]) -> list[Unit]:
    """The new pool's units, in order, with the pool's record of them: the first and last
    unit id and the count (a pool's units are made once, here)."""
    units = Unit.objects.bulk_create(units)
    if units:
        ids = [unit.pk for unit in units]
        pool.unit_id_first, pool.unit_id_last = min(ids), max(ids)
    pool.units_total = len(units)
    pool.save(update_fields=["unit_id_first", "unit_id_last", "units_total"])
    return units


def pool_set_status(*, pool: Pool, status: str, actor=None) -> Pool:
    """Move a pool along draft → open → closed (the only order allowed)."""
    order = [Pool.Status.DRAFT, Pool.Status.OPEN, Pool.Status.CLOSED]
    with transaction.atomic():
        pool = pool_lock(pool_id=pool.pk)
        if order.index(status) != order.index(pool.status) + 1:
            raise AnnotationError(f"cannot go from {pool.status} to {status}")
        previous, pool.status = pool.status, status
        pool.save(update_fields=["status"])
        if status == Pool.Status.CLOSED:
            # Open rating leases end with the pool; their holders see "lease lost".
            for assignment in pool.assignments.filter(
                status=Assignment.Status.LEASED, kind=Assignment.Kind.RATING
            ):
                assignment.status = Assignment.Status.RELEASED
                assignment.save(update_fields=["status"])
                audit_record(
                    actor=actor,
                    action=AnnotationAction.ASSIGNMENT_RELEASE,
                    obj=assignment,
                    data={"reason": "pool closed"},
                )
        audit_record(
            actor=actor,
            action=AnnotationAction(f"pool.{status}"),
            obj=pool,
            data={"from": previous},
        )
    return pool


def pool_delete(*, pool: Pool, actor=None) -> int:
    """Delete a pool no expert has submitted work in, with its units, leases and drafts.

    Submitted work, and the pay ledger and agreement rows written with it, are never deleted:
    a pool holding any is refused. Returns how many units went.
    """
    with transaction.atomic():
        pool = pool_lock(pool_id=pool.pk)
        submitted = selectors.pool_submissions_count(pool=pool)
        if submitted:
            raise AnnotationError(
                f"{pool.name!r} holds {submitted} submission(s) by experts; submitted work "
                "is never deleted"
            )
        if hasattr(pool, "calibration_set"):
            raise AnnotationError(f"{pool.name!r} is a calibration set")
        units = pool.units.count()
        audit_record(
            actor=actor,
            action=AnnotationAction.POOL_DELETE,
            obj=pool,
            data={"name": pool.name, "status": pool.status, "units": units},
        )
        pool.delete()
    return units


def pool_enrol_experts(*, pool: Pool, experts: Iterable[Expert], actor=None) -> list[Expert]:
    """Add active experts to the pool, so they may take its units from now on.

    Experts already in the pool are left as they are (enrolling is idempotent); returns the
    ones newly added, with one audit row naming them.
    """
    wanted = list(experts)
    inactive = [e for e in wanted if not e.is_active]
    if inactive:
        names = ", ".join(e.user.username for e in inactive)
        raise AnnotationError(f"not active: {names}; activate them in the admin first")
    with transaction.atomic():
        pool = pool_lock(pool_id=pool.pk)
        if pool.status == Pool.Status.CLOSED:
            raise AnnotationError(f"{pool.name!r} is closed")
        present = set(
            pool.experts.filter(pk__in=[e.pk for e in wanted]).values_list("pk", flat=True)
        )
        added = [e for e in dict.fromkeys(wanted) if e.pk not in present]
        if added:
            pool.experts.add(*added)
            audit_record(
                actor=actor,
                action=AnnotationAction.POOL_ENROL,
                obj=pool,
                data={
                    "experts": [e.pk for e in added],
                    "usernames": [e.user.username for e in added],
                },
            )
    return added


def units_mark_for_adjudication(*, pool: Pool, unit_ids: Iterable[int]) -> int:
    """Send whole units to the senior queue (validation's settling service calls this when a
    study closes short, setting the study units' state in the same transaction)."""
    with transaction.atomic():
        return Unit.objects.filter(pool=pool, pk__in=list(unit_ids)).update(needs_adjudication=True)


def leases_expire(
    *, now: datetime | None = None, pool: Pool | None = None, ids: list[int] | None = None
) -> int:
    """Return expired leases to the pool (of ``pool`` only, or only these assignment ``ids``),
    one audit row each. Safe to run concurrently: a lease whose row another transaction holds
    (its expert renewing it) is left alone."""
    rows = Assignment.objects.all()
    if pool is not None:
        rows = rows.filter(pool=pool)
    if ids is not None:
        rows = rows.filter(pk__in=ids)
    return leases_lapse(
        rows,
        now=now or timezone.now(),
        action=AnnotationAction.ASSIGNMENT_LEASE_EXPIRED,
        describe=lambda a: {"unit": a.unit_id, "expert": a.expert_id, "slot": a.slot},
    )


def assignment_renew(*, assignment: Assignment, now: datetime | None = None) -> Assignment:
    """Extend the lease while the expert still has the page open."""
    return lease_extend(assignment=assignment, now=now or timezone.now())


def assignment_autosave(
    *,
    assignment: Assignment,
    labels: object,
    active_seconds: int | None = None,
    now: datetime | None = None,
) -> Assignment:
    """Autosave partial labels and renew the lease (the expert is clearly working), in one
    write while the lease is out (``lease_extend``); returns the assignment.

    ``active_seconds`` is the active time on the unit so far (see ``annotation.active_time``);
    None keeps the draft's figure, so a client that does not measure never resets it.
    """
    now = now or timezone.now()
    tokens = selectors.criterion_tokens(assignment=assignment)
    parsed = labels_parse(labels, criteria=tokens, complete=False)
    active_seconds = active_seconds_parse(active_seconds)
    draft = {
        "draft_labels": {k: {"hit": v.hit, "note": v.note} for k, v in parsed.items()},
        "draft_saved_at": now,
    }
    if active_seconds is not None:
        draft["draft_active_seconds"] = active_seconds
    return lease_extend(assignment=assignment, now=now, draft=draft)


def assignment_reassign(
    *, assignment: Assignment, to_expert: Expert, actor, now: datetime | None = None
) -> Assignment:
    """An admin moves an unsubmitted unit to another expert, who gets the same slot."""
    now = now or timezone.now()
    with transaction.atomic():
        assignment = assignment_lock(assignment_id=assignment.pk)
        if assignment.status == Assignment.Status.SUBMITTED:
            raise AnnotationError(gettext("a submitted assignment cannot be reassigned"))
        if to_expert.pk == assignment.expert_id:
            raise AnnotationError(gettext("the unit is already with this expert"))
        assignment.status = Assignment.Status.RELEASED
        assignment.save(update_fields=["status"])
        try:
            with transaction.atomic():
                new = Assignment.objects.create(
                    pool=assignment.pool,
                    unit_id=assignment.unit_id,
                    expert=to_expert,
                    kind=assignment.kind,
                    slot=assignment.slot,
                    shuffle_seed=secrets.randbits(62),
                    lease_expires_at=now + timedelta(seconds=assignment.pool.lease_seconds),
                )
        except IntegrityError as exc:
            raise AnnotationError(
                f"{to_expert} already rates this unit or holds another open unit in this study"
            ) from exc
        audit_record(
            actor=actor,
            action=AnnotationAction.ASSIGNMENT_REASSIGN,
            obj=assignment,
            data={
                "to_assignment": new.pk,
                "from_expert": assignment.expert_id,
                "to_expert": to_expert.pk,
                "unit": assignment.unit_id,
            },
        )
    return new
