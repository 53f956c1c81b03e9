"""Creating and opening studies (the stratified sample, the rule for 2/1 splits)."""

import secrets
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from annotation import services as annotation_services
from annotation.models import Expert
from annotation.selectors import experts_active, pool_units
from benchmark.models import Dataset, JudgeRun, ModelUnderTest, PairwiseSet
from benchmark.sampling import sample_stratified, stratum_label
from benchmark.selectors.responses import responses_of_cases
from benchmark.services.audit import audit_record
from validation.adjudication import UnknownAbility, splits_parse
from validation.audit_actions import ValidationAction
from validation.gate import GateConfig
from validation.models import DEFAULT_STRATA, GATE_FIELDS, Study, StudyUnit
from validation.naming import study_name_problem
from validation.services.announce import study_opened_announce
from validation.services.locks import study_lock

if TYPE_CHECKING:  # the planner needs numpy and scipy; creating a study by hand does not
    from validation.statistics.planning import Plan

STRATUM_FIELDS = ("difficulty", "primary_scene", "secondary_scene")


# What a pairwise study refuses, at either entry (names or objects). A pair split three ways has
# no majority, so a senior always decides it: there are no splits to choose.
_PAIRWISE_REFUSES = gettext_noop(
    "a pairwise study takes its dataset and models from its set and validates the judges' "
    "pairwise runs of the set: no dataset, models, rubric judge run, gate, plan, sequential "
    "look or splits to adjudicate"
)


class StudyError(Exception):
    """A study request the rules refuse; the message says why, and ``field`` (when one input
    is at fault) which input of ``study_create``."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


def study_create_named(
    *,
    dataset: str | None = None,
    models: Sequence[str] = (),
    judge_runs: Sequence[str] = (),
    gate: dict | None = None,
    plan: dict | None = None,
    pair_set: str | None = None,
    actor=None,
    **options,
) -> Study:
    """``study_create`` from names, as the admin API and the admin's page give them: the
    dataset's newest version, the models in the order given, each judge run by id or by judge
    name, the gate's settings (``GateConfig``'s fields) and the planner's wishes (``plan``:
    expected agreement, half-width, a pilot study's name), which then set the fraction.
    ``UnknownName`` or ``StudyError`` name the input at fault in ``field``."""
    from validation import selectors  # the selectors read studies; the services write them

    if pair_set is not None:
        if dataset is not None or models or judge_runs or gate is not None or plan is not None:
            raise StudyError(gettext(_PAIRWISE_REFUSES), field="pair_set")
        found_set = selectors.pairwise_set_named(name=pair_set)
        return study_create(**options, dataset=None, models=(), pair_set=found_set, actor=actor)
    found = selectors.dataset_newest(name=dataset)
    chosen = selectors.models_named(names=models)
    runs = selectors.judge_runs_named(values=judge_runs, dataset=found, models=chosen)
    if plan is not None:
        options["plan"] = _plan(dataset=found, models=chosen, **plan)
    if gate is not None:
        options["gate"] = GateConfig(**gate)
    return study_create(**options, dataset=found, models=chosen, judge_runs=runs, actor=actor)


def _plan(*, dataset, models, pilot: str | None = None, **wanted) -> "Plan":
    # numpy and scipy load with the planner, not with the URLconf (tests/test_startup.py).
    from validation import selectors
    from validation.selectors.planning import study_plan
    from validation.statistics.planning import PlanningError

    found = None if pilot is None else selectors.study_get(name=pilot)
    if pilot is not None and found is None:
        raise StudyError(gettext("no study named %(name)r") % {"name": pilot}, field="plan")
    try:
        return study_plan(dataset=dataset, models=models, pilot=found, **wanted)
    except PlanningError as exc:
        raise StudyError(str(exc), field="plan") from exc


def study_experts_allowed(
    *, dataset: Dataset, experts: Iterable[Expert], named: object
) -> list[Expert]:
    """The experts a study on ``dataset`` may enrol: demo logins (``Expert.is_demo``, public
    passwords) only on demo data. Left out of "every active expert"; named (``named`` is
    not None), refused, saying so."""
    experts = list(experts)
    if dataset.is_demo:
        return experts
    demo = sorted(e.user.username for e in experts if e.is_demo)
    if demo and named is not None:
        raise StudyError(
            gettext("demo accounts never rate real data: %(names)s; nobody was enrolled")
            % {"names": ", ".join(demo)},
            field="experts",
        )
    return [e for e in experts if not e.is_demo]


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
    plan: "Plan | None" = None,
    look_every: int | None = None,
    gate: GateConfig | None = None,
    pair_set: PairwiseSet | None = None,
    actor=None,
) -> Study:
    """Draw the stratified sample of cases and create a draft study over the models' responses.

    Units are sampled case × model response: the sampled cases are rated for every chosen
    model, so judge agreement can be compared between models on the same cases. With a
    ``pair_set`` the study is pairwise: its dataset and models are the set's, and its units
    are the set's pairs of the sampled cases (the judge's pairwise runs over the set are what
    it validates; a three-way split always goes to a senior). With a
    ``plan`` (``validation.selectors.planning.study_plan``) the fraction is the planned one
    and the plan is kept on the study; ``look_every`` makes the gate be looked at every that
    many completed cases (group-sequential monitoring).
    """
    if pair_set is not None:
        refused = (judge_runs, plan, look_every, gate, adjudicate_splits)
        if any(value not in (None, (), [], "") for value in refused):
            raise StudyError(gettext(_PAIRWISE_REFUSES), field="pair_set")
        dataset, models = pair_set.dataset, list(pair_set.models_under_test.order_by("name"))
    if plan is not None:
        if not plan.reachable:
            raise StudyError(
                gettext(
                    "the wanted half-width needs %(cases)d cases; dataset %(dataset)s has "
                    "%(available)d: accept a wider interval"
                )
                % {"cases": plan.cases, "dataset": dataset, "available": plan.available},
                field="fraction",
            )
        fraction = plan.fraction
    if look_every is not None and look_every < 1:
        raise StudyError(
            gettext("look every must be at least 1 case, got %(n)s") % {"n": look_every},
            field="look_every",
        )
    problem = study_name_problem(name=name)
    if problem is not None:
        raise StudyError(problem, field="name")
    if Study.objects.filter(name=name).exists():
        raise StudyError(
            gettext("a study named %(name)r exists already") % {"name": name}, field="name"
        )
    if not models:
        raise StudyError(gettext("choose at least one model"), field="models")
    if not 0 < fraction <= 1:
        raise StudyError(
            gettext("fraction must be in (0, 1], got %(n)s") % {"n": fraction}, field="fraction"
        )
    if raters_per_unit != 3:
        raise StudyError("the golden standard is a majority of three: raters per unit must be 3")
    splits = _splits(adjudicate_splits)
    gate = gate or GateConfig()
    if (problem := gate.problem()) is not None:
        raise StudyError(f"gate: {problem}", field="gate")
    unknown = set(stratify_by) - set(STRATUM_FIELDS)
    if unknown:
        raise StudyError(
            f"cannot stratify by {sorted(unknown)}; use {', '.join(STRATUM_FIELDS)}",
            field="stratify_by",
        )
    for run in judge_runs:
        if run.dataset_id != dataset.pk or run.model_id not in {m.pk for m in models}:
            raise StudyError(
                gettext("judge run %(run)s is not on %(dataset)s for the chosen models")
                % {"run": run.pk, "dataset": dataset},
                field="judge_runs",
            )
    seed = secrets.randbelow(2**31) if seed is None else seed
    cases = list(dataset.cases.all())
    if not cases:
        raise StudyError(
            gettext("dataset %(dataset)s has no cases") % {"dataset": dataset}, field="dataset"
        )
    by_key = {c.question_id: c for c in cases}
    sample = sample_stratified(
        items=[(c.question_id, stratum_label([getattr(c, f) for f in stratify_by])) for c in cases],
        fraction=fraction,
        seed=seed,
    )
    sampled = [by_key[k] for k in sample.keys]
    if pair_set is None:
        responses = list(responses_of_cases(cases=sampled, models=models))
        key = "response_id"
    else:
        from benchmark.selectors.pairwise import pairs_of_cases  # loads numpy: deferred

        responses = pairs_of_cases(pair_set=pair_set, cases=sampled)
        key = "pair_id"
    if not responses:
        raise StudyError(
            gettext("the chosen models have no responses on the sampled cases")
            if pair_set is None
            else gettext("the set has no pairs on the sampled cases"),
            field="models",
        )
    experts = study_experts_allowed(
        dataset=dataset, experts=experts_active() if experts is None else experts, named=experts
    )
    with transaction.atomic():
        pool = annotation_services.pool_create(
            name=name,
            **({"responses": responses} if pair_set is None else {"pairs": responses}),
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
            plan={} if plan is None else plan.as_dict(),
            look_every=look_every,
            pair_set=pair_set,
            created_by=actor,
            **{GATE_FIELDS[name]: value for name, value in gate.as_dict().items()},
            sampling={s: {"sampled": k, "cases": n} for s, (k, n) in sample.strata.items()},
        )
        study.models_under_test.set(models)
        study.judge_runs.set(judge_runs)
        unit_of = {getattr(u, key): u for u in pool_units(pool=pool)}
        StudyUnit.objects.bulk_create(
            StudyUnit(
                study=study,
                unit=unit_of[r.pk],
                case=r.case,
                model=r.model if pair_set is None else None,
                stratum=stratum_label([getattr(r.case, f) for f in stratify_by]),
            )
            for r in responses
        )
        audit_record(
            actor=actor,
            action=ValidationAction.STUDY_CREATE,
            obj=study,
            data={
                "seed": seed,
                "fraction": fraction,
                "cases": len(sample.keys),
                "units": len(responses),
                **(
                    {"missing_responses": len(sample.keys) * len(models) - len(responses)}
                    if pair_set is None
                    else {"pair_set": pair_set.name}
                ),
                "adjudicate_splits": splits,
                "plan": {} if plan is None else plan.as_dict(),
                "look_every": look_every,
                "gate": gate.as_dict(),
            },
        )
    return study


def _splits(codes: Iterable[str] | str) -> list[str]:
    try:
        return splits_parse(codes)
    except UnknownAbility as exc:
        raise StudyError(str(exc), field="adjudicate_splits") from exc


def study_set_adjudicate_splits(*, study: Study, codes: Iterable[str] | str, actor=None) -> Study:
    """Choose the abilities whose 2/1 splits a senior decides; only while the study is a draft,
    so every unit of a study is judged by the same rule."""
    splits = _splits(codes)
    with transaction.atomic():
        study = study_lock(study_id=study.pk)
        if study.pool.status != "draft":
            raise StudyError("adjudication of splits can only be chosen while the study is a draft")
        previous = study.adjudicate_splits
        if previous == splits:
            return study
        study.adjudicate_splits = splits
        study.save(update_fields=["adjudicate_splits"])
        audit_record(
            actor=actor,
            action=ValidationAction.STUDY_ADJUDICATE_SPLITS,
            obj=study,
            data={"from": previous, "to": splits},
        )
    return study


def study_set_gate(*, study: Study, gate: GateConfig, actor=None) -> Study:
    """Set the gate's conditions; only while the study is a draft, so that the gate is fixed
    before any label is seen (a gate moved after the figures is no gate)."""
    if (problem := gate.problem()) is not None:
        raise StudyError(f"gate: {problem}", field="gate")
    with transaction.atomic():
        study = study_lock(study_id=study.pk)
        if study.pool.status != "draft":
            raise StudyError("the gate can only be changed while the study is a draft")
        previous = study.gate_config
        if previous == gate.as_dict():
            return study
        for name, value in gate.as_dict().items():
            setattr(study, GATE_FIELDS[name], value)
        study.save(update_fields=list(GATE_FIELDS.values()))
        audit_record(
            actor=actor,
            action=ValidationAction.STUDY_GATE,
            obj=study,
            data={"from": previous, "to": gate.as_dict()},
        )
    return study


def study_open(*, study: Study, actor=None) -> Study:
    """Let experts claim units: a draft's only (a second click on "open" is told so)."""
    with transaction.atomic():
        locked = study_lock(study_id=study.pk)  # the caller's study is refreshed below
        if locked.pool.status != "draft":
            raise StudyError(
                gettext("study %(name)s is %(status)s: only a draft opens")
                % {"name": study.name, "status": locked.pool.get_status_display()}
            )
        annotation_services.pool_set_status(pool=study.pool, status="open", actor=actor)
        study.opened_at = timezone.now()
        study.save(update_fields=["opened_at"])
        audit_record(actor=actor, action=ValidationAction.STUDY_OPEN, obj=study)
        study_opened_announce(study=study)
    study.pool.refresh_from_db()
    return study
