"""A judge's self-consistency over repeated runs, and judge–gold disagreement split into noise
and bias (pure numpy).

Input: the repeats' codes per item, (n_items, n_repeats), ``MISSING`` where a repeat has no
verdict (an error). Only items every repeat labelled count ("complete" items); the others are
counted apart, as Fleiss' κ needs the same number of ratings per item.

* Fleiss' κ across repeats (the repeats as raters), with the case-clustered bootstrap interval
  of ``rater_reliability``;
* flip rate: the share of items whose repeats are not unanimous, overall, per criterion and
  per ability;
* the split of judge–gold disagreement. Over the items with gold, the disagreement is the mean
  share of repeats that differ from gold, D = bias + noise exactly, where
  bias = (items whose repeats are unanimous and differ from gold) / n — asking again would not
  fix them — and noise = Σ over non-unanimous items of their share of repeats ≠ gold, / n.
"""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from validation.statistics.coding import MISSING, category_counts
from validation.statistics.multirater import rater_reliability
from validation.statistics.results import BootstrapSettings, Estimate


@dataclass(frozen=True)
class FlipRate:
    items: int
    flipped: int

    @property
    def rate(self) -> float | None:
        return self.flipped / self.items if self.items else None

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.items, "flipped": self.flipped, "rate": self.rate}


@dataclass(frozen=True)
class DisagreementSplit:
    n: int  # complete items with gold
    disagreement: float | None  # mean share of repeats ≠ gold
    bias: float | None  # unanimous repeats, all ≠ gold
    noise: float | None  # non-unanimous repeats' share ≠ gold
    biased_items: int
    noisy_items: int  # items whose repeats disagree among themselves and with gold

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "disagreement": self.disagreement,
            "bias": self.bias,
            "noise": self.noise,
            "biased_items": self.biased_items,
            "noisy_items": self.noisy_items,
        }


@dataclass(frozen=True)
class Stability:
    repeats: int
    items: int  # complete items
    incomplete_items: int  # some repeat has no verdict: left out
    fleiss_kappa: Estimate
    percent_agreement: Estimate
    flip_rate: FlipRate
    by_criterion: dict[Hashable, FlipRate]
    by_ability: dict[Hashable, FlipRate]
    gold_split: DisagreementSplit

    def as_dict(self) -> dict[str, Any]:
        return {
            "repeats": self.repeats,
            "items": self.items,
            "incomplete_items": self.incomplete_items,
            "fleiss_kappa": self.fleiss_kappa.as_dict(),
            "percent_agreement": self.percent_agreement.as_dict(),
            "flip_rate": self.flip_rate.as_dict(),
            "by_ability": {str(k): v.as_dict() for k, v in self.by_ability.items()},
            "by_criterion": {str(k): v.as_dict() for k, v in self.by_criterion.items()},
            "gold_split": self.gold_split.as_dict(),
        }


def _flip_rates(keys: np.ndarray, flipped: np.ndarray) -> dict[Hashable, FlipRate]:
    rates = {}
    for key in sorted(set(keys.tolist()), key=str):
        chosen = keys == key
        rates[key] = FlipRate(items=int(chosen.sum()), flipped=int(flipped[chosen].sum()))
    return rates


def disagreement_split(*, codes: ArrayLike, gold: ArrayLike) -> DisagreementSplit:
    """Judge–gold disagreement of complete repeats split into bias and noise (module doc)."""
    codes, gold = np.asarray(codes), np.asarray(gold)
    keep = (gold != MISSING) & (codes != MISSING).all(axis=1)
    codes, gold = codes[keep], gold[keep]
    n = int(keep.sum())
    if not n:
        return DisagreementSplit(0, None, None, None, 0, 0)
    wrong = (codes != gold[:, None]).mean(axis=1)
    unanimous = (codes == codes[:, :1]).all(axis=1)
    biased = unanimous & (wrong == 1)
    noisy = ~unanimous
    return DisagreementSplit(
        n=n,
        disagreement=float(wrong.mean()),
        bias=float(biased.sum() / n),
        noise=float(wrong[noisy].sum() / n),
        biased_items=int(biased.sum()),
        noisy_items=int((noisy & (wrong > 0)).sum()),
    )


def judge_stability(
    *,
    codes: ArrayLike,
    categories: Sequence[Hashable],
    gold: ArrayLike,
    criterion: ArrayLike,
    ability: ArrayLike,
    clusters: ArrayLike,
    bootstrap: BootstrapSettings | None = None,
) -> Stability:
    """The self-consistency of ``codes`` (n_items, n_repeats) and their split against ``gold``.

    ``criterion``, ``ability`` and ``clusters`` (the case of each item, resampled by the
    bootstrap) are per item. Needs at least two repeats.
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim != 2 or codes.shape[1] < 2:
        raise ValueError("stability needs the codes of at least two repeats per item")
    complete = (codes != MISSING).all(axis=1)
    kept = codes[complete]
    _, cluster_index = np.unique(np.asarray(clusters)[complete], return_inverse=True)
    reliability = rater_reliability(
        counts=category_counts(codes=kept, n_categories=len(categories)),
        categories=categories,
        clusters=cluster_index,
        bootstrap=bootstrap,
    )
    flipped = ~(kept == kept[:, :1]).all(axis=1)
    return Stability(
        repeats=int(codes.shape[1]),
        items=int(complete.sum()),
        incomplete_items=int((~complete).sum()),
        fleiss_kappa=reliability.fleiss_kappa,
        percent_agreement=reliability.percent_agreement,
        flip_rate=FlipRate(items=int(complete.sum()), flipped=int(flipped.sum())),
        by_criterion=_flip_rates(np.asarray(criterion)[complete], flipped),
        by_ability=_flip_rates(np.asarray(ability)[complete], flipped),
        gold_split=disagreement_split(codes=codes, gold=gold),
    )
