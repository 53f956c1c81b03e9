"""The pairwise board: one judge's choices over a pairwise set, its models ranked by
Bradley–Terry with case-bootstrap intervals beside the observed win rates
(``validation.pairwise_rank``'s summary), for `heartbench leaderboard --pairwise` and the
leaderboard page.

A pair counts once, with its outcome over both orders (``benchmark.llm.pairwise_reply``): a
choice that flips with the order is a tie; a pair with an order missing or an error is left
out, and the board says how many. The board is kept in the cache under its run's state (the
run, its verdict count and last verdict) and the code's digest, so a new verdict recomputes it.
"""

import hashlib
from typing import Any

from django.core.cache import cache

from benchmark.models import PairwiseSet
from benchmark.selectors.pairwise import (
    pairwise_run_outcomes,
    pairwise_runs_newest,
    pairwise_usable_pairs,
)
from config.code_digest import code_digest
from validation.pairwise_rank import rank_summary, rank_table
from validation.statistics.preference import Comparison, PreferenceError
from validation.statistics.results import BootstrapSettings

CHOSEN_BY_REQUEST, CHOSEN_BY_PAIRS = "request", "usable pairs"
CACHE_SECONDS = 6 * 3600
_CODE = ("benchmark", "validation")


class PairwiseBoardError(LookupError):
    """No judge has a run over the set, or not the judge asked for."""


def pairwise_board(
    *, pair_set: PairwiseSet, judge: str | None = None, bootstrap: BootstrapSettings | None = None
) -> dict[str, Any]:
    """The board of ``judge``'s newest run over the set; without ``judge``, of the judge
    whose newest run has the most usable pairs (then the first by name)."""
    bootstrap = bootstrap or BootstrapSettings()
    runs = pairwise_runs_newest(pair_set=pair_set)
    if not runs:
        raise PairwiseBoardError(
            f"no judge has run over the pairwise set {pair_set.name!r} "
            "(heartbench judge --pairwise SET --judge NAME)"
        )
    if judge is not None and judge not in runs:
        raise PairwiseBoardError(
            f"judge {judge!r} has no run over the pairwise set {pair_set.name!r}; "
            f"judges with one: {', '.join(runs)}"
        )
    if judge is None:
        usable = pairwise_usable_pairs(runs=runs.values())
        judge_chosen = min(runs, key=lambda name: (-usable.get(runs[name].pk, 0), name))
    chosen = judge or judge_chosen
    run = runs[chosen]
    state = (pair_set.pk, run.pk, run.verdicts_stored, run.verdict_last, bootstrap)
    key = hashlib.sha256(repr((state, code_digest(packages=_CODE))).encode()).hexdigest()
    board = cache.get(f"validation:pairwise-board:{key}")
    if board is None:
        outcomes = pairwise_run_outcomes(run=run)
        found = [o for o in outcomes if o.outcome]
        board = _compute(pair_set, run, outcomes, found, bootstrap)
        cache.set(f"validation:pairwise-board:{key}", board, CACHE_SECONDS)
    return board | {
        "judges": list(runs),
        "judge_chosen_by": CHOSEN_BY_REQUEST if judge else CHOSEN_BY_PAIRS,
    }


def _compute(pair_set, run, outcomes, usable, bootstrap) -> dict[str, Any]:
    board: dict[str, Any] = {
        "pairwise_set": pair_set.name,
        "dataset": {"name": pair_set.dataset.name, "version": pair_set.dataset.version},
        "judge": run.judge.name,
        "run": {"id": run.pk, "status": run.status},
        "pairs": len(outcomes),
        "usable_pairs": len(usable),
        "position_inconsistent": sum(o.consistent is False for o in outcomes),
        "rule": "a pair counts once, with its choice over both orders; a choice that flips "
        "with the order is a tie; a pair with an order missing or an error is left out",
    }
    comparisons = [Comparison(o.question_id, o.model_a, o.model_b, o.outcome) for o in usable]
    try:
        return board | rank_summary(comparisons, bootstrap=bootstrap)
    except PreferenceError as exc:
        return board | {"models": [], "reason": str(exc)}


def pairwise_board_table(board: dict[str, Any]) -> str:
    """The board for a terminal (English, as the command line is)."""
    dataset = board["dataset"]
    lines = [
        f"Pairwise board: {board['pairwise_set']} ({dataset['name']} v{dataset['version']}), "
        f"judge {board['judge']} (run {board['run']['id']}, {board['run']['status']})",
        f"{board['usable_pairs']} of {board['pairs']} pairs usable; "
        f"{board['position_inconsistent']} position-inconsistent (counted as ties)",
    ]
    if not board["models"]:
        return "\n".join([*lines, f"no ranking: {board['reason']}"]) + "\n"
    return "\n".join(lines) + "\n" + rank_table(board)
