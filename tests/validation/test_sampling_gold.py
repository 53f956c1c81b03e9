import random
from collections import Counter

import pytest

from benchmark.sampling import sample_stratified
from validation.gold import gold_from_votes


def items(n=120):
    strata = ["normal × 职场", "normal × 亲密", "hard × 职场", "hard × 家庭"]
    return [(f"c{i:03d}", strata[i % 7 % 4]) for i in range(n)]


def test_same_seed_same_sample_whatever_the_input_order():
    shuffled = items()
    random.Random(1).shuffle(shuffled)
    a = sample_stratified(items=items(), fraction=0.3, seed=42)
    b = sample_stratified(items=shuffled, fraction=0.3, seed=42)
    c = sample_stratified(items=items(), fraction=0.3, seed=43)
    assert a == b
    assert a.keys != c.keys


def test_sample_size_and_strata_follow_the_fraction():
    data = items()
    sample = sample_stratified(items=data, fraction=0.3, seed=1)
    assert len(sample.keys) == round(0.3 * len(data))
    sizes = Counter(s for _, s in data)
    of = dict(data)
    picked = Counter(of[k] for k in sample.keys)
    for stratum, size in sizes.items():
        assert abs(picked[stratum] - 0.3 * size) < 1
        assert sample.strata[stratum] == (picked[stratum], size)


def test_bad_fraction_is_refused():
    with pytest.raises(ValueError, match="fraction"):
        sample_stratified(items=items(), fraction=0, seed=1)


@pytest.mark.parametrize(
    ("votes", "gold"),
    [
        ([True, True, True], (True, "3/3")),
        ([False, False, False], (False, "3/3")),
        ([True, False, True], (True, "2/1")),
        ([False, True, False], (False, "2/1")),
    ],
)
def test_majority_of_three(votes, gold):
    assert gold_from_votes(votes) == gold


def test_an_even_number_of_votes_has_no_majority():
    with pytest.raises(ValueError):
        gold_from_votes([True, False])
