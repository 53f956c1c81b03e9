"""A leaderboard kept as data: computed on its first request and stored in a row keyed by its
options, its inputs' fingerprint (``leaderboard_fingerprint``) and a digest of the scoring code
(``config.code_digest``), so a restart or an emptied cache reads it back instead of running
the joint bootstrap again; the cache keeps it in front of the row.

A new verdict, a finished run, an edited criterion or a deploy that changes the code gives a new
key and the board is computed afresh; the row it replaces (same dataset and options) is
deleted in the same transaction, so a dataset holds one row per set of options.
"""

import hashlib
from collections.abc import Sequence
from typing import Any

from django.core.cache import cache

from benchmark.leaderboard_rules import DEFAULT_MIN_COVERAGE
from benchmark.models import Dataset, StoredBoard
from benchmark.scoring import ScoringMode
from benchmark.selectors.leaderboard import leaderboard_compute
from benchmark.selectors.leaderboard_options import leaderboard_fingerprint
from benchmark.stored_rows import ABSENT, stored_value, stored_value_write
from config.code_digest import code_digest

# The packages the board's figures come from (its selector, scoring, rules and run records).
CODE = ("benchmark",)
# Keys carry everything the board is computed from, so an entry is never stale; the timeout
# only bounds how long unused entries stay.
CACHE_SECONDS = 6 * 3600


def leaderboard_keep(
    *,
    dataset: Dataset,
    split: str = "all",
    scoring: ScoringMode = "paper",
    judge: str | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    run_ids: Sequence[int] = (),
) -> dict[str, Any]:
    """``leaderboard_compute(...).as_dict()``, from the cache, else its stored row, else
    computed and stored. Raises ``LeaderboardError`` as the selector does (nothing stored) and
    ``StoredValueError`` on a row that is not JSON (nothing written)."""
    kind = repr((split, scoring, judge or "", repr(min_coverage), *sorted(run_ids)))
    state = repr((kind, leaderboard_fingerprint(dataset=dataset), code_digest(packages=CODE)))
    key = hashlib.sha256(state.encode()).hexdigest()
    cached = f"benchmark:board:{key}"
    board = cache.get(cached)
    if board is not None:
        return board
    board = stored_value(StoredBoard, key=key, what="stored leaderboard")
    if board is ABSENT:
        computed = leaderboard_compute(
            dataset=dataset,
            split=split,
            scoring=scoring,
            judge=judge,
            min_coverage=min_coverage,
            run_ids=run_ids,
        )
        board = stored_value_write(
            StoredBoard,
            key=key,
            value=computed.as_dict(),
            replacing=StoredBoard.objects.filter(dataset=dataset, kind=kind),
            dataset=dataset,
            kind=kind,
        )
    cache.set(cached, board, CACHE_SECONDS)
    return board


def leaderboard_warm(*, dataset_id: int) -> bool:
    """Compute and store the board the leaderboard page shows first for the dataset (its
    default options) ahead of its first reader (``benchmark.services.warming``); False when
    the dataset is gone."""
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        return False
    leaderboard_keep(dataset=dataset)
    return True
