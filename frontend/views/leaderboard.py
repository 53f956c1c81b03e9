"""The leaderboard page for everyone signed in (experts too); the admin's leaderboard link
lands here as well, so there is one page, one renderer and one selector."""

import argparse

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext

from benchmark.leaderboard_render import rubric_notes, table_rows
from benchmark.leaderboard_rules import CHOSEN_BY_REQUEST, DEFAULT_MIN_COVERAGE, judge_settings
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve
from benchmark.selectors.leaderboard_options import (
    leaderboard_datasets,
    leaderboard_default_dataset,
    leaderboard_judges,
)
from config.cli_types import fraction_0_1
from validation.selectors import datasets_blind_for


@login_required
def leaderboard(request: HttpRequest) -> HttpResponse:
    # Deferred: scoring loads numpy and scipy, which only this page needs, not every page served.
    from benchmark.scoring import SCORING_MODES
    from benchmark.selectors.leaderboard import SPLITS, LeaderboardError
    from benchmark.services.stored_board import leaderboard_keep
    from frontend import leaderboard as page

    split = request.GET.get("split", "all")
    scoring = request.GET.get("scoring", "paper")
    if split not in SPLITS or scoring not in SCORING_MODES:
        raise Http404("unknown split or scoring")
    try:
        min_coverage = fraction_0_1(request.GET.get("min_coverage") or str(DEFAULT_MIN_COVERAGE))
    except argparse.ArgumentTypeError as exc:
        raise Http404(str(exc)) from exc
    name = request.GET.get("dataset") or None
    try:
        dataset = dataset_resolve(name=name) if name else leaderboard_default_dataset()
    except DatasetNotFound as exc:
        raise Http404(str(exc)) from exc
    context = {
        "splits": [(s, page.SPLIT_LABELS.get(s, s)) for s in SPLITS],
        "scorings": [(s, page.SCORING_LABELS.get(s, s)) for s in SCORING_MODES],
        "split": split,
        "scoring": scoring,
        "split_label": page.SPLIT_LABELS.get(split, split),
        "scoring_label": page.SCORING_LABELS.get(scoring, scoring),
    }
    if dataset is None:
        return render(request, "frontend/leaderboard.html", context)
    if dataset.name in datasets_blind_for(user=request.user):
        # The page says why, and lets the rater pick another dataset; nothing of the board.
        context |= {"dataset": dataset, "datasets": leaderboard_datasets(), "blind": True}
        return render(request, "frontend/leaderboard.html", context)
    judges = leaderboard_judges(dataset=dataset)
    judge = request.GET.get("judge") or None
    if judge is not None and judge not in judges:
        raise Http404("no such judge on this dataset")
    try:
        board = leaderboard_keep(
            dataset=dataset, split=split, scoring=scoring, judge=judge, min_coverage=min_coverage
        )
    except LeaderboardError as exc:
        raise Http404(str(exc)) from exc
    ranked = [m["model"] for m in board["models"]]
    comparison = page.compare_choose(
        ranked=ranked,
        requested=request.GET.getlist("models"),
        submitted=request.GET.get("compare") == "1",
    )
    staff = request.user.is_staff
    board_judges = sorted({m["judge_run"]["judge"] for m in board["models"]})
    context |= {
        "dataset": dataset,
        "datasets": leaderboard_datasets(),
        "judges": judges,
        "judge": judge,
        # Rows never mix judges: every row is this judge's, asked for or chosen by coverage.
        "board_judge": board["judge"],
        "judge_requested": board.get("judge_chosen_by") == CHOSEN_BY_REQUEST,
        "min_coverage": min_coverage,
        "min_coverage_asked": request.GET.get("min_coverage") or "",
        "notes": page.board_notes(board),
        "board": board,
        "rows": table_rows(board),
        "rubric_notes": rubric_notes(board),
        "categories": page.category_labels(),
        "comparison": comparison,
        "max_compare": page.MAX_COMPARE,
        "legend": page.legend(comparison.chosen),
        "compared": page.compared_abilities(board=board, chosen=comparison.chosen),
        "charts": page.charts(board=board, chosen=comparison.chosen),
        "badges": [
            page.badge_view(
                judge=name, badge=page.badge_get(dataset=dataset, judge=name), staff=staff
            )
            for name in board_judges
        ],
        "staff": staff,
        "settings": _settings(board),
        "pairwise": page.pairwise_views(dataset=dataset),
    }
    status = 400 if comparison.error else 200
    return render(request, "frontend/leaderboard.html", context, status=status)


def _settings(board: dict) -> list[tuple[str, str]]:
    """Each row's judge settings in the reader's language, when they differ between rows."""
    if not board.get("settings_differ"):
        return []
    return [
        (
            m["model"],
            judge_settings(m["judge_run"], source=m["judge_run"]["source"], translate=gettext),
        )
        for m in board["models"]
    ]
