"""The study report's stability section from a real study whose judge was run three times
(run 0 and two repeats, as `judge --repeats 3` stores them): JSON, CSV and HTML."""

import csv
import io

import numpy as np
import pytest
from django.core.management import call_command

from benchmark.models import RubricItem
from tests.builders.studies import (
    rated_study,
    report_json,
    study_with_repeats,
)
from validation.report.selectors import study_report_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    return study_with_repeats("stable")


def test_the_section_counts_flips_and_splits_disagreement(study):
    data = study_report_data(study=study)
    (repeats,) = data.repeats
    assert repeats.name == "judge-a" and repeats.codes.shape == (data.n_items, 3)
    report = report_json(study.name)
    (section,) = report["stability"]
    assert section["judge"] == "judge-a" and section["repeats"] == 3
    assert [len(runs) for runs in section["runs"]] == [3, 3, 3]
    # The judge's own figures still read run 0 only.
    judge_a = next(j for j in report["judges"] if j["judge"] == "judge-a")
    assert sorted(judge_a["runs"]) == sorted(r[0] for r in zip(*section["runs"], strict=True))
    # Errors (case 1, criterion 0) and the missing verdict (case 0, criterion 2) leave items out.
    judge_codes = next(j for j in data.judges if j.name == "judge-a").codes
    complete = (repeats.codes >= 0).all(axis=1)
    assert section["incomplete_items"] == int((~complete).sum()) == 3 + 3
    positions = dict(RubricItem.objects.values_list("pk", "position"))
    position = np.array([positions[int(c)] for c in data.criterion])
    expected_flips = int((complete & (position == 1)).sum())
    assert section["flip_rate"]["flipped"] == expected_flips > 0
    assert section["flip_rate"]["rate"] == pytest.approx(expected_flips / complete.sum())
    # Against the gold: run 0 and repeat 1 agree, so a flipped item is noise (1/3 of its
    # repeats differ from the gold or 2/3), an unflipped one that misses the gold is bias.
    gold = data.gold
    with_gold = complete & (gold >= 0)
    wrong = judge_codes != gold
    bias = with_gold & (position != 1) & wrong
    noise = np.where(with_gold & (position == 1), np.where(wrong, 2 / 3, 1 / 3), 0)
    split = section["gold_split"]
    assert split["n"] == int(with_gold.sum())
    assert split["bias"] == pytest.approx(bias.sum() / with_gold.sum())
    assert split["noise"] == pytest.approx(noise.sum() / with_gold.sum())
    assert section["fleiss_kappa"]["value"] < 1 and section["fleiss_kappa"]["low"] is not None


def test_csv_and_html_show_the_section(study, tmp_path):
    target = tmp_path / "report.csv"
    call_command("study", "report", study.name, "--format", "csv", "--resamples", "200",
                 "--output", str(target), stderr=io.StringIO())  # fmt: skip
    rows = [r for r in csv.DictReader(target.open(encoding="utf-8")) if r["judge"] == "judge-a"]
    stats = {(r["section"], r["group"], r["statistic"]) for r in rows}
    assert {
        ("stability", "", "fleiss_kappa"),
        ("stability", "all", "flip_rate"),
        ("stability", "ability", "flip_rate"),
        ("stability", "criterion", "flip_rate"),
        ("stability_vs_gold", "", "noise"),
        ("stability_vs_gold", "", "bias"),
    } <= stats
    page = tmp_path / "report.html"
    call_command("study", "report", study.name, "--format", "html", "--resamples", "200",
                 "--output", str(page), stderr=io.StringIO())  # fmt: skip
    html = page.read_text(encoding="utf-8")
    assert 'id="stability"' in html and "of which noise" in html


def test_no_section_without_repeats():
    study = rated_study(name="no-repeats", cases=2, models=2)
    assert report_json(study.name)["stability"] == []
