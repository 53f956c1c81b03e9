"""A judge's self-consistency across repeats: Fleiss' κ, flip rates, the noise/bias split of
judge–gold disagreement, pinned on hand-computed examples and on statsmodels' figures."""

import numpy as np
import pytest

from validation.statistics import BootstrapSettings
from validation.statistics.coding import MISSING
from validation.statistics.stability import disagreement_split, judge_stability

HIT, MISS = 0, 1
# Four items, three repeats, worked by hand in the comments below.
HAND = np.array([[HIT, HIT, HIT], [HIT, HIT, MISS], [MISS, MISS, MISS], [HIT, MISS, MISS]])
HAND_GOLD = np.array([MISS, HIT, MISS, HIT])


def stability(codes, *, gold=None, criterion=None, ability=None, categories=("hit", "miss")):
    n = len(codes)
    return judge_stability(
        codes=codes,
        categories=categories,
        gold=np.full(n, MISSING) if gold is None else gold,
        criterion=np.arange(n) if criterion is None else criterion,
        ability=np.array(["warmth"] * n) if ability is None else ability,
        clusters=np.arange(n),
        bootstrap=BootstrapSettings(resamples=200, seed=1),
    )


def test_hand_computed_kappa_and_flip_rate():
    # P_i = 1, 1/3, 1, 1/3 → P̄ = 2/3; p(hit) = p(miss) = 1/2 → P_e = 1/2; κ = (2/3−1/2)/(1/2).
    result = stability(HAND, ability=np.array(["warmth", "warmth", "humor", "humor"]))
    assert result.fleiss_kappa.value == pytest.approx(1 / 3)
    assert result.percent_agreement.value == pytest.approx(2 / 3)
    assert result.fleiss_kappa.interval is not None
    assert (result.flip_rate.flipped, result.flip_rate.items, result.flip_rate.rate) == (2, 4, 0.5)
    assert {k: v.rate for k, v in result.by_ability.items()} == {"humor": 0.5, "warmth": 0.5}
    assert [v.flipped for v in result.by_criterion.values()] == [0, 1, 0, 1]


def test_hand_computed_split_of_disagreement_into_bias_and_noise():
    # Item 1: all three say hit, gold miss → bias 1. Item 2: 1 of 3 ≠ gold (noise 1/3).
    # Item 3 agrees. Item 4: 2 of 3 ≠ gold (noise 2/3). D = (1 + 1/3 + 0 + 2/3) / 4 = 1/2.
    split = disagreement_split(codes=HAND, gold=HAND_GOLD)
    assert split.n == 4
    assert split.disagreement == pytest.approx(0.5)
    assert split.bias == pytest.approx(0.25) and split.noise == pytest.approx(0.25)
    assert (split.biased_items, split.noisy_items) == (1, 2)
    assert split.bias + split.noise == pytest.approx(split.disagreement)


def test_items_without_gold_or_with_a_missing_repeat_are_left_out():
    codes = np.vstack([HAND, [[HIT, MISSING, HIT]]])
    gold = np.append(HAND_GOLD, HIT)
    result = stability(codes, gold=gold)
    assert (result.items, result.incomplete_items) == (4, 1)
    assert result.fleiss_kappa.value == pytest.approx(1 / 3)  # as without the fifth item
    no_gold = disagreement_split(codes=HAND, gold=np.array([MISSING, HIT, MISSING, MISSING]))
    assert (no_gold.n, no_gold.disagreement, no_gold.noise) == (1, pytest.approx(1 / 3), 1 / 3)
    empty = disagreement_split(codes=HAND, gold=np.full(4, MISSING))
    assert (empty.n, empty.disagreement, empty.bias) == (0, None, None)


def test_unanimous_repeats_never_flip_and_leave_only_bias():
    codes = np.array([[HIT, HIT], [MISS, MISS], [HIT, HIT]])
    result = stability(codes, gold=np.array([HIT, HIT, HIT]))
    assert result.flip_rate.rate == 0
    assert result.fleiss_kappa.value == pytest.approx(1.0)
    assert (result.gold_split.bias, result.gold_split.noise) == (pytest.approx(1 / 3), 0)


def test_kappa_matches_statsmodels():
    # statsmodels 0.15.0, run outside the project:
    # fleiss_kappa(aggregate_raters(np.array(A))[0], method="fleiss") = 0.3888888888888886
    a = np.array(
        [
            [0, 0, 0, 0], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 1], [1, 1, 1, 0], [0, 0, 0, 0],
            [1, 0, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 0, 1], [0, 1, 1, 1],
        ]
    )  # fmt: skip
    assert stability(a).fleiss_kappa.value == pytest.approx(0.3888888888888886, abs=1e-12)
    # Three categories: 0.4444444444444444.
    b = np.array(
        [[0, 0, 0], [0, 1, 2], [2, 2, 2], [1, 1, 2], [0, 0, 1], [2, 2, 2], [1, 1, 1], [0, 2, 0],
         [1, 1, 1], [2, 1, 2]]
    )  # fmt: skip
    value = stability(b, categories=("a", "b", "c")).fleiss_kappa.value
    assert value == pytest.approx(0.4444444444444444, abs=1e-12)


def test_one_repeat_is_refused():
    with pytest.raises(ValueError, match="at least two repeats"):
        stability(np.array([[HIT], [MISS]]))
