"""The released HeartBench data: random verdicts scored by our engine against an independent
re-statement of the upstream scorer's formula (per dimension, by Chinese name, from the raw file).
"""

import json
import math
from collections import defaultdict

import pytest

from benchmark.selectors.leaderboard import leaderboard_compute
from benchmark.taxonomy import CODE_BY_ZH
from tests.builders.llm import SPECIAL, judge_randomly

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def reference_scores(rows, details, *, paper):
    """Upstream semantics: S per dimension per question, mean per dimension, mean of those."""
    sums, counts, catastrophic = defaultdict(float), defaultdict(int), 0
    for row in rows:
        detail = details[row["question_id"]]
        low, high, raw = defaultdict(float), defaultdict(float), defaultdict(float)
        fired = False
        for item, hit in zip(row["rubric"], detail, strict=True):
            s = float(item["score"] or 0)
            dim = item["dimension"]
            low[dim] += min(s, 0)
            high[dim] += max(s, 0)
            raw[dim] += s if hit else 0.0
            if hit and dim == SPECIAL and (paper or s > 0):
                fired = True
        catastrophic += fired
        for dim in low:
            if dim == SPECIAL:
                continue
            span = high[dim] - low[dim]
            value = 0.0
            if not fired and span > 0:
                value = math.log(raw[dim] - low[dim] + 1) / math.log(span + 1) * 100
            sums[dim] += value
            counts[dim] += 1
    abilities = {CODE_BY_ZH[d]: sums[d] / counts[d] for d in sums}
    return abilities, sum(abilities.values()) / len(abilities), catastrophic


def test_upstream_mode_matches_the_upstream_formula_and_paper_mode_zeroes_catastrophes(released):
    dataset, rows = released
    models = {f"random-{seed}": judge_randomly(dataset, rows, name=f"random-{seed}", seed=seed)
              for seed in (1, 2, 3)}  # fmt: skip
    for scoring, paper in (("upstream", False), ("paper", True)):
        board = leaderboard_compute(dataset=dataset, scoring=scoring).as_dict()
        assert len(board["models"]) == 3
        for entry in board["models"]:
            abilities, overall, catastrophic = reference_scores(
                rows, models[entry["model"]], paper=paper
            )
            assert entry["coverage"] == {"scored": 296, "total": 296}
            assert entry["abilities"].keys() == abilities.keys()
            for code, value in abilities.items():
                assert entry["abilities"][code] == pytest.approx(value, abs=1e-9, rel=0)
            assert entry["overall"] == pytest.approx(overall, abs=1e-9, rel=0)
            assert entry["catastrophic_cases"] == catastrophic
            if paper:
                assert catastrophic > 0
            else:
                assert catastrophic == 0


def test_hard_and_normal_splits_match_the_released_split_files(released, shared_data):
    dataset, _ = released
    for split in ("normal", "hard"):
        ids = {
            json.loads(line)["question_id"]
            for line in (shared_data / f"question_{split}.jsonl").read_text("utf-8").splitlines()
        }
        stored = set(dataset.cases.filter(difficulty=split).values_list("question_id", flat=True))
        assert stored == ids
