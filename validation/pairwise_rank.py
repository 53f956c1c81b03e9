"""The `heartbench pairwise rank` summary (JSON) and its table, from comparisons read anywhere
(``validation.pairwise_csv``); the figures are ``validation.statistics.preference``'s."""

from collections.abc import Iterable
from typing import Any

from validation.statistics.preference import Comparison, bradley_terry, win_rate
from validation.statistics.results import BootstrapSettings, Interval


def _brief(interval: Interval) -> dict[str, Any]:
    """An interval without the settings recorded once under ``bootstrap``."""
    data = {"low": interval.low, "high": interval.high, "method": interval.method}
    if interval.reason is not None:
        data["reason"] = interval.reason
    if interval.undefined_resamples:
        data["undefined_resamples"] = interval.undefined_resamples
    return data


def rank_summary(
    comparisons: Iterable[Comparison], *, bootstrap: BootstrapSettings
) -> dict[str, Any]:
    """Models from the strongest down, Bradley–Terry with case-bootstrap intervals, and the
    observed win rates."""
    comparisons = list(comparisons)
    fitted = bradley_terry(comparisons, bootstrap=bootstrap)
    rates = win_rate(comparisons)
    model = fitted.as_dict()
    model["ci95"] = {m: _brief(fitted.strength_ci[m]) for m in fitted.models}
    model["p_win_ci95"] = {
        a: {b: _brief(interval) for b, interval in row.items()}
        for a, row in fitted.p_win_ci.items()
    }
    return {
        "models": fitted.ranking(),
        "comparisons": fitted.comparisons,
        "cases": fitted.cases,
        "bradley_terry": model,
        "win_rate": rates.as_dict(),
        "compared": rates.counts_dict(),
        "bootstrap": {
            "resamples": bootstrap.resamples,
            "seed": bootstrap.seed,
            "level": bootstrap.level,
            "cluster": "case",
            "clusters": fitted.cases,
        },
    }


def won_share(summary: dict[str, Any], model: str) -> tuple[float | None, int]:
    """The share of its comparisons ``model`` won (a tie half), and how many it had."""
    compared = summary["compared"][model]
    games = sum(compared.values())
    won = sum(
        share * compared[other]
        for other, share in summary["win_rate"][model].items()
        if share is not None
    )
    return (won / games if games else None), games


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def rank_table(summary: dict[str, Any]) -> str:
    """The ranking as aligned text for a terminal (English, as the command line is)."""
    model = summary["bradley_terry"]
    names = summary["models"]
    width = max(len("model"), *(len(n) for n in names))
    lines = [f"{'rank':>4}  {'model':<{width}}  {'strength':>8}  {'95% interval':<17}  "
             f"{'win rate':>8}  {'compared':>8}"]  # fmt: skip
    for rank, name in enumerate(names, start=1):
        ci = model["ci95"][name]
        interval = f"[{ci['low']:.3f}, {ci['high']:.3f}]" if ci["low"] is not None else "withheld"
        won, compared = won_share(summary, name)
        lines.append(
            f"{rank:>4}  {name:<{width}}  {model['strength'][name]:>8.3f}  {interval:<17}  "
            f"{_number(won):>8}  {compared:>8}"
        )
    boot = summary["bootstrap"]
    lines += [
        f"{summary['comparisons']} comparisons in {summary['cases']} cases; a tie is half a "
        "win for each side",
        f"Bradley-Terry strengths: {model['normalisation']}",
        f"95% intervals: {boot['resamples']} resamples of cases, seed {boot['seed']}",
    ]
    if model["prior"]["used"]:
        lines.append(
            f"the maximum-likelihood strengths are infinite ({model['prior']['reason']}): "
            f"{model['prior']['pseudo_count']} wins each way were added to every pair compared"
        )
    withheld = {ci["reason"] for ci in model["ci95"].values() if ci["low"] is None}
    lines += [f"interval withheld: {reason}" for reason in sorted(withheld) if reason]
    return "\n".join(lines) + "\n"
