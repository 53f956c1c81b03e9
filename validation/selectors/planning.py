"""Planning a study before drawing it: the dataset's items per case and a pilot's ICC, and
the power of every gate condition at the planned size."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from benchmark.models import Dataset, ModelUnderTest
from benchmark.selectors.responses import responses_to
from benchmark.selectors.rubric import dataset_criteria
from benchmark.taxonomy import CATASTROPHIC
from validation.models import Study
from validation.report.data import HIT
from validation.report.selectors import study_report_data
from validation.statistics import MISSING
from validation.statistics.planning import (
    DEFAULT_AGREEMENT,
    DEFAULT_HALF_WIDTH,
    Plan,
    PlanningError,
    disagreement_icc,
    plan_cases,
)
from validation.statistics.power import GatePower, PowerAssumptions, PowerError, gate_power


def items_per_case(*, dataset: Dataset, models: Sequence[ModelUnderTest]) -> list[int]:
    """Criteria × the chosen models answering it, for every case of the dataset that any of
    them answered: the items a case adds to a study."""
    criteria = Counter(dataset_criteria(dataset=dataset).values_list("case_id", flat=True))
    answers = Counter(
        responses_to(dataset=dataset, models=models).values_list("case_id", flat=True)
    )
    return [criteria[case] * n for case, n in sorted(answers.items()) if criteria[case]]


def pilot_icc(*, pilot: Study) -> float:
    """The ICC of judge–gold disagreement within the pilot study's cases."""
    data = study_report_data(study=pilot)
    icc = disagreement_icc(
        gold=data.gold,
        judges=[judge.codes for judge in data.judges],
        clusters=data.case,
        missing=MISSING,
    )
    if icc is None:
        raise PlanningError(
            f"pilot study {pilot.name} gives no ICC: it needs judged items with gold in at "
            "least two cases, and some judge–gold disagreement"
        )
    return icc


def study_plan(
    *,
    dataset: Dataset,
    models: Sequence[ModelUnderTest],
    expected_agreement: float = DEFAULT_AGREEMENT,
    half_width: float = DEFAULT_HALF_WIDTH,
    pilot: Study | None = None,
) -> Plan:
    """The cases (and fraction of ``dataset``) a study of ``models`` needs for ``half_width``."""
    sizes = items_per_case(dataset=dataset, models=models)
    if not sizes:
        raise PlanningError(f"the chosen models have no responses on dataset {dataset}")
    return plan_cases(
        items_per_case=sizes,
        expected_agreement=expected_agreement,
        half_width=half_width,
        icc=None if pilot is None else pilot_icc(pilot=pilot),
    )


def case_layout(
    *, dataset: Dataset, models: Sequence[ModelUnderTest]
) -> tuple[list[frozenset[str]], float]:
    """For the power of the gate: every answered case's scored abilities, and the mean
    catastrophic criteria × answering models per case (the cases ``items_per_case`` counts)."""
    abilities: dict[int, set[str]] = {}
    catastrophic: Counter = Counter()
    for case, ability in dataset_criteria(dataset=dataset).values_list("case_id", "ability"):
        abilities.setdefault(case, set())
        if ability == CATASTROPHIC:
            catastrophic[case] += 1
        else:
            abilities[case].add(ability)
    answers = Counter(
        responses_to(dataset=dataset, models=models).values_list("case_id", flat=True)
    )
    cases = [case for case in sorted(answers) if case in abilities]
    if not cases:
        raise PlanningError(f"the chosen models have no responses on dataset {dataset}")
    per_case = sum(catastrophic[case] * answers[case] for case in cases) / len(cases)
    return [frozenset(abilities[case]) for case in cases], per_case


def pilot_catastrophic_prevalence(*, pilot: Study) -> float | None:
    """Gold catastrophic hits per catastrophic criterion with gold in the pilot study (None
    when it has none)."""
    data = study_report_data(study=pilot)
    mask = (data.ability == CATASTROPHIC) & (data.gold != MISSING)
    return float((data.gold[mask] == HIT).mean()) if mask.any() else None


def study_power(
    *,
    dataset: Dataset,
    models: Sequence[ModelUnderTest],
    plan: Plan,
    gate: dict,
    assumptions: PowerAssumptions,
    pilot: Study | None = None,
) -> GatePower:
    """The power of every gate condition at the planned cases (``validation.statistics.power``);
    without a prevalence given, a pilot study's own catastrophic rate replaces the default."""
    if pilot is not None and assumptions.prevalence_source == "default":
        rate = pilot_catastrophic_prevalence(pilot=pilot)
        if rate is not None:
            assumptions = replace(
                assumptions, catastrophic_prevalence=rate, prevalence_source="pilot"
            )
    abilities, catastrophic = case_layout(dataset=dataset, models=models)
    try:
        return gate_power(
            cases=min(plan.cases, plan.available),
            items_per_case=plan.items_per_case,
            design_effect=plan.design_effect,
            expected_agreement=plan.expected_agreement,
            case_abilities=abilities,
            catastrophic_per_case=catastrophic,
            models=[m.name for m in models],
            gate=gate,
            assumptions=assumptions,
        )
    except PowerError as exc:
        raise PlanningError(str(exc)) from exc
