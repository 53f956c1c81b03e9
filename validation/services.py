"""Writes of the validation app: creating, opening and closing studies, and the gold standard."""

import secrets
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.utils import timezone
from django.utils.translation import ngettext

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from annotation.models import Expert, Submission
from annotation.services import AnnotationError
from benchmark.models import Dataset, JudgeRun, ModelUnderTest, Response, RubricItem
from benchmark.services.audit import audit_record
from validation import closing
from validation.adjudication import UnknownAbility, split_items, splits_parse
from validation.dashboard.services import study_set_due_date
from validation.gold import ADJUDICATED, gold_from_votes
from validation.models import DEFAULT_STRATA, GoldLabel, Study, StudyUnit
from validation.naming import study_name_problem
from validation.sampling import sample_stratified, stratum_label
from validation.selectors import study_units_with_ratings

STRATUM_FIELDS = ("difficulty", "primary_scene", "secondary_scene")


class StudyError(Exception):
    """A study request the rules refuse; the message says why."""


def study_create(
    *,
    name: str,
    dataset: Dataset,
    models: Sequence[ModelUnderTest],
    judge_runs: Sequence[JudgeRun] = (),
    fraction: float = 0.3,
    seed: int | None = None,
    stratify_by: Sequence[str] = DEFAULT_STRATA,
    raters_per_unit: int = 3,
    lease_minutes: int = 30,
    show_ability: bool = False,
    experts: Iterable[Expert] | None = None,
    adjudicate_splits: Iterable[str] | str = (),
    actor=None,
) -> Study:
    """Draw the stratified sample of cases and create a draft study over the models' responses.

    Units are sampled case × model response: the sampled cases are rated for every chosen
    model, so judge agreement can be compared between models on the same cases.
    """
    problem = study_name_problem(name=name)
    if problem is not None:
        raise StudyError(problem)
    if Study.objects.filter(name=name).exists():
        raise StudyError(f"a study named {name!r} exists already")
    if not models:
        raise StudyError("choose at least one model")
    if not 0 < fraction <= 1:
        raise StudyError(f"fraction must be in (0, 1], got {fraction}")
    if raters_per_unit != 3:
        raise StudyError("the golden standard is a majority of three: raters per unit must be 3")
    splits = _splits(adjudicate_splits)
    unknown = set(stratify_by) - set(STRATUM_FIELDS)
    if unknown:
        raise StudyError(f"cannot stratify by {sorted(unknown)}; use {', '.join(STRATUM_FIELDS)}")
    for run in judge_runs:
        if run.dataset_id != dataset.pk or run.model_id not in {m.pk for m in models}:
            raise StudyError(f"judge run {run.pk} is not on {dataset} for the chosen models")
    seed = secrets.randbelow(2**31) if seed is None else seed
    cases = list(dataset.cases.all())
    if not cases:
        raise StudyError(f"dataset {dataset} has no cases")
    by_key = {c.question_id: c for c in cases}
    sample = sample_stratified(
        items=[(c.question_id, stratum_label([getattr(c, f) for f in stratify_by])) for c in cases],
        fraction=fraction,
        seed=seed,
    )
    responses = list(
        Response.objects.filter(case__in=[by_key[k] for k in sample.keys], model__in=list(models))
        .select_related("case", "model")
        .order_by("case__position", "model__name")
    )
    if not responses:
        raise StudyError("the chosen models have no responses on the sampled cases")
    if experts is None:
        experts = Expert.objects.filter(is_active=True)
    with transaction.atomic():
        pool = annotation_services.pool_create(
            name=name,
            responses=responses,
            experts=experts,
            raters_per_unit=raters_per_unit,
            lease_seconds=lease_minutes * 60,
            show_ability=show_ability,
        )
        study = Study.objects.create(
            name=name,
            pool=pool,
            dataset=dataset,
            fraction=fraction,
            seed=seed,
            stratify_by=list(stratify_by),
            adjudicate_splits=splits,
            created_by=actor,
            sampling={s: {"sampled": k, "cases": n} for s, (k, n) in sample.strata.items()},
        )
        study.models_under_test.set(models)
        study.judge_runs.set(judge_runs)
        unit_of = {u.response_id: u for u in pool.units.all()}
        StudyUnit.objects.bulk_create(
            StudyUnit(
                study=study,
                unit=unit_of[r.pk],
                case=r.case,
                model=r.model,
                stratum=stratum_label([getattr(r.case, f) for f in stratify_by]),
            )
            for r in responses
        )
        audit_record(
            actor=actor,
            action="study.create",
            obj=study,
            data={
                "seed": seed,
                "fraction": fraction,
                "cases": len(sample.keys),
                "units": len(responses),
                "missing_responses": len(sample.keys) * len(models) - len(responses),
                "adjudicate_splits": splits,
            },
        )
    return study


def _splits(codes: Iterable[str] | str) -> list[str]:
    try:
        return splits_parse(codes)
    except UnknownAbility as exc:
        raise StudyError(str(exc)) from exc


def study_set_adjudicate_splits(*, study: Study, codes: Iterable[str] | str, actor=None) -> Study:
    """Choose the abilities whose 2/1 splits a senior decides; only while the study is a draft,
    so every unit of a study is judged by the same rule."""
    splits = _splits(codes)
    with transaction.atomic():
        study = Study.objects.select_for_update().select_related("pool").get(pk=study.pk)
        if study.pool.status != "draft":
            raise StudyError("adjudication of splits can only be chosen while the study is a draft")
        previous = study.adjudicate_splits
        if previous == splits:
            return study
        study.adjudicate_splits = splits
        study.save(update_fields=["adjudicate_splits"])
        audit_record(
            actor=actor,
            action="study.adjudicate_splits",
            obj=study,
            data={"from": previous, "to": splits},
        )
    return study


def _rating_votes(unit_id: int) -> tuple[dict[int, list[bool]], int]:
    """Each criterion's rating votes on a unit, and how many rating submissions it has."""
    votes: dict[int, list[bool]] = defaultdict(list)
    submissions = Submission.objects.filter(unit_id=unit_id, kind="rating").prefetch_related(
        "labels"
    )
    count = 0
    for submission in submissions:
        count += 1
        for label in submission.labels.all():
            votes[label.rubric_item_id].append(label.hit)
    return votes, count


def study_route_splits(*, unit_id: int) -> list[int]:
    """Send a fully rated unit to the senior queue when a criterion the study chose split 2/1.

    Runs inside the transaction of the unit's last rating (annotation calls it through
    ``HEARTBENCH_UNIT_RATED_HOOKS``), so gold can never be written from the bare majority of
    a split that a senior must decide. Returns the split rubric item ids (empty: none).
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
            action="study_unit.await_adjudication",
            obj=study_unit,
            data={"unit": unit_id, "items": split, "chosen": study.adjudicate_splits},
        )
    return split


def study_open(*, study: Study, actor=None) -> Study:
    """Let experts claim units."""
    with transaction.atomic():
        annotation_services.pool_set_status(pool=study.pool, status="open", actor=actor)
        study.opened_at = timezone.now()
        study.save(update_fields=["opened_at"])
        audit_record(actor=actor, action="study.open", obj=study)
    study.pool.refresh_from_db()
    return study


def study_close(
    *, study: Study, actor=None, partial: str = closing.SENIOR, unrated: str = closing.SENIOR
) -> dict[str, int]:
    """Stop rating and decide what becomes of the units short of three ratings.

    ``partial`` (units with some ratings) and ``unrated`` (units nobody rated) are each
    ``senior`` (a senior expert decides the unit: the only behaviour before the choice) or
    ``drop`` (the unit leaves the sample, with its reason kept; see ``validation.closing``).
    Returns the counts: ``complete``, ``partly_rated`` and ``never_rated`` units at the
    close, ``gold`` written now, ``incomplete`` (sent to a senior), ``dropped``, and
    ``awaiting`` (split units waiting for a senior).
    """
    for flag, choice in (("--partial", partial), ("--unrated", unrated)):
        if choice not in closing.CHOICES:
            raise StudyError(f"{flag} must be one of {', '.join(closing.CHOICES)}, got {choice!r}")
    with transaction.atomic():
        annotation_services.pool_set_status(pool=study.pool, status="closed", actor=actor)
        counts = study_compute_gold(study=study)
        raters = study.pool.raters_per_unit
        short = list(study_units_with_ratings(study=study).filter(state=StudyUnit.State.PENDING))
        # A pending unit has fewer ratings than raters once the gold is computed; should one
        # have them all, it goes to a senior as every short unit did before the choice.
        group = {u.pk: closing.completion_of(ratings=u.ratings, raters=raters) for u in short}
        choice = {closing.PARTLY_RATED: partial, closing.NEVER_RATED: unrated}
        drop = [u for u in short if choice.get(group[u.pk]) == closing.DROP]
        senior = [u for u in short if choice.get(group[u.pk]) != closing.DROP]
        StudyUnit.objects.filter(pk__in=[u.pk for u in senior]).update(
            state=StudyUnit.State.INCOMPLETE
        )
        annotation_services.units_mark_for_adjudication(
            pool=study.pool, unit_ids=[u.unit_id for u in senior]
        )
        for reason in (closing.PARTLY_RATED, closing.NEVER_RATED):
            StudyUnit.objects.filter(pk__in=[u.pk for u in drop if group[u.pk] == reason]).update(
                state=StudyUnit.State.DROPPED, drop_reason=reason
            )
        study.closed_at = timezone.now()
        study.save(update_fields=["closed_at"])
        awaiting = study.units.filter(state=StudyUnit.State.AWAITING).count()
        partly = sum(1 for g in group.values() if g == closing.PARTLY_RATED)
        never = sum(1 for g in group.values() if g == closing.NEVER_RATED)
        result = {
            "complete": study.units.count() - partly - never,
            "partly_rated": partly,
            "never_rated": never,
            **counts,
            "incomplete": len(senior),
            "dropped": len(drop),
            "awaiting": awaiting,
        }
        audit_record(
            actor=actor,
            action="study.close",
            obj=study,
            data={
                **result,
                "partial": partial,
                "unrated": unrated,
                "dropped_units": [u.unit_id for u in drop],
            },
        )
    study.pool.refresh_from_db()
    return result


def study_extend(*, study: Study, due_date: date, actor=None) -> Study:
    """Keep an open study open and move its due date: the alternative to closing it short."""
    if study.pool.status != "open":
        raise StudyError(f"study {study.name} is {study.pool.status}, not open")
    if due_date <= timezone.localdate():
        raise StudyError(f"the new due date must be after today, got {due_date.isoformat()}")
    return study_set_due_date(study=study, due_date=due_date, actor=actor)


@dataclass(frozen=True)
class Enrolment:
    enrolled: list[str]  # usernames added now
    already: list[str]  # usernames that were in the study before


def study_enrol(
    *, study: Study, usernames: Sequence[str] = (), all_active: bool = False, actor=None
) -> Enrolment:
    """Let experts take the study's units: the named ones, or every active expert.

    For experts who joined after the study was created (``study_create`` enrols the active
    experts of that moment). Already enrolled is reported, not refused. Unknown names refuse
    the whole request: nobody is enrolled.
    """
    if bool(usernames) == all_active:
        raise StudyError("either name the experts to enrol or enrol all active ones")
    if all_active:
        experts = list(Expert.objects.filter(is_active=True).select_related("user"))
    else:
        wanted = list(dict.fromkeys(usernames))
        found = {
            e.user.username: e
            for e in Expert.objects.filter(user__username__in=wanted).select_related("user")
        }
        unknown = [name for name in wanted if name not in found]
        if unknown:
            raise StudyError(f"no expert named: {', '.join(unknown)}; nobody was enrolled")
        experts = [found[name] for name in wanted]
    with transaction.atomic():
        try:
            added = annotation_services.pool_enrol_experts(
                pool=study.pool, experts=experts, actor=actor
            )
        except AnnotationError as exc:
            raise StudyError(str(exc)) from exc
        enrolled = sorted(e.user.username for e in added)
        already = sorted({e.user.username for e in experts} - set(enrolled))
        if enrolled:
            audit_record(
                actor=actor,
                action="study.enrol",
                obj=study,
                data={"enrolled": enrolled, "already": already, "all_active": all_active},
            )
    return Enrolment(enrolled=enrolled, already=already)


def study_delete(*, study: Study, actor=None) -> int:
    """Delete a study no expert has submitted work in, and its pool with it.

    The pool holds the study's units and is what experts and seniors see; left behind, it
    would keep listing a study that no longer exists. A study with submitted work is refused:
    ratings, the pay ledger and the audit trail refer to it, so close it instead. Returns how
    many units went.
    """
    with transaction.atomic():
        study = Study.objects.select_for_update().select_related("pool").get(pk=study.pk)
        submitted = annotation_selectors.pool_submissions_count(pool=study.pool)
        if submitted:
            raise StudyError(study_delete_refusal(name=study.name, submissions=submitted))
        pool = study.pool
        audit_record(
            actor=actor,
            action="study.delete",
            obj=study,
            data={"name": study.name, "status": pool.status, "units": study.units.count()},
        )
        study.delete()
        try:
            return annotation_services.pool_delete(pool=pool, actor=actor)
        except AnnotationError as exc:
            raise StudyError(str(exc)) from exc


def study_delete_refusal(*, name: str, submissions: int) -> str:
    """Why a study with expert work cannot be deleted (the admin shows it before the delete)."""
    return ngettext(
        "%(name)r holds %(count)d submission by experts: submitted work is never deleted; "
        "close the study instead.",
        "%(name)r holds %(count)d submissions by experts: submitted work is never deleted; "
        "close the study instead.",
        submissions,
    ) % {"name": name, "count": submissions}


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
                    action="adjudication.decide",
                    obj=study_unit,
                    data={
                        "submission": adjudication[0].pk,
                        "decided": len(decided),
                        "by_majority": len(gold) - len(decided),
                    },
                )
    return done
