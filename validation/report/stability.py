"""The report's stability section: each judge run with repeats (``judge --repeats``), its
self-consistency and the split of its disagreement with the gold into noise and bias (pure).

The figures are ``validation.statistics.stability``'s; this module only lays them out for the
JSON, the long CSV and the HTML.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from validation.report.data import CATEGORIES, StudyData
from validation.statistics import BootstrapSettings, Estimate
from validation.statistics.stability import judge_stability


@dataclass(frozen=True)
class JudgeRepeats:
    """A judge's verdicts on the study's items from run 0 and each of its repeats."""

    name: str
    runs: tuple[tuple[int, ...], ...]  # per repeat index, its runs (one per model)
    codes: np.ndarray  # (n_items, n_repeats) HIT / MISS / MISSING (no verdict, or an error)


def stability_compute(
    *,
    data: StudyData,
    bootstrap: BootstrapSettings,
    figure: Callable[[Estimate], dict[str, Any]],
) -> list[dict[str, Any]]:
    """One entry per judge with repeats; ``figure`` lays an estimate out as the report does."""
    section = []
    for repeats in data.repeats:
        found = judge_stability(
            codes=repeats.codes,
            categories=CATEGORIES,
            gold=data.gold,
            criterion=data.criterion,
            ability=data.ability,
            clusters=data.case,
            bootstrap=bootstrap,
        )
        entry = found.as_dict()
        entry["fleiss_kappa"] = figure(found.fleiss_kappa)
        entry["percent_agreement"] = figure(found.percent_agreement)
        # The criteria that flip most first: where a rubric is read two ways.
        entry["by_criterion"] = dict(
            sorted(entry["by_criterion"].items(), key=lambda kv: -(kv[1]["rate"] or 0))
        )
        section.append({"judge": repeats.name, "runs": [list(r) for r in repeats.runs], **entry})
    return section


def stability_csv_rows(section: list[dict[str, Any]] | None) -> Iterator[tuple[Any, ...]]:
    """The section as rows of the report's long CSV (section, judge, group, name, statistic,
    value, n, ci95_low, ci95_high, method, note)."""
    for entry in section or ():
        judge = entry["judge"]
        blank = (None, None, None, None)
        yield ("stability", judge, "", "", "repeats", entry["repeats"], *blank, "")
        yield ("stability", judge, "", "", "items", entry["items"], *blank, "")
        yield (
            "stability",
            judge,
            "",
            "",
            "incomplete_items",
            entry["incomplete_items"],
            *blank,
            "",
        )
        for key in ("fleiss_kappa", "percent_agreement"):
            f = entry[key]
            interval = (f["n"], f.get("low"), f.get("high"), f.get("method"))
            yield ("stability", judge, "", "", key, f["value"], *interval, f.get("reason", ""))
        flip = entry["flip_rate"]
        yield (
            "stability",
            judge,
            "all",
            "",
            "flip_rate",
            flip["rate"],
            flip["n"],
            None,
            None,
            None,
            "",
        )
        for group in ("ability", "criterion"):
            for name, rate in entry[f"by_{group}"].items():
                row = (rate["rate"], rate["n"], None, None, None, "")
                yield ("stability", judge, group, name, "flip_rate", *row)
        split = entry["gold_split"]
        for key in ("disagreement", "bias", "noise"):
            yield (
                "stability_vs_gold",
                judge,
                "",
                "",
                key,
                split[key],
                split["n"],
                None,
                None,
                None,
                "",
            )
