"""The latent-class section as the report shows it (HTML) and writes it (CSV): plain Python
on the computed section (``validation.report.latent_class``), so rendering loads no numpy."""

from collections.abc import Iterator
from typing import Any


def _estimate_row(judge: str, group: str, name: str, statistic: str, e: dict[str, Any]):
    ci = e["ci95"] or {}
    note = e.get("reason") or ci.get("reason") or ""
    return ("latent_class", judge, group, name, statistic, e["estimate"], e["expected_n"],
            ci.get("low"), ci.get("high"), ci.get("method"), note)  # fmt: skip


def latent_class_csv_rows(section: dict[str, Any] | None) -> Iterator[tuple[Any, ...]]:
    """The section as rows of the report's long CSV (section, judge, group, name, statistic,
    value, n, ci95_low, ci95_high, method, note); a figure's n is its posterior-expected count."""
    if not section:
        return
    blank = (None, None, None, None)
    note = section.get("reason") or section["method"]
    yield ("latent_class", "", "all", "", "n_items", section["n_items"], *blank, note)
    for key in ("iterations", "converged", "unconverged_refits"):
        yield ("latent_class", "", "all", "", key, section[key], *blank, "")
    boot = section["bootstrap"]
    others = f"the report's other figures: {boot['report_resamples']}"
    yield ("latent_class", "", "all", "", "resamples", boot["resamples"], *blank, others)
    if section.get("reason"):
        return
    positive = section["positive"]
    yield _estimate_row("", "all", "", f"prevalence_{positive}", section["prevalence"])
    for name, rater in section["raters"].items():
        for key in ("sensitivity", "specificity"):
            yield _estimate_row("", "expert", name, key, rater[key])
    accuracy = section["gold_expected_accuracy"]
    yield ("latent_class", "", "all", "", "gold_expected_accuracy", accuracy, *blank, "")
    for judge, figures in section["judges"].items():
        for key in ("sensitivity", "specificity"):
            yield _estimate_row(judge, "judge", "", key, figures[key])
        for key in ("expected_accuracy", "agreement_with_gold", "agreement_understates_by"):
            yield ("latent_class", judge, "judge", "", key, figures[key], *blank, "")


def _figure(estimate: dict[str, Any]) -> dict[str, Any]:
    """A latent estimate in the shape the report's figure template shows."""
    ci = estimate["ci95"] or {}
    return {
        "value": estimate["estimate"],
        "low": ci.get("low"),
        "high": ci.get("high"),
        "method": ci.get("method"),
        "reason": estimate.get("reason"),
    }


def latent_class_view(section: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the HTML shows: one row per expert then per judge, figures in the template's
    shape, and each judge's gap between agreement with the gold and expected accuracy."""
    if not section:
        return None
    rows = [
        {"name": name, "judge": False, "items": r["items"]}
        | {key: _figure(r[key]) for key in ("sensitivity", "specificity")}
        for name, r in section["raters"].items()
    ]
    rows += [
        {"name": name, "judge": True, "items": j["items"]}
        | {key: _figure(j[key]) for key in ("sensitivity", "specificity")}
        for name, j in section["judges"].items()
    ]
    gaps = [
        {"name": name, **j, "gap": abs(j["agreement_understates_by"])}
        for name, j in section["judges"].items()
        if j["agreement_understates_by"] is not None
    ]
    prevalence = _figure(section["prevalence"]) if section.get("prevalence") else None
    return {**section, "rows": rows, "gaps": gaps, "prevalence_figure": prevalence}
