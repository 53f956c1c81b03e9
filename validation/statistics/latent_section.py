"""The latent-class estimate as `heartbench agreement` shows it: JSON-ready data and a few
terminal lines (the model itself is ``validation.statistics.latent_class``)."""

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from validation.label_spellings import HIT
from validation.statistics.coding import MISSING, Ratings
from validation.statistics.latent_class import (
    AS_RATER,
    ASSUMPTION,
    HELD_OUT,
    MIN_RATERS,
    TOLERANCE,
    latent_class_fit,
    latent_class_method,
)
from validation.statistics.results import BootstrapSettings


def latent_class_summary(
    *,
    ratings: Ratings,
    judge: np.ndarray | None,
    bootstrap: BootstrapSettings | None,
    gold: np.ndarray | None = None,
    positive: Hashable | None = None,
    judge_as_rater: bool = False,
    judges: Mapping[str, np.ndarray] | None = None,
) -> dict[str, Any]:
    """The latent-class section of `heartbench agreement` (and of a report), JSON-ready.

    ``judge`` holds the judge's codes aligned to ``ratings`` (``Ratings.encode``); ``gold``
    the majority gold's codes, for the gold's expected accuracy under the posterior.
    ``positive`` is the category that means met: by default ``hit`` when the scheme has it,
    else the first category (the section names it). Undefined throughout, with a reason,
    when the scheme is not binary or fewer than three raters are modelled. ``judges`` (name →
    codes, instead of ``judge``) holds several judges out of one fit: the section's
    ``judges`` then gives each one's figures.
    """
    if judges:
        judge = np.column_stack(list(judges.values()))
    include = judge is not None and judge_as_rater
    section: dict[str, Any] = {
        "method": latent_class_method(AS_RATER if include else HELD_OUT),
        "judge_mode": AS_RATER if include else HELD_OUT,
        "assumption": ASSUMPTION,
        "positive": None,
        "n_items": 0,
        "iterations": None,
        "converged": None,
        "log_likelihood": None,
        "tolerance": TOLERANCE,
        "unconverged_refits": None,
        "prevalence": None,
        "raters": {},
        "judge": None,
        "gold_expected_accuracy": None,
        "items": [],
    }
    if ratings.n_categories != 2:
        return section | {
            "reason": f"{ratings.n_categories} categories: the latent-class model here is binary"
        }
    code = _positive_code(ratings.categories, positive)
    section["positive"] = str(ratings.categories[code])
    n_modelled = ratings.codes.shape[1] + (1 if include else 0)
    if n_modelled < MIN_RATERS:
        return section | {
            "reason": f"{n_modelled} rater(s): Dawid-Skene needs at least {MIN_RATERS} "
            "(two binary raters do not identify the model)"
        }
    fit = latent_class_fit(
        codes=ratings.codes,
        positive=code,
        raters=ratings.raters,
        clusters=ratings.clusters,
        judge=judge,
        judge_as_rater=judge_as_rater,
        bootstrap=bootstrap,
    )
    section |= {
        "method": fit.method,
        "n_items": fit.n_items,
        "iterations": fit.iterations,
        "converged": fit.converged,
        "log_likelihood": fit.log_likelihood,
        "unconverged_refits": fit.unconverged_refits if bootstrap is not None else None,
        "prevalence": fit.prevalence.as_dict(),
        "raters": {name: a.as_dict() for name, a in fit.raters.items()},
        "judge": fit.judge.as_dict() if fit.judge is not None and not judges else None,
        "gold_expected_accuracy": expected_accuracy(
            posterior=fit.posterior, codes=gold, positive=code
        ),
        "items": [
            {"unit": unit, "item": item, "posterior": None if np.isnan(p) else float(p)}
            for (unit, item), p in zip(ratings.items, fit.posterior, strict=True)
        ],
    }
    if judges:
        section["judges"] = {
            name: figures.as_dict() for name, figures in zip(judges, fit.judges, strict=True)
        }
    return section


def _positive_code(categories: Sequence[Hashable], positive: Hashable | None) -> int:
    if positive is not None:
        return list(categories).index(positive)
    return list(categories).index(HIT) if HIT in categories else 0


def expected_accuracy(
    *, posterior: np.ndarray, codes: np.ndarray | None, positive: int
) -> float | None:
    """Mean over items labelled in ``codes`` of P(true = that label): how often a labelling
    (the majority gold, or a judge in the report) is right, as the model sees it."""
    if codes is None:
        return None
    scored = (codes != MISSING) & np.isfinite(posterior)
    if not scored.any():
        return None
    right = np.where(codes[scored] == positive, posterior[scored], 1 - posterior[scored])
    return float(right.mean())


def latent_class_lines(section: dict[str, Any]) -> list[str]:
    """The section in a few terminal lines (the JSON holds every rater and item)."""
    mode = "judge held out" if section["judge_mode"] == HELD_OUT else "judge as a rater"
    title = f"Latent class (Dawid-Skene EM, {mode})"
    if section.get("reason"):
        return [f"{title}: not estimated ({section['reason']})"]
    lines = [
        f"{title}: {section['n_items']} items, {section['iterations']} iterations"
        + ("" if section["converged"] else " (not converged)")
        + f"; prevalence of {section['positive']} {_figure(section['prevalence'])}"
    ]
    if section["judge"] is not None:
        judge = section["judge"]
        lines.append(
            f"  judge: sensitivity {_figure(judge['sensitivity'])}, "
            f"specificity {_figure(judge['specificity'])}"
        )
    for key in ("sensitivity", "specificity"):
        values = [r[key]["estimate"] for r in section["raters"].values()]
        shown = [v for v in values if v is not None]
        spread = f"{min(shown):.4f}–{max(shown):.4f}" if shown else "—"
        lines.append(f"  experts' {key}: {spread} over {len(shown)} of {len(values)} raters")
    return lines


def _figure(estimate: dict[str, Any]) -> str:
    if estimate["estimate"] is None:
        return f"— ({estimate.get('reason')})"
    text = f"{estimate['estimate']:.4f}"
    ci = estimate["ci95"]
    if ci and ci["low"] is not None:
        text += f" [{ci['low']:.4f}, {ci['high']:.4f}] {ci['method']}"
    return text
