"""A closed study's figures kept as data: computed on their first request and stored in a
row keyed by the study's report fingerprint (``validation.selectors.report``), so a restart or
an emptied cache reads them back instead of computing them again.

Only a closed study's: its inputs no longer move, so one row serves every later request. A
senior's decision after the close, a verdict added or a deploy that changes the computing code
changes the fingerprint, and the figures are computed afresh under the new key (the old row is
left: it is small and names its study). With workers, the close and a senior's decision after
it have them computed ahead of their first reader (``study_figures_warm_later``), and so does a
worker's start on new code (``figures_after_deploy_warm``).
"""

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.core.cache import cache

from benchmark.selectors.leaderboard_options import leaderboard_stored_dataset_ids
from benchmark.services.warming import leaderboard_warm_later, warm_later
from benchmark.stored_rows import ABSENT, stored_value, stored_value_write
from config.code_digest import code_digest
from config.lazy_import import Lazy
from validation.models import StoredFigures, Study
from validation.selectors.report import CODE, study_report_compute, study_report_fingerprint

if TYPE_CHECKING:
    from validation.selectors.badge import JudgeBadge

CACHE_SECONDS = 6 * 3600
STUDY_FIGURES_WARM = Lazy("validation.tasks.study_figures_warm_task")
# Seniors decide a closed study's last units one after another, each a new report: its task
# waits this long, so the first finds every decision of a run of them and computes, and the
# others find their row already stored (no unit's gold task waits behind a report each time).
GOLD_PAUSE = 60
# After a deploy, the closed studies whose figures a worker computes again, newest first; an
# older study's wait for their first reader (each costs seconds of a reports worker's time at a
# million labels, and gold tasks queue behind them).
AFTER_DEPLOY_STUDIES = 20


def study_figures_keep(
    *, study: Study, kind: str, fingerprint: str, compute: Callable[[], Any]
) -> Any:
    """``compute()``'s JSON value for ``study``, stored once per state of a closed study's
    inputs under ``kind``; an open study's is computed every time (its inputs still move).
    ``fingerprint`` is the study's ``study_report_fingerprint``, which the caller has."""
    if study.closed_at is None:
        return compute()
    state = f"{kind}\0{fingerprint}"
    key = hashlib.sha256(state.encode()).hexdigest()
    kept = stored_value(StoredFigures, key=key, what=f"stored {kind} of {study.name}")
    if kept is not ABSENT:
        return kept
    return stored_value_write(StoredFigures, key=key, value=compute(), study=study, kind=kind)


def judge_badge_keep(*, study: Study, judge: str) -> "JudgeBadge | None":
    """The badge of ``judge`` from the closed ``study`` (``judge_badge_for_study``), kept as
    data."""
    # Deferred: the badge's gate loads numpy, and the API imports this module at start-up.
    from validation.selectors.badge import JudgeBadge, judge_badge_for_study

    def compute() -> dict[str, Any] | None:
        badge = judge_badge_for_study(study=study, judge=judge)
        return badge and badge.figures()

    fingerprint = study_report_fingerprint(study=study)
    figures = study_figures_keep(
        study=study, kind=f"badge:{judge}", fingerprint=fingerprint, compute=compute
    )
    if figures is None:
        return None
    return JudgeBadge.from_figures(study=study, judge=judge, figures=figures)


def study_report_keep(*, study: Study) -> dict[str, Any]:
    """The report of ``study`` with the default bootstrap (``study_report_compute``), kept in
    the cache while its fingerprint holds, and a closed study's as data too."""
    fingerprint = study_report_fingerprint(study=study)
    key = f"validation:report:{fingerprint}"
    report = cache.get(key)
    if report is None:
        report = study_figures_keep(
            study=study,
            kind="report",
            fingerprint=fingerprint,
            compute=lambda: study_report_compute(study=study),
        )
        cache.set(key, report, CACHE_SECONDS)
    return report


def study_figures_warm_later(*, study: Study, countdown: float = 0) -> None:
    """Have a worker compute and store the closed study's report and badges once the caller
    commits (``benchmark.services.warming``): called when the study closes, and when gold is
    written after its close with a ``countdown`` (``GOLD_PAUSE``)."""
    warm_later(STUDY_FIGURES_WARM, countdown=countdown, study_id=study.pk)


def study_figures_warm(*, study_id: int) -> list[str]:
    """Compute and store the closed study's report and the badge of each judge that judged it
    (what the report page and the leaderboard's badges read); the kinds kept, none for a study
    that is gone or open."""
    study = Study.objects.filter(pk=study_id, closed_at__isnull=False).first()
    if study is None:
        return []
    study_report_keep(study=study)
    judges = sorted(set(study.judge_runs.values_list("judge__name", flat=True)))
    for judge in judges:
        judge_badge_keep(study=study, judge=judge)
    return ["report", *(f"badge:{judge}" for judge in judges)]


def figures_after_deploy_warm(*, studies: int = AFTER_DEPLOY_STUDIES) -> tuple[int, int] | None:
    """After a deploy that changed the computing code (``config.code_digest``) every kept
    figure is stale. Queue the figures of the newest ``studies`` closed studies and the board of
    every dataset whose board was kept; once per code, however many workers start (a cache
    entry marks it). The studies and boards queued, or None when this code's were queued."""
    marker = f"validation:after-deploy:{code_digest(packages=CODE)}"
    if not cache.add(marker, True, timeout=None):
        return None
    closed = list(
        Study.objects.filter(closed_at__isnull=False).order_by("-closed_at", "-pk")[:studies]
    )
    for study in closed:
        study_figures_warm_later(study=study)
    datasets = leaderboard_stored_dataset_ids()
    for dataset_id in datasets:
        leaderboard_warm_later(dataset_id=dataset_id)
    return len(closed), len(datasets)
