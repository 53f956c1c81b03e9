"""Planning a study before drawing it: the dataset's items per case and a pilot's ICC."""

from collections import Counter
from collections.abc import Sequence

from benchmark.models import Dataset, ModelUnderTest, Response, RubricItem
from validation.models import Study
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


def items_per_case(*, dataset: Dataset, models: Sequence[ModelUnderTest]) -> list[int]:
    """Criteria × the chosen models answering it, for every case of the dataset that any of
    them answered: the items a case adds to a study."""
    criteria = Counter(
        RubricItem.objects.filter(case__dataset=dataset).values_list("case_id", flat=True)
    )
    answers = Counter(
        Response.objects.filter(case__dataset=dataset, model__in=list(models)).values_list(
            "case_id", flat=True
        )
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
