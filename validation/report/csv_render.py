"""The study report as one long CSV: a row per figure, ready for a spreadsheet or R.

Every text cell goes through ``csv_cell``: model names, judge names and expert pseudonyms come
from outside and must not run as formulas in a spreadsheet.
"""

import csv
import io
from collections.abc import Iterator
from typing import Any

from config.csv_safe import csv_cell
from validation.report.adjudication import adjudication_csv_rows
from validation.report.dropped import dropped_csv_rows
from validation.report.latent_class_rows import latent_class_csv_rows
from validation.report.notes import notes_csv_rows
from validation.report.rubric_changes import rubric_changes_csv_rows
from validation.report.stability import stability_csv_rows
from validation.statistics.provenance import PROVENANCES

COLUMNS = (
    "section",
    "judge",
    "group",
    "name",
    "statistic",
    "value",
    "n",
    "ci95_low",
    "ci95_high",
    "method",
    "note",
)
Row = tuple[Any, ...]


def _figure_row(section: str, judge: str, group: str, name: str, statistic: str, fig) -> Row:
    return (
        section,
        judge,
        group,
        name,
        statistic,
        fig.get("value"),
        fig.get("n"),
        fig.get("low"),
        fig.get("high"),
        fig.get("method"),
        fig.get("reason") or fig.get("interval_reason") or "",
    )


def _plain(section: str, judge: str, group: str, name: str, statistic: str, value) -> Row:
    return (section, judge, group, name, statistic, value, None, None, None, None, "")


def _baseline_rows(section: str, judge: str, baseline: dict[str, Any]) -> Iterator[Row]:
    """Figures against the agreeing label of the other two experts, pooled and per expert."""
    groups = [("pooled", "", baseline["pooled"])]
    groups += [("expert", name, figures) for name, figures in baseline["raters"].items()]
    for group, name, figures in groups:
        for key in ("agreement", "kappa", "macro_f1"):
            yield _figure_row(section, judge, group, name, key, figures[key])


def _decided_at_row(judge: str, decided: dict[str, Any] | None) -> Row:
    """The interval the gate was decided on (value: its two-sided level), and for a sequential
    design its boundary, looks and early stop."""
    decided = decided or {"interval": "fixed_95", "level": 0.95, "design": None}
    design = decided["design"]
    note = ""
    if design is not None:
        note = (
            f"critical {decided['critical']:.4f} at look {design['look']} of "
            f"{design['planned_looks']}, {design['spending']} spending; "
            f"{design['complete_cases']} of {design['planned_cases']} planned cases"
            + ("; stopped early" if design["stopped_early"] else "")
        )
    return ("gate", judge, "all", decided["interval"], "decided_at", decided["level"],
            None, None, None, None, note)  # fmt: skip


def _gate_rows(judge: str, gate: dict[str, Any]) -> Iterator[Row]:
    """Each gate condition (statistic = its status), the overall decision, the ability flags."""
    for c in gate["conditions"]:
        yield (
            "gate",
            judge,
            c["name"],
            c["subject"] or "",
            f"{c['direction']} {c['threshold']}: {c['status']}",
            c["value"],
            None,
            c["low"],
            c["high"],
            None,
            c["reason"] or "",
        )
    yield _plain("gate", judge, "all", "", "decision", gate["decision"])
    rule = gate.get("multiplicity") or {}
    if rule.get("adjusted"):  # the score-bias rule across models, and each model's test
        yield _plain("gate", judge, "score_bias", "", "multiplicity", rule["rule"])
        for c in gate["conditions"]:
            if c.get("adjusted"):
                a = c["adjusted"]
                yield ("gate_score_bias_holm", judge, "model", c["subject"],
                       f"{a['unadjusted_status']} -> {c['status']}", a["level"], a["family"],
                       a["low"], a["high"], "holm", rule["text"])  # fmt: skip
    yield _decided_at_row(judge, gate.get("decided_at"))
    for a in gate["abilities"]:
        yield (
            "gate_ability_holm",
            judge,
            "ability",
            a["group"],
            "flagged_below" if a["flagged"] else "not_flagged",
            a["value"],
            a["n"],
            None,
            None,
            None,
            "" if a["p_holm"] is None else f"p_holm {a['p_holm']:.4g}",
        )


def _question_ci(ci: dict[str, Any] | None) -> tuple[Any, Any, Any]:
    """A question-bootstrap interval's low, high and method (None when there is none)."""
    if not ci or ci["method"] is None:
        return None, None, None
    return ci["low"], ci["high"], f"{ci['method']}, {ci['resampled']} resampled"


def _gold_test_rows(judge: str, vs_gold: dict[str, Any]) -> Iterator[Row]:
    """What accompanies PABAK (prevalence and bias indices), McNemar's paired test, and
    agreement with the gold by its provenance (unanimous, split, adjudicated)."""
    for key in ("prevalence_index", "bias_index"):
        yield _plain("judge_vs_gold", judge, "all", "", key, vs_gold[key])
    if (test := vs_gold["mcnemar"]) is not None:
        discordant = test["b"] + test["c"]
        for key in ("b", "c"):
            yield _plain("judge_vs_gold", judge, "mcnemar", "", f"mcnemar_{key}", test[key])
        yield (
            "judge_vs_gold", judge, "mcnemar", "", "mcnemar_p_value", test["p_value"],
            discordant, None, None, test["method"], "",
        )  # fmt: skip
    section = vs_gold["by_provenance"]
    for key in PROVENANCES:
        group = section.get(key)
        if group is None:
            reason = section.get("reasons", {}).get(key, "")
            yield ("judge_vs_gold_by_provenance", judge, "provenance", key, "agreement",
                   None, None, None, None, None, reason)  # fmt: skip
            continue
        ci = group["ci95"] or {}
        yield (
            "judge_vs_gold_by_provenance", judge, "provenance", key, "agreement",
            group["agreement"], group["n"], ci.get("low"), ci.get("high"), ci.get("method"),
            group.get("reason", ""),
        )  # fmt: skip


def _case_score_rows(judge: str, cases: dict[str, Any]) -> Iterator[Row]:
    # The note names the units: n cases from so many questions (the sampled unit) × models.
    units = f"{cases['questions']} questions x {cases['models']} models"
    icc = cases["icc"]
    yield (
        "case_scores", judge, "cases", "", "icc_2_1", icc["value"], icc["n"],
        *_question_ci(icc["ci95"]), icc["reason"] or icc["ci95"].get("reason") or units,
    )  # fmt: skip
    f = icc["f_interval"]
    yield (
        "case_scores", judge, "cases", "", "icc_2_1_f_interval", icc["value"], icc["n"],
        f["low"], f["high"], f"{f['method']} (cases as independent)", icc["reason"] or "",
    )  # fmt: skip
    ba = cases["bland_altman"]
    for key in ("mean_difference", "sd", "lower_limit", "upper_limit"):
        ci = ba.get(f"{key}_ci95")
        yield (
            "case_scores", judge, "bland_altman", "judge - gold", key, ba[key], ba["n"],
            *_question_ci(ci), ba["reason"] or (ci or {}).get("reason") or units,
        )  # fmt: skip


def _judge_rows(j: dict[str, Any]) -> Iterator[Row]:
    name = j["judge"]
    for key, value in j["vs_gold"].items():
        if isinstance(value, dict) and "value" in value:
            yield _figure_row("judge_vs_gold", name, "all", "", key, value)
    for row_label, row in zip(
        j["vs_gold"]["confusion"]["labels"], j["vs_gold"]["confusion"]["matrix"], strict=True
    ):
        for column_label, count in zip(j["vs_gold"]["confusion"]["labels"], row, strict=True):
            yield _plain(
                "confusion", name, "all", f"gold {row_label}", f"judge {column_label}", count
            )
    yield from _gold_test_rows(name, j["vs_gold"])
    yield from _gate_rows(name, j["gate"])
    experts = j["vs_experts"]
    yield _figure_row("judge_vs_experts", name, "pooled", "", "balanced_f1", experts["balanced_f1"])
    for expert, fig in experts["by_expert"].items():
        yield _figure_row("judge_vs_experts", name, "expert", expert, "balanced_f1", fig)
    yield from _baseline_rows("judge_vs_other_two", name, j["vs_others"])
    test = j["noninferiority"]
    ci = test["ci95"] or {}
    yield (
        "noninferiority",
        name,
        "pooled",
        f"delta {test['delta']}",
        "macro_f1_judge_minus_experts",
        test["difference"],
        test["n"],
        ci.get("low"),
        ci.get("high"),
        ci.get("method"),
        test.get("reason", ""),
    )
    yield _plain("noninferiority", name, "pooled", "", "passed", test["passed"])
    yield _plain("noninferiority", name, "pooled", "", "status", test["status"])
    for kind, groups in j["breakdowns"].items():
        for group, section in groups.items():
            for key, value in section.items():
                if isinstance(value, dict):
                    yield _figure_row(f"breakdown_{kind}", name, kind, group, key, value)
    for key, value in j["catastrophic"].items():
        if isinstance(value, dict):
            yield _figure_row("catastrophic", name, "catastrophic", "", key, value)
        else:
            yield _plain("catastrophic", name, "catastrophic", "", key, value)
    effect = j["score_effect"]
    for model in effect["models"]:
        for key in ("gold", "judge"):
            yield _plain("score_effect", name, "model", model["model"], f"score_{key}", model[key])
        ci = model.get("difference_ci95", {})
        yield (
            (
                "score_effect",
                name,
                "model",
                model["model"],
                "score_difference",
                model["difference"],
                model["cases"],
                ci.get("low"),
                ci.get("high"),
                ci.get("method"),
                ci.get("reason", ""),
            )
        )
    rank = effect["rank_agreement"]
    ci = rank.get("ci95") or {}
    yield (
        (
            "score_effect",
            name,
            "ranking",
            "",
            "kendall_tau",
            rank["kendall_tau"],
            rank["models"],
            ci.get("low"),
            ci.get("high"),
            ci.get("method"),
            rank.get("reason") or rank.get("warning") or "",
        )
    )
    yield from _case_score_rows(name, effect["cases"])


def _planning_rows(planning: dict[str, Any] | None) -> Iterator[Row]:
    if not planning:
        return
    for key, value in planning.items():
        if key != "judges":
            yield _plain("planning", "", "", "", key, value)
    for judge, achieved in planning["judges"].items():
        yield _plain("planning", judge, "", "", "achieved_half_width", achieved)


def report_rows(report: dict[str, Any]) -> Iterator[Row]:
    """Every figure of the report as (section, judge, group, name, statistic, value, ...)."""
    for key, value in report["study"].items():
        if key == "plan":  # its figures are the planning rows
            continue
        if isinstance(value, dict):  # the gate's configuration
            for sub, setting in value.items():
                yield _plain("study", "", key, sub, key, setting)
        else:
            yield _plain("study", "", "", "", key, value)
    for key, value in report["bootstrap"].items():
        yield _plain("bootstrap", "", "", "", key, value)
    counts = report["counts"]
    for key, value in counts.items():
        if isinstance(value, dict):
            for sub, number in value.items():
                yield _plain("counts", "", key, sub, key, number)
        else:
            yield _plain("counts", "", "", "", key, value)
    experts = report["experts"]
    for key in ("percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1"):
        yield _figure_row("experts", "", "all", "", key, experts[key])
    for expert, section in experts["leave_one_out"].items():
        for key in ("agreement", "cohen_kappa", "balanced_f1"):
            yield _figure_row("expert_vs_others", "", "expert", expert, key, section[key])
    yield from _baseline_rows("expert_vs_other_two", "", experts["vs_others"])
    for j in report["judges"]:
        yield from _judge_rows(j)
    yield from _planning_rows(report.get("planning"))
    yield from adjudication_csv_rows(report.get("adjudication"))
    yield from dropped_csv_rows(report.get("dropped"))
    yield from notes_csv_rows(report.get("rater_notes"))
    for rater in report.get("rater_quality", []):
        for key, value in rater.items():
            if key != "expert":
                yield _plain("rater_quality", "", "expert", rater["expert"], key, value)
    yield from rubric_changes_csv_rows(report.get("rubric_changes"))
    yield from stability_csv_rows(report.get("stability"))
    yield from latent_class_csv_rows(report.get("latent_class"))


def pairwise_report_rows(report: dict[str, Any]) -> Iterator[Row]:
    """A pairwise study's figures, one row each (``validation.report.pairwise``)."""
    from validation.report.pairwise_html import figure_flat  # loads the estimate as shown

    counts = report["counts"]
    for key in ("pairs", "cases", "choices", "gold"):
        yield _plain("counts", "", "", "", key, counts[key])
    for kind, n in counts["provenance"].items():
        yield _plain("counts", "", "provenance", kind, "pairs", n)

    def two_ways(section: str, judge: str, found: dict[str, Any]) -> Iterator[Row]:
        for ties in ("with_ties", "without_ties"):
            for key in ("agreement", "kappa"):
                fig = figure_flat(found[ties][key])
                yield _figure_row(section, judge, "", "", f"{key}_{ties}", fig)

    def ranked(judge: str, who: str, board: dict[str, Any]) -> Iterator[Row]:
        model = board.get("bradley_terry", {})
        for name in board.get("models", []):
            fig = {"value": model["strength"][name]} | model["ci95"][name]
            yield _figure_row("bradley_terry", judge, who, name, "strength", fig)

    yield from two_ways("human_baseline", "", report["experts"]["human_baseline"])
    yield from ranked("", "experts", report["experts"]["ranking"])
    for judge in report["judges"]:
        name = judge["judge"]
        yield from two_ways("judge_vs_gold", name, judge["vs_gold"])
        for key in ("consistent", "first_shown_wins"):
            yield _figure_row("position", name, "", "", key, figure_flat(judge["position"][key]))
        for who, fig in judge["length_bias"]["slope"].items():
            yield _figure_row("length_bias", name, "slope", who, "slope", figure_flat(fig))
        yield from ranked(name, "judge", judge["ranking"])
        if judge["ranking_tau"]:
            tau = judge["ranking_tau"]
            yield _plain("ranking_tau", name, "", "", "tau_b", tau["tau_b"])
    preference = report["rubric_preference"]
    yield _figure_row(
        "rubric_preference",
        preference["rubric_judge"] or "",
        "",
        "",
        "higher_score_preferred",
        figure_flat(preference["share"]),
    )


def report_csv(report: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    rows = pairwise_report_rows if report.get("question_type") == "pairwise" else report_rows
    for row in rows(report):
        writer.writerow([csv_cell(cell) for cell in row])
    return out.getvalue()
