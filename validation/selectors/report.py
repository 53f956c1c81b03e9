"""A study's report computed, and the fingerprint it is kept under while nothing it is
computed from changes (``validation.services.stored``: in the cache, and a closed study's as
data).

The report (``validation.report``: the study's labels, gold and verdicts gathered, then the
case bootstrap of every figure) costs seconds on a large study; the admin's web page and the
API ask for the same report again and again. The fingerprint covers every row the report
reads — so a kept report is never stale and nothing needs deleting — and the code that
computes it (a deploy that changes the report does not serve old reports).
"""

import hashlib
from typing import Any

from django.db.models import Count, Max, Sum

from annotation.selectors.pool_state import pool_state_get
from benchmark.selectors.rubric import dataset_criterion_versions
from benchmark.selectors.run_lists import judge_repeats, judge_runs_for
from benchmark.selectors.verdicts import run_verdicts
from config.code_digest import code_digest
from validation.models import GoldLabel, PairwiseGold, Study

# The packages whose code the report's figures come from (gathering, statistics, scoring).
CODE = ("validation", "benchmark", "annotation")


def study_report_fingerprint(*, study: Study) -> str:
    """Changes whenever the report of ``study`` could. Every row read is either append-only
    (labels are replaced, never edited, on a revision; gold, verdicts and rubric versions are
    only added), so counts with the newest ids catch it, or summed per state (units)."""
    units = sorted(
        study.units.values_list("state", "drop_reason")
        .annotate(n=Count("id"), ids=Sum("id"))
        .order_by()
    )
    # Ratings, labels, peer agreement, active time and calibration sittings of the pool.
    expert_records = pool_state_get(pool=study.pool)
    gold = GoldLabel.objects.filter(study_unit__study=study).aggregate(
        n=Count("id"), last=Max("id")
    )
    pairwise = None
    if study.is_pairwise:
        from benchmark.selectors.pairwise import pairwise_runs_newest  # loads numpy: deferred

        # A pairwise study's report reads its pairs' gold, every pairwise run over its set and
        # the dataset's rubric runs (the rubric case scores it is checked against).
        gold = PairwiseGold.objects.filter(study_unit__study=study).aggregate(
            n=Count("id"), last=Max("id")
        )
        pairwise = sorted(
            (run.pk, run.status, run.verdicts_stored, str(run.verdict_last))
            for run in pairwise_runs_newest(pair_set=study.pair_set).values()
        )
        models = study.pair_set.models_under_test.all()
        runs = sorted(
            judge_runs_for(dataset=study.dataset, models=models).values_list("pk", "status")
        )
    else:
        runs = sorted(study.judge_runs.values_list("pk", "status", "judge__name"))
    # The stability section reads the repeats of the study's runs and their verdicts.
    repeats = sorted(
        judge_repeats(runs=[r[0] for r in runs]).values_list(
            "pk", "repeat_of_id", "repeat_index", "status"
        )
    )
    verdicts = run_verdicts(runs=[r[0] for r in runs + repeats]).aggregate(
        n=Count("id"), last=Max("id")
    )
    models = sorted(study.models_under_test.values_list("pk", "name"))
    rubric = dataset_criterion_versions(dataset_id=study.dataset_id).aggregate(
        n=Count("id"), last=Max("id")
    )
    parts = (
        code_digest(packages=CODE),
        # Every field of the study (a field added later, such as a gate setting, counts too).
        [getattr(study, f.attname) for f in Study._meta.concrete_fields],
        study.pool.status,
        study.dataset.name,
        study.dataset.version,
        study.dataset.is_demo,
        units,
        expert_records,
        gold,
        runs,
        repeats,
        verdicts,
        models,
        rubric,
        pairwise,
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def study_report_compute(*, study: Study, bootstrap=None) -> dict[str, Any]:
    """The report of ``study`` (a pairwise study's own, ``validation.report.pairwise``),
    computed now, with the default bootstrap unless given (``BootstrapSettings``);
    ``validation.services.stored.study_report_keep`` keeps it."""
    # Deferred: these load numpy and scipy, which only a report being computed needs.
    from validation.statistics import BootstrapSettings

    bootstrap = bootstrap or BootstrapSettings()
    if study.is_pairwise:
        from validation.report.pairwise import pairwise_report_compute
        from validation.report.pairwise_selectors import pairwise_study_inputs

        return pairwise_report_compute(
            inputs=pairwise_study_inputs(study=study), bootstrap=bootstrap
        )
    from validation.report.compute import report_compute
    from validation.report.selectors import study_report_data

    return report_compute(data=study_report_data(study=study), bootstrap=bootstrap)
