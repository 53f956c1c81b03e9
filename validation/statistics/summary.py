"""The `heartbench agreement` summary: raters, gold, judge against gold and against raters.

Figures are plain numbers (``None`` when undefined); each section carries ``reasons`` for
its undefined figures and ``ci95`` for its intervals, so the JSON reads at a glance and
still says why a figure is missing.
"""

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from validation.gate import status_word
from validation.statistics.baseline import (
    NONINFERIORITY_DELTA,
    AgainstOthers,
    experts_against_others,
    judge_against_others,
    judge_noninferiority,
)
from validation.statistics.coding import MISSING, Ratings
from validation.statistics.latent_section import latent_class_lines, latent_class_summary
from validation.statistics.levels import level_reliability
from validation.statistics.multirater import rater_reliability
from validation.statistics.pairwise import (
    PairwiseAgreement,
    pairwise_agreement,
    two_by_two_indices,
)
from validation.statistics.provenance import ADJUDICATED, provenance_agreement
from validation.statistics.raters import (
    gold_majority,
    labeller_against_raters,
    raters_leave_one_out,
)
from validation.statistics.results import BootstrapSettings, Estimate

# A ratings file holds each rater's label, never a senior's decision: which gold a senior
# decided cannot be known from it.
NO_SENIOR = "the ratings file carries no senior's decisions: adjudicated gold cannot be known"


def _section(estimates: dict[str, Estimate]) -> dict[str, Any]:
    section: dict[str, Any] = {key: e.value for key, e in estimates.items()}
    reasons = {key: e.reason for key, e in estimates.items() if e.reason is not None}
    # Seed, resamples and level are recorded once, in the summary's "bootstrap" section.
    intervals = {
        key: {
            k: v
            for k, v in e.interval.as_dict().items()
            if k in ("low", "high", "method", "reason") or (k == "undefined_resamples" and v)
        }
        for key, e in estimates.items()
        if e.interval
    }
    if intervals:
        section["ci95"] = intervals
    if reasons:
        section["reasons"] = reasons
    return section


def _replace_figures(section: dict[str, Any], figures: dict[str, Any]) -> None:
    """Put ``_section``'s figures into ``section`` in place of any of the same name, with
    their intervals and reasons (and none left of the figures they replace)."""
    for key in ("ci95", "reasons"):
        kept = {k: v for k, v in section.pop(key, {}).items() if k not in figures}
        if merged := kept | figures.pop(key, {}):
            section[key] = merged
    section |= figures


def _judge_vs_gold(result: PairwiseAgreement) -> dict[str, Any]:
    estimates = {
        "agreement": result.agreement,
        "cohen_kappa": result.cohen_kappa,
        "scott_pi": result.scott_pi,
        "gwet_ac1": result.gwet_ac1,
        "pabak": result.pabak,
        "balanced_f1": result.balanced_f1,
    }
    for category, scores in result.per_class.items():
        estimates[f"recall[{category}]"] = scores.recall
        estimates[f"precision[{category}]"] = scores.precision
    section = {"n": result.n, **_section(estimates)}
    section["confusion"] = result.confusion_dict() | {"rows": "gold", "columns": "judge"}
    section["prevalence"] = {
        str(category): {"gold": scores.reference_share, "judge": scores.predicted_share}
        for category, scores in result.per_class.items()
    }
    # b: gold says the first category and the judge the second; c: the other way round.
    section |= two_by_two_indices(confusion=result.confusion) or {}
    return section


def _figures(result: PairwiseAgreement) -> dict[str, Any]:
    return {
        "n": result.n,
        **_section(
            {
                "agreement": result.agreement,
                "kappa": result.cohen_kappa,
                "macro_f1": result.balanced_f1,
            }
        ),
    }


def _against_others(result: AgainstOthers) -> dict[str, Any]:
    return {
        "pooled": _figures(result.pooled),
        "raters": {rater: _figures(a) for rater, a in result.by_rater.items()},
    }


def agreement_summary(
    *,
    ratings: Ratings,
    judge_labels: Mapping[tuple[Hashable, Hashable], Hashable | None] | None,
    bootstrap: BootstrapSettings,
    delta: float = NONINFERIORITY_DELTA,
    cluster: str = "unit",
    positive: Hashable | None = None,
    judge_as_rater: bool = False,
    level: str = "nominal",
    values: Sequence[float] | None = None,
) -> dict[str, Any]:
    """Everything `heartbench agreement` reports, as JSON-ready data.

    ``judge_labels`` maps (cluster, item) to the judge's label; labels for items nobody
    rated cannot be compared and are only counted. The bootstrap resamples the clusters of
    ``ratings``, the values of the CSV's column ``cluster`` (recorded in the output).
    ``delta`` is the judge's non-inferiority margin. ``positive`` (the category meaning met)
    and ``judge_as_rater`` shape the latent-class section (``latent_class_summary``).
    ``level`` (with the categories' ``values``, in their order) is the labels' level of
    measurement: the raters' Krippendorff's α is at that level, and for interval and ratio
    numbers the raters get ICC(1,1) too (``validation.statistics.levels``); every other
    figure compares labels as categories.
    """
    reliability = rater_reliability(
        counts=ratings.counts(),
        categories=ratings.categories,
        clusters=ratings.clusters,
        bootstrap=bootstrap,
    )
    gold = gold_majority(codes=ratings.codes, n_categories=ratings.n_categories)
    summary: dict[str, Any] = {
        "categories": [str(c) for c in ratings.categories],
        "raters": {
            "n_items": reliability.n_items,
            "n_raters": len(ratings.raters),
            **_section(
                {
                    "percent_agreement": reliability.percent_agreement,
                    "krippendorff_alpha": reliability.krippendorff_alpha,
                    "fleiss_kappa": reliability.fleiss_kappa,
                    "gwet_ac1": reliability.gwet_ac1,
                }
            ),
        },
        "gold": {
            "n": gold.n,
            "ties": gold.ties,
            "unanimous": gold.unanimous,
            "split": gold.split,
            "single_rating": gold.single,
            "unrated": gold.unrated,
        },
        "judge_vs_gold": None,
        "judge_vs_experts": None,
        "experts_vs_others": _against_others(experts_against_others(ratings=ratings)),
        "judge_vs_others": None,
        "judge_noninferiority": None,
        "bootstrap": {
            "resamples": bootstrap.resamples,
            "seed": bootstrap.seed,
            "level": bootstrap.level,
            "clusters": ratings.n_clusters,
            "resampled": {"unit": "units", "case": "cases"}.get(cluster, f"values of {cluster}"),
            "cluster": cluster,
        },
    }
    summary["raters"]["level"] = level
    if level != "nominal":
        found = level_reliability(
            counts=ratings.counts(),
            categories=[str(c) for c in ratings.categories],
            values=values if values is not None else range(ratings.n_categories),
            level=level,
            clusters=ratings.clusters,
            bootstrap=bootstrap,
        )
        _replace_figures(summary["raters"], _section(found))
    judge = None if judge_labels is None else ratings.encode(labels=judge_labels)
    summary["latent_class"] = latent_class_summary(
        ratings=ratings,
        judge=judge,
        bootstrap=bootstrap,
        gold=gold.codes,
        positive=positive,
        judge_as_rater=judge_as_rater,
    )
    if judge is None:
        return summary
    rated = set(ratings.items)
    against_gold = pairwise_agreement(
        reference=gold.codes,
        predicted=judge,
        categories=ratings.categories,
        clusters=ratings.clusters,
        bootstrap=bootstrap,
    )
    summary["judge_vs_gold"] = _judge_vs_gold(against_gold) | {
        "items_without_judge": int(((judge == MISSING) & (gold.codes != MISSING)).sum()),
        "judge_items_not_rated": sum(1 for key in judge_labels if key not in rated),
        "by_provenance": provenance_agreement(
            reference=gold.codes,
            predicted=judge,
            provenance=gold.provenance,
            clusters=ratings.clusters,
            n_clusters=ratings.n_clusters,
            categories=ratings.categories,
            bootstrap=bootstrap,
            unknown={ADJUDICATED: NO_SENIOR},
        ),
    }
    against_raters = labeller_against_raters(ratings=ratings, predicted=judge, bootstrap=bootstrap)
    experts = raters_leave_one_out(ratings=ratings, bootstrap=None)
    judge_f1 = against_raters.pooled.balanced_f1
    summary["judge_vs_experts"] = {
        "n_pairs": against_raters.pooled.n,
        **_section({"balanced_f1": judge_f1}),
        "by_rater": {r: a.balanced_f1.value for r, a in against_raters.by_rater.items()},
        "expert_balanced_f1": {r: a.balanced_f1.value for r, a in experts.items()},
        "expert_reasons": {
            r: a.balanced_f1.reason for r, a in experts.items() if a.balanced_f1.reason
        },
    }
    summary["judge_vs_others"] = _against_others(judge_against_others(ratings=ratings, judge=judge))
    summary["judge_noninferiority"] = judge_noninferiority(
        ratings=ratings, judge=judge, bootstrap=bootstrap, delta=delta
    ).as_dict()
    return summary


def _number(value: Any) -> str:
    return "—" if value is None else f"{value:.4f}"


def _rows(section: dict[str, Any], keys: list[str]) -> list[str]:
    lines = []
    for key in keys:
        interval = section.get("ci95", {}).get(key)
        text = f"  {key:<22}{_number(section.get(key)):>8}"
        if interval and interval["low"] is not None:
            text += f"  [{interval['low']:.4f}, {interval['high']:.4f}] {interval['method']}"
        reason = section.get("reasons", {}).get(key)
        if reason:
            text += f"  ({reason})"
        lines.append(text)
    return lines


def _provenance_lines(section: dict[str, Any]) -> list[str]:
    """Agreement with the gold by its provenance, one line a group."""
    lines = ["  agreement by gold provenance"]
    for key in ("unanimous", "split", "adjudicated"):
        group = section.get(key)
        if group is None:
            lines.append(f"    {key:<20}{'—':>8}  ({section.get('reasons', {}).get(key)})")
            continue
        ci = group["ci95"]
        text = f"    {key:<20}{_number(group['agreement']):>8}  n {group['n']}"
        if ci:
            text += f"  [{ci['low']:.4f}, {ci['high']:.4f}] {ci['method']}"
        if group.get("reason"):
            text += f"  ({group['reason']})"
        lines.append(text)
    return lines


def _baseline_lines(title: str, baseline: dict[str, Any]) -> list[str]:
    lines = [
        f"{title} against the agreeing label of the other two experts: "
        f"{baseline['pooled']['n']} pairs",
        f"  {'':<20}{'n':>6}{'agreement':>11}{'kappa':>9}{'macro_f1':>10}",
    ]
    for name, figures in [("pooled", baseline["pooled"]), *baseline["raters"].items()]:
        lines.append(
            f"  {name:<20}{figures['n']:>6}{_number(figures['agreement']):>11}"
            f"{_number(figures['kappa']):>9}{_number(figures['macro_f1']):>10}"
        )
    return lines


def agreement_table(summary: dict[str, Any]) -> str:
    """The summary as aligned text for a terminal."""
    raters = summary["raters"]
    gold = summary["gold"]
    boot = summary["bootstrap"]
    lines = [
        f"Raters: {raters['n_raters']} on {raters['n_items']} items"
        + (
            f" (level {raters['level']}: Krippendorff's alpha"
            + (" and the ICC" if "icc" in raters else "")
            + " at that level, the rest as categories)"
            if raters["level"] != "nominal"
            else ""
        ),
        *_rows(
            raters,
            ["percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1"]
            + (["icc"] if "icc" in raters else []),
        ),
        f"Gold (majority): {gold['n']} items, {gold['ties']} ties excluded "
        f"({gold['unanimous']} unanimous, {gold['split']} split, "
        f"{gold['single_rating']} single rating)",
    ]
    judge = summary["judge_vs_gold"]
    if judge is not None:
        keys = ["agreement", "cohen_kappa", "scott_pi", "gwet_ac1", "pabak", "balanced_f1"]
        keys += [k for k in judge if k.startswith(("recall[", "precision["))]
        labels = judge["confusion"]["labels"]
        width = max(len(label) for label in labels) + 2
        lines += [f"Judge vs gold: {judge['n']} items", *_rows(judge, keys)]
        lines.append("  confusion (rows gold, columns judge)")
        lines.append("  " + " " * width + "".join(f"{label:>{width}}" for label in labels))
        for label, row in zip(labels, judge["confusion"]["matrix"], strict=True):
            lines.append(f"  {label:<{width}}" + "".join(f"{v:>{width}}" for v in row))
        if (test := judge.get("mcnemar")) is not None:
            lines.append(
                f"  McNemar b {test['b']} c {test['c']}: p {test['p_value']:.4g} "
                f"({test['method']}); prevalence index {judge['prevalence_index']:.4f}, "
                f"bias index {judge['bias_index']:.4f}"
            )
        lines += _provenance_lines(judge["by_provenance"])
        experts = summary["judge_vs_experts"]
        lines += [
            f"Judge vs each expert: {experts['n_pairs']} pairs",
            *_rows(experts, ["balanced_f1"]),
            "  experts against the other experts (balanced F1):",
            *(f"    {r:<20}{_number(v):>8}" for r, v in experts["expert_balanced_f1"].items()),
        ]
    lines += _baseline_lines("Experts", summary["experts_vs_others"])
    if summary["judge_vs_others"] is not None:
        lines += _baseline_lines("Judge on the same pairs", summary["judge_vs_others"])
        test = summary["judge_noninferiority"]
        ci = test["ci95"]
        lines.append(
            f"Judge − experts (pooled macro-F1): {_number(test['difference'])}"
            + (f"  [{ci['low']:.4f}, {ci['high']:.4f}] {ci['method']}" if ci else "")
            + f"  delta {test['delta']}: {status_word(test['status'])}"
        )
    lines += latent_class_lines(summary["latent_class"])
    lines.append(
        f"Intervals: {boot['level']:.0%} cluster bootstrap over {boot['clusters']} "
        f"{boot['resampled']}, {boot['resamples']} resamples, seed {boot['seed']}"
    )
    return "\n".join(lines) + "\n"
