"""A leaderboard kept as data: computed on its first request and stored in a row keyed by its
options, its inputs' fingerprint (``leaderboard_fingerprint``) and a digest of the scoring code
(``benchmark.code_digest``), so a restart or an emptied cache reads it back instead of running
the joint bootstrap again; the cache keeps it in front of the row.

A new verdict, a finished run, an edited criterion or a deploy that changes the code gives a new
key and the board is computed afresh; the row it replaces (same dataset and options) is
deleted in the same transaction, so a dataset holds one row per set of options.
"""

import hashlib
import json
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction

from benchmark.code_digest import code_digest
from benchmark.leaderboard_rules import DEFAULT_MIN_COVERAGE
from benchmark.models import Dataset, StoredBoard
from benchmark.scoring import ScoringMode
from benchmark.selectors.leaderboard import leaderboard_compute
from benchmark.selectors.leaderboard_options import leaderboard_fingerprint

# The packages the board's figures come from (its selector, scoring, rules and run records).
CODE = ("benchmark",)
# Keys carry everything the board is computed from, so an entry is never stale; the timeout
# only bounds how long unused entries stay.
CACHE_SECONDS = 6 * 3600


class StoredBoardError(ValueError):
    """A stored leaderboard cannot be read back (its row holds no JSON)."""


def leaderboard_keep(
    *,
    dataset: Dataset,
    split: str = "all",
    scoring: ScoringMode = "paper",
    judge: str | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> dict[str, Any]:
    """``leaderboard_compute(...).as_dict()``, from the cache, else its stored row, else
    computed and stored. Raises ``LeaderboardError`` as the selector does (nothing stored) and
    ``StoredBoardError`` on a row that is not JSON (nothing written)."""
    kind = repr((split, scoring, judge or "", repr(min_coverage)))
    state = repr((kind, leaderboard_fingerprint(dataset=dataset), code_digest(packages=CODE)))
    key = hashlib.sha256(state.encode()).hexdigest()
    cached = f"benchmark:board:{key}"
    board = cache.get(cached)
    if board is not None:
        return board
    board = _stored(key=key)
    if board is None:
        computed = leaderboard_compute(
            dataset=dataset, split=split, scoring=scoring, judge=judge, min_coverage=min_coverage
        )
        board = _store(key=key, dataset=dataset, kind=kind, board=computed.as_dict())
    cache.set(cached, board, CACHE_SECONDS)
    return board


def _stored(*, key: str) -> dict[str, Any] | None:
    kept = StoredBoard.objects.filter(key=key).values_list("value", flat=True).first()
    if kept is None:
        return None
    try:
        return json.loads(kept)
    except json.JSONDecodeError as exc:
        raise StoredBoardError(f"stored leaderboard {key[:12]} is not JSON: {exc}") from exc


def _store(*, key: str, dataset: Dataset, kind: str, board: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(board)
    try:
        with transaction.atomic():
            StoredBoard.objects.filter(dataset=dataset, kind=kind).delete()
            StoredBoard.objects.create(key=key, dataset=dataset, kind=kind, value=text)
    except IntegrityError:  # another request stored the same board first
        pass
    # Read back at once, so the first request sees the very values later ones read.
    return json.loads(text)
