"""The judge's gate as the leaderboard shows it: from the newest closed study on the dataset."""

from typing import Any

from benchmark.models import Dataset
from validation.gate import gate_decide
from validation.models import Study
from validation.report.compute import figure
from validation.report.data import CATEGORIES
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings, pairwise_agreement


def leaderboard_gate(
    *, dataset: Dataset, bootstrap: BootstrapSettings | None = None
) -> dict[str, Any] | None:
    """Agreement with the gold and pass/fail of each judge of the newest closed study that
    validated a judge on ``dataset``; None when no closed study did."""
    study = (
        Study.objects.filter(dataset=dataset, closed_at__isnull=False, judge_runs__isnull=False)
        .select_related("pool", "dataset")
        .order_by("-closed_at", "-id")
        .first()
    )
    if study is None:
        return None
    data = study_report_data(study=study)
    bootstrap = bootstrap or BootstrapSettings()
    judges = []
    for judge in data.judges:
        result = pairwise_agreement(
            reference=data.gold,
            predicted=judge.codes,
            categories=CATEGORIES,
            clusters=data.case,
            bootstrap=bootstrap,
        )
        agreement = figure(result.agreement)
        gate = gate_decide(agreement=agreement, threshold=study.gate_threshold)
        judges.append({"judge": judge.name, "agreement": agreement, "passed": gate.passed})
    return {
        "study": study.name,
        "closed_at": study.closed_at.isoformat(timespec="minutes"),
        "threshold": study.gate_threshold,
        "judges": judges,
    }
