"""One judge per leaderboard, coverage per row, and no rank below the coverage threshold.

A model judged by one judge on 1 case must not be ranked beside a model another judge judged
on every case. The board compares models under one judge (the one covering the most models,
then the most scored cases, then the first by name, or the one asked for), shows the judge
and the coverage on every row in every format, and leaves rows under the coverage threshold
(90 % of the split's cases by default) unranked, below the ranked ones.
"""

import csv
import io
import json
import re

import pytest
from django.core.management import call_command

from benchmark.leaderboard_rules import JudgeCoverage, judge_choose, rows_rank
from benchmark.selectors.leaderboard import leaderboard_compute
from tests.builders.leaderboards import two_judges_dataset


@pytest.fixture
def two_judges(db):
    return two_judges_dataset()


def by_model(board):
    return {m["model"]: m for m in board["models"]}


def test_the_default_board_compares_models_under_the_judge_covering_most_models(two_judges):
    board = leaderboard_compute(dataset=two_judges).as_dict()
    assert board["judge"] == "beta" and board["judge_chosen_by"] == "most models"
    assert {m["judge"] for m in board["models"]} == {"beta"}
    assert {m["judge_run"]["judge"] for m in board["models"]} == {"beta"}
    # m4 (alpha's perfect 1/10) is not ranked beside beta's models: it is not on this board.
    assert [m["model"] for m in board["models"]] == ["m2", "m1", "m3"]
    assert board["not_shown"] == [{"model": "m4", "judges": ["alpha"]}]
    assert board["judges"] == [
        {"judge": "beta", "models": 3, "scored_cases": 28},
        {"judge": "alpha", "models": 2, "scored_cases": 2},
    ]


def test_rows_under_the_coverage_threshold_are_shown_without_a_rank_below_the_ranked(two_judges):
    board = leaderboard_compute(dataset=two_judges).as_dict()
    rows = by_model(board)
    assert board["min_coverage"] == 0.9
    assert (rows["m2"]["rank"], rows["m1"]["rank"], rows["m3"]["rank"]) == (1, 2, None)
    assert rows["m3"]["ranked"] is False and rows["m2"]["ranked"] is True
    assert rows["m3"]["coverage"] == {"scored": 8, "total": 10}
    assert rows["m3"]["coverage_share"] == 0.8
    # m3's overall is the best of the three, yet it sits below the ranked rows.
    assert rows["m3"]["overall"] >= rows["m2"]["overall"] > rows["m1"]["overall"]
    lowered = leaderboard_compute(dataset=two_judges, min_coverage=0.8).as_dict()
    # m2 and m3 tie on 100: equal scores go by model name.
    assert [(m["model"], m["rank"]) for m in lowered["models"]] == [
        ("m2", 1),
        ("m3", 2),
        ("m1", 3),
    ]
    assert all(m["ranked"] for m in lowered["models"])


def test_the_threshold_counts_the_cases_of_the_split(two_judges):
    # m3 judged hard cases 1, 3, 5, 7 of the five (0.8); normal cases 0, 2, 4, 6 of five (0.8).
    hard = by_model(leaderboard_compute(dataset=two_judges, split="hard").as_dict())
    assert hard["m3"]["coverage"] == {"scored": 4, "total": 5}
    assert hard["m3"]["rank"] is None and hard["m2"]["rank"] == 1


def test_a_named_judge_is_used_and_says_so(two_judges):
    board = leaderboard_compute(dataset=two_judges, judge="alpha").as_dict()
    assert board["judge"] == "alpha" and board["judge_chosen_by"] == "requested"
    assert {m["model"] for m in board["models"]} == {"m1", "m4"}
    assert all(m["rank"] is None for m in board["models"])  # 1 case of 10 each
    assert board["not_shown"] == [
        {"model": "m2", "judges": ["beta"]},
        {"model": "m3", "judges": ["beta"]},
    ]
    everyone = leaderboard_compute(dataset=two_judges, judge="alpha", min_coverage=0).as_dict()
    assert [(m["model"], m["rank"]) for m in everyone["models"]] == [("m4", 1), ("m1", 2)]


def test_ties_between_judges_are_broken_by_scored_cases_then_by_name():
    choose = judge_choose
    assert choose([JudgeCoverage("b", 2, 10), JudgeCoverage("a", 2, 9)]).judge == "b"
    assert choose([JudgeCoverage("b", 2, 10), JudgeCoverage("a", 2, 10)]).judge == "a"
    assert choose([JudgeCoverage("b", 1, 99), JudgeCoverage("a", 2, 2)]).judge == "a"
    assert choose([]) is None


def test_rank_order_is_pure_and_deterministic():
    rows = [("c", 50.0, 10, 10), ("a", 70.0, 5, 10), ("b", 50.0, 10, 10), ("d", None, 0, 10)]
    order = rows_rank(rows, min_coverage=0.9)
    assert [(rows[i][0], rank) for i, rank in order] == [
        ("b", 1), ("c", 2), ("a", None), ("d", None)
    ]  # fmt: skip
    # A row without any scored case is never ranked, whatever the threshold.
    assert rows_rank([("d", None, 0, 10)], min_coverage=0) == [(0, None)]


def test_table_names_the_judge_and_coverage_on_every_row(two_judges, capsys):
    call_command("leaderboard", "--dataset", "two-judges")
    table = capsys.readouterr().out
    assert "judge beta (the judge covering the most models" in table
    lines = {
        line.split()[1]: line for line in table.splitlines() if re.match(r"^(\d+|—)\s+m\d", line)
    }
    assert set(lines) == {"m1", "m2", "m3"}
    for line in lines.values():
        assert " beta " in line
    assert lines["m3"].startswith("—") and "8/10 (80%)" in lines["m3"]
    assert "10/10 (100%)" in lines["m2"]
    assert "unranked (—): coverage below 90% of the 10 cases" in table
    assert "not on this board: m4 (judged by alpha: --judge alpha)" in table


def test_json_keeps_its_keys_and_adds_judge_rank_and_coverage(two_judges, capsys):
    call_command("leaderboard", "--dataset", "two-judges", "--format", "json",
                 "--min-coverage", "0.5")  # fmt: skip
    board = json.loads(capsys.readouterr().out)
    for key in ("dataset", "dataset_version", "demo", "split", "scoring", "judge", "models"):
        assert key in board
    assert board["min_coverage"] == 0.5
    for m in board["models"]:
        for key in ("model", "overall", "ci95", "categories", "abilities", "coverage",
                    "catastrophic_cases", "normal", "hard", "hard_decay", "rubric_changes",
                    "judge_run", "judge", "rank", "ranked", "coverage_share"):  # fmt: skip
            assert key in m
    assert [m["rank"] for m in board["models"]] == [1, 2, 3]


def test_csv_has_judge_and_coverage_columns_and_an_empty_rank_when_unranked(two_judges, capsys):
    call_command("leaderboard", "--dataset", "two-judges", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["rank"], r["model"], r["judge"], r["coverage"]) for r in rows] == [
        ("1", "m2", "beta", "1.0"), ("2", "m1", "beta", "1.0"), ("", "m3", "beta", "0.8"),
    ]  # fmt: skip
    assert rows[2]["scored"] == "8" and rows[2]["total"] == "10"


def test_html_file_names_the_judge_per_row_and_marks_unranked_rows(two_judges, capsys):
    call_command("leaderboard", "--dataset", "two-judges", "--format", "html")
    html = capsys.readouterr().out
    rows = re.findall(r'<tr class="(ranked|unranked)"><td>([^<]*)</td><td class="name">([^<]*)'
                      r"</td><td>([^<]*)</td>", html)  # fmt: skip
    assert rows == [
        ("ranked", "1", "m2", "beta"),
        ("ranked", "2", "m1", "beta"),
        ("unranked", "—", "m3", "beta"),
    ]
    assert "8/10 (80%)" in html
    assert "the judge covering the most models" in html
    assert "m4" in html and "--judge alpha" in html


def test_upstream_scoring_is_unchanged_by_the_judge_rule(two_judges):
    default = by_model(leaderboard_compute(dataset=two_judges, scoring="upstream").as_dict())
    named = by_model(
        leaderboard_compute(dataset=two_judges, scoring="upstream", judge="beta").as_dict()
    )
    for name in ("m1", "m2", "m3"):
        assert default[name]["abilities"] == named[name]["abilities"]
        assert default[name]["overall"] == named[name]["overall"]
