"""The report's latent-class section: each expert's and each judge's sensitivity and
specificity under a Dawid–Skene model, the prevalence of met, and how noisy the gold is (pure).

The figures are ``validation.statistics.latent_section``'s (as `heartbench agreement` gives
them, judge held out); this module only lays them out for the JSON, the long CSV and the HTML.
With the judges held out the experts alone fit the model: one fit gives the experts' figures
and every judge's.
"""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from validation.report.data import CATEGORIES, StudyData
from validation.statistics import MISSING, BootstrapSettings, Ratings
from validation.statistics.latent_section import expected_accuracy, latent_class_summary

# Every resample refits the model by EM (0.5–0.8 s per 500 resamples and judge at 2,700–12,500
# items), so the section bootstraps at most this many; the section records the number.
LATENT_RESAMPLES = 500
# The per-item posteriors stay in `heartbench agreement`'s JSON: a stored report keeps figures.
_DROPPED = ("judge", "items")


def latent_class_compute(
    *,
    data: StudyData,
    ratings: Ratings,
    bootstrap: BootstrapSettings,
    agreement: Mapping[str, float | None],
) -> dict[str, Any]:
    """The section: the experts' model (``latent_class_summary`` without the per-item list),
    the bootstrap it used, and per judge its figures beside ``agreement`` (judge name → its
    agreement with the gold), so the gold's noise in that agreement shows."""
    boot = replace(bootstrap, resamples=min(bootstrap.resamples, LATENT_RESAMPLES))
    judges = {judge.name: judge.codes for judge in data.judges}
    found = latent_class_summary(
        ratings=ratings, judge=None, judges=judges, bootstrap=boot, gold=data.gold
    )
    section = {key: value for key, value in found.items() if key not in _DROPPED}
    section["bootstrap"] = {
        "resamples": boot.resamples,
        "report_resamples": bootstrap.resamples,
        "seed": boot.seed,
        "level": boot.level,
        "clusters": data.n_cases,
        "resampled": "cases",
    }
    section["judges"] = {
        name: _judge(data, judges[name], found, figures, agreement.get(name))
        for name, figures in found.get("judges", {}).items()
    }
    return section


def _judge(
    data: StudyData,
    codes: np.ndarray,
    found: dict[str, Any],
    figures: dict[str, Any],
    agreement: float | None,
) -> dict[str, Any]:
    """One judge's sensitivity and specificity, its expected accuracy against the latent truth
    on the items of its agreement with the gold, and by how much that agreement understates
    it (negative: overstates)."""
    posterior = np.array(
        [np.nan if item["posterior"] is None else item["posterior"] for item in found["items"]]
    )
    accuracy = expected_accuracy(
        posterior=posterior,
        codes=np.where(data.gold != MISSING, codes, MISSING),
        positive=CATEGORIES.index(found["positive"]),
    )
    gap = None if accuracy is None or agreement is None else accuracy - agreement
    return figures | {
        "expected_accuracy": accuracy,
        "agreement_with_gold": agreement,
        "agreement_understates_by": gap,
    }
