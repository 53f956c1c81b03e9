"""The study report's latent-class section (issue 42 item 5): in the JSON the figures of
``latent_class_summary`` on the same data, in the HTML a short section, in the CSV one row per
figure; kept with the rest of a closed study's report."""

import csv
import io
import json
from dataclasses import replace

import numpy as np
import pytest
from django.core.cache import cache
from django.utils import translation

from tests.builders.studies import rated_study
from tests.builders.study_data import study
from validation.report import report_compute, report_csv, report_html
from validation.report.data import HIT, MISS
from validation.report.latent_class import LATENT_RESAMPLES
from validation.statistics import MISSING, BootstrapSettings, Ratings
from validation.statistics.latent_class import REFIT_TOLERANCE
from validation.statistics.latent_section import latent_class_summary
from validation.templatetags.report_i18n import statistic_reason

BOOT = BootstrapSettings(resamples=200, seed=7)
H, M = HIT, MISS


def _noisy_study(*, experts: int = 3):
    """12 cases × 2 models × 4 criteria; each expert flips 15 % of the true labels, the
    judge 'close' 10 % and 'far' 30 %; the gold is the experts' majority."""
    rng = np.random.default_rng(3)
    truth = np.where(rng.random((12, 2, 4)) < 0.35, H, M)
    flat = truth.ravel()
    flips = rng.random((flat.size, experts)) < 0.15
    ratings = np.where(flips, 1 - flat[:, None], flat[:, None])
    gold = np.where((ratings == H).sum(axis=1) * 2 > experts, H, M)
    judges = {
        name: np.where(rng.random(flat.size) < p, 1 - flat, flat)
        for name, p in (("close", 0.10), ("far", 0.30))
    }
    data = study(gold_rows=truth.tolist(), judges=judges, models=("m1", "m2"), cases=12,
                 ratings=ratings, hard=[c % 2 == 1 for c in range(12)])  # fmt: skip
    shown = {"dataset": "d v1", "status": "closed", "seed": 1, "fraction": 0.3, "closed_at": None}
    return replace(data, gold=gold, study=data.study | shown)


def _ratings(data) -> Ratings:
    # Built here, not by the report: items keyed (unit, criterion), clustered by case.
    return Ratings(
        codes=data.ratings,
        categories=("hit", "miss"),
        raters=data.experts,
        items=tuple(zip(data.unit.tolist(), data.criterion.tolist(), strict=True)),
        clusters=data.case,
        cluster_keys=data.case_keys,
    )


# Interval bounds come from bootstrap refits that stop within REFIT_TOLERANCE of their optimum.
REFIT = 10 * REFIT_TOLERANCE


def _leaves(value) -> list:
    """A nested figure's numbers in order, for a tolerant comparison."""
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    return [value] if isinstance(value, float | int) else []


def _expected(data, judge):
    return latent_class_summary(
        ratings=_ratings(data), judge=judge.codes, bootstrap=BOOT, gold=data.gold
    )


def test_the_json_section_is_latent_class_summary_on_the_same_data():
    data = _noisy_study()
    report = report_compute(data=data, bootstrap=BOOT)
    section = report["latent_class"]
    close, far = (_expected(data, j) for j in data.judges)
    # The experts' model does not see a held-out judge: the section's one fit of both judges
    # gives each single judge's fit's figures: the estimates to rounding (its patterns are
    # finer), the intervals to the bootstrap refits' stopping tolerance (REFIT_TOLERANCE).
    for key in ("raters", "prevalence", "gold_expected_accuracy", "n_items", "iterations"):
        assert _leaves(section[key]) == pytest.approx(_leaves(close[key]), rel=REFIT)
        assert _leaves(section[key]) == pytest.approx(_leaves(far[key]), rel=REFIT)
    assert section["judge_mode"] == "held_out" and section["converged"] is True
    assert set(section["raters"]) == {"R-0", "R-1", "R-2"}
    assert section["bootstrap"] == {
        "resamples": 200,
        "report_resamples": 200,
        "seed": 7,
        "level": 0.95,
        "clusters": 12,
        "resampled": "cases",
    }
    assert "items" not in section  # the per-item posteriors are the command line's
    for judge, expected in zip(data.judges, (close, far), strict=True):
        figures = section["judges"][judge.name]
        for key in ("items", "sensitivity", "specificity"):
            assert _leaves(figures[key]) == pytest.approx(
                _leaves(expected["judge"][key]), rel=REFIT
            )
        # Expected accuracy by hand: P(true = the judge's label), over the judge-vs-gold items.
        posterior = np.array([item["posterior"] for item in expected["items"]])
        scored = (judge.codes != MISSING) & (data.gold != MISSING)
        right = np.where(judge.codes == H, posterior, 1 - posterior)[scored]
        assert figures["expected_accuracy"] == pytest.approx(right.mean())
        agreement = next(j for j in report["judges"] if j["judge"] == judge.name)["vs_gold"]
        assert figures["agreement_with_gold"] == agreement["agreement"]["value"]
        assert figures["agreement_understates_by"] == pytest.approx(
            right.mean() - agreement["agreement"]["value"]
        )
    # The judge that flips more is the less accurate one.
    assert (
        section["judges"]["far"]["expected_accuracy"]
        < section["judges"]["close"]["expected_accuracy"]
    )
    json.dumps(section, allow_nan=False)  # storable as it is


def test_unanimous_experts_and_hand_counted_judge_figures():
    # Three experts agree everywhere: the latent truth is the gold, so each judge's
    # sensitivity and specificity are its recall on met and on not met against the gold.
    gold = [[[H, M, M, M]], [[H, H, M, M]]]
    judges = {"exact": np.array(gold).ravel(), "lenient": [H, H, M, M, H, H, H, M]}
    section = report_compute(data=study(gold_rows=gold, judges=judges), bootstrap=BOOT)[
        "latent_class"
    ]
    assert section["gold_expected_accuracy"] == pytest.approx(1)
    assert section["prevalence"]["estimate"] == pytest.approx(3 / 8)
    lenient = section["judges"]["lenient"]
    # 3 gold hits all called met; 5 gold misses, 3 called not met.
    assert lenient["sensitivity"]["estimate"] == pytest.approx(1)
    assert lenient["specificity"]["estimate"] == pytest.approx(3 / 5)
    assert lenient["specificity"]["expected_n"] == pytest.approx(5)
    assert lenient["expected_accuracy"] == pytest.approx(6 / 8)
    assert lenient["agreement_understates_by"] == pytest.approx(0, abs=1e-9)
    exact = section["judges"]["exact"]
    assert exact["sensitivity"]["estimate"] == pytest.approx(1)
    # Never a zero-width interval at 1 (issue 42 item 1).
    low, high = exact["sensitivity"]["ci95"]["low"], exact["sensitivity"]["ci95"]["high"]
    assert low < high


def test_the_section_bootstraps_fewer_resamples_than_a_full_report():
    data = _noisy_study()
    boot = BootstrapSettings(resamples=LATENT_RESAMPLES + 300, seed=7)
    section = report_compute(data=data, bootstrap=boot)["latent_class"]
    assert section["bootstrap"]["resamples"] == LATENT_RESAMPLES
    assert section["bootstrap"]["report_resamples"] == LATENT_RESAMPLES + 300
    expected = latent_class_summary(
        ratings=_ratings(data),
        judge=data.judges[0].codes,
        bootstrap=replace(boot, resamples=LATENT_RESAMPLES),
        gold=data.gold,
    )
    assert _leaves(section["raters"]) == pytest.approx(_leaves(expected["raters"]), rel=REFIT)


def _section_html(report, language):
    with translation.override(language):
        text = report_html(report)
    start = text.index('<section class="latent-class">')
    return text[start : text.index("</section>", start)]


def test_the_html_shows_experts_by_pseudonym_and_each_judges_gap():
    report = report_compute(data=_noisy_study(), bootstrap=BOOT)
    section = report["latent_class"]
    html = _section_html(report, "en")
    assert "Latent-class estimate" in html
    for name in ("R-0", "R-1", "R-2"):
        assert f'<span translate="no" class="nowrap">{name}</span>' in html
    r0 = section["raters"]["R-0"]["sensitivity"]
    assert f"{r0['estimate']:.3f}" in html
    assert f"[{r0['ci95']['low']:.3f}, {r0['ci95']['high']:.3f}]" in html
    assert f"right on {section['gold_expected_accuracy']:.3f} of its items" in html
    for name, judge in section["judges"].items():
        gap = judge["agreement_understates_by"]
        word = "understates" if gap >= 0 else "overstates"
        assert (
            f'Judge <span translate="no">{name}</span>: its agreement with the gold, '
            f"{judge['agreement_with_gold']:.3f}, {word} its expected accuracy against the "
            f"latent truth, {judge['expected_accuracy']:.3f}, by {abs(gap):.3f}"
        ) in html
    assert "Fewer than the report's" not in html  # 200 resamples: none were dropped
    chinese = _section_html(report, "zh-hans")
    assert 'id="latent-class"' in chinese and f"{r0['estimate']:.3f}" in chinese


def _rows(report):
    reader = csv.DictReader(io.StringIO(report_csv(report)))
    return [row for row in reader if row["section"] == "latent_class"]


def test_the_csv_has_a_row_per_figure():
    report = report_compute(data=_noisy_study(), bootstrap=BOOT)
    section = report["latent_class"]
    rows = {(r["judge"], r["group"], r["name"], r["statistic"]): r for r in _rows(report)}
    r1 = section["raters"]["R-1"]["specificity"]
    row = rows[("", "expert", "R-1", "specificity")]
    assert float(row["value"]) == r1["estimate"]
    assert float(row["n"]) == r1["expected_n"]
    assert (float(row["ci95_low"]), float(row["ci95_high"])) == (
        r1["ci95"]["low"],
        r1["ci95"]["high"],
    )
    assert row["method"] == r1["ci95"]["method"]
    far = section["judges"]["far"]
    assert (
        float(rows[("far", "judge", "", "sensitivity")]["value"])
        == (far["sensitivity"]["estimate"])
    )
    gap = rows[("far", "judge", "", "agreement_understates_by")]
    assert float(gap["value"]) == far["agreement_understates_by"]
    prevalence = rows[("", "all", "", "prevalence_hit")]
    assert float(prevalence["value"]) == section["prevalence"]["estimate"]
    assert rows[("", "all", "", "resamples")]["value"] == "200"
    assert "Dawid-Skene" in rows[("", "all", "", "n_items")]["note"]


def test_two_experts_say_why_there_is_no_estimate():
    data = _noisy_study(experts=2)
    report = report_compute(data=data, bootstrap=BOOT)
    section = report["latent_class"]
    assert "at least 3" in section["reason"] and section["judges"] == {}
    assert section["raters"] == {} and section["prevalence"] is None
    html = _section_html(report, "en")
    assert "Not estimated:" in html and "the latent-class model needs at least 3" in html
    rows = _rows(report)
    assert [r["statistic"] for r in rows][:1] == ["n_items"]
    assert rows[0]["note"] == section["reason"]
    assert all(r["statistic"] != "sensitivity" for r in rows)


@pytest.mark.django_db
def test_a_closed_studys_kept_report_carries_the_section():
    from validation.selectors.report import study_report_compute
    from validation.services.stored import study_report_keep

    closed = rated_study()
    kept = study_report_keep(study=closed)
    cache.clear()
    again = study_report_keep(study=closed)  # read back from the stored row
    assert again["latent_class"] == kept["latent_class"]
    assert again["latent_class"] == study_report_compute(study=closed)["latent_class"]
    assert set(kept["latent_class"]["judges"]) == {j["judge"] for j in kept["judges"]}


def test_the_sections_notes_are_known_to_the_pages():
    # The notes as validation.statistics.latent_class words them.
    note = "0.412 expected latent negatives among its labels: fewer than 1, so the ratio is not "
    with translation.override("en"):
        assert statistic_reason(note + "an estimate") == (
            "0.412 expected truly not-met items among its labels: fewer than 1, so not an estimate"
        )
        assert statistic_reason(note.replace("negatives", "positives") + "an estimate") == (
            "0.412 expected truly met items among its labels: fewer than 1, so not an estimate"
        )
