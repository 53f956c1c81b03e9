"""A reproducible stratified sample (pure: no database): of cases for a study, of model pairs
on cases for a pairwise set (``benchmark.services.pairwise``).

The same (items, fraction, seed) always gives the same sample, whatever order the items come
in. Each stratum gets its share of round(fraction × N) by largest remainder, so small strata
are neither dropped wholesale nor over-represented; ties between equal remainders are broken
by the seed.
"""

import math
import random
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    keys: list[str]
    # stratum → (sampled, size), for the study's record.
    strata: dict[str, tuple[int, int]]


def stratum_label(values: Sequence[Hashable]) -> str:
    return " × ".join(str(v) if v not in ("", None) else "(none)" for v in values)


def sample_stratified(*, items: Sequence[tuple[str, str]], fraction: float, seed: int) -> Sample:
    """``items`` are (key, stratum) pairs with unique keys; returns the sampled keys sorted."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    groups: dict[str, list[str]] = defaultdict(list)
    for key, stratum in items:
        groups[stratum].append(key)
    if sum(len(keys) for keys in groups.values()) != len({key for key, _ in items}):
        raise ValueError("item keys must be unique")
    total = len(items)
    target = max(1, round(fraction * total)) if total else 0
    exact = {stratum: fraction * len(keys) for stratum, keys in groups.items()}
    quota = {stratum: math.floor(value) for stratum, value in exact.items()}
    tie_break = random.Random(f"{seed}:allocation")
    order = sorted(groups)
    tie_break.shuffle(order)
    # Stable sort keeps the seeded order among strata with equal remainders.
    order.sort(key=lambda s: exact[s] - quota[s], reverse=True)
    for stratum in order[: max(0, target - sum(quota.values()))]:
        quota[stratum] += 1
    chosen: list[str] = []
    for stratum, keys in groups.items():
        rng = random.Random(f"{seed}:{stratum}")
        chosen.extend(rng.sample(sorted(keys), quota[stratum]))
    return Sample(
        keys=sorted(chosen),
        strata={s: (quota[s], len(groups[s])) for s in sorted(groups)},
    )
