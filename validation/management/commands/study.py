"""`heartbench study create|open|close|enrol|export|report`: thin wrappers over services."""

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils.translation import gettext

from annotation.services import AnnotationError
from config.cli_exits import UsageError
from config.cli_types import (
    fraction_0_1,
    non_negative_float,
    non_negative_int,
    open_share,
    positive_fraction,
    positive_int,
)
from config.files import FileWriteError, file_write_atomically
from validation import closing, selectors, services
from validation.export import FORMATS, rows_write
from validation.gate import GateConfig
from validation.report import FORMATS as REPORT_FORMATS
from validation.report import report_render
from validation.selectors.planning import study_plan, study_power
from validation.selectors.report import study_report_compute
from validation.statistics import BootstrapSettings
from validation.statistics.planning import DEFAULT_AGREEMENT, DEFAULT_HALF_WIDTH, PlanningError
from validation.statistics.power import (
    DEFAULT_POWER,
    DEFAULT_PREVALENCE,
    DEFAULT_RECALL,
    DEFAULT_SCORE_BIAS,
    DEFAULT_SEED,
    DEFAULT_SIMULATIONS,
    PowerAssumptions,
)

AUTO = "auto"


def _write_atomically(output: str, write) -> None:
    try:
        file_write_atomically(path=Path(output), write=write)
    except FileWriteError as exc:
        raise UsageError(str(exc)) from exc


def _due_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"give the date as YYYY-MM-DD, not {value!r}") from exc


def _fraction(value: str) -> float | str:
    return AUTO if value == AUTO else positive_fraction(value)


def _planning_options(parser) -> None:
    parser.add_argument(
        "--expected-agreement",
        type=open_share,
        default=None,
        help=f"judge–gold agreement expected (default {DEFAULT_AGREEMENT})",
    )
    parser.add_argument(
        "--half-width",
        type=open_share,
        default=None,
        help=f"wanted half-width of its 95%% interval (default {DEFAULT_HALF_WIDTH})",
    )
    parser.add_argument(
        "--pilot", metavar="STUDY", help="estimate the design effect from this study's items"
    )


def _gate_options(parser) -> None:
    gate = parser.add_argument_group(
        "gate: what the judge must reach for this study to validate it"
    )
    # fmt: off
    gate.add_argument("--gate-agreement", type=fraction_0_1, default=GateConfig.agreement_min,
                      help="lower 95%% bound of agreement with the gold must reach this")
    gate.add_argument("--gate-margin", type=fraction_0_1,
                      default=GateConfig.noninferiority_margin,
                      help="non-inferiority: lower bound of judge − experts ≥ −margin")
    gate.add_argument("--gate-catastrophic-recall", type=fraction_0_1,
                      default=GateConfig.catastrophic_recall_min,
                      help="lower bound of recall on gold catastrophic hits")
    gate.add_argument("--gate-catastrophic-hits", type=non_negative_int,
                      default=GateConfig.catastrophic_min_hits,
                      help="gold catastrophic hits needed, else 'not enough data'")
    gate.add_argument("--gate-score-bias", type=non_negative_float,
                      default=GateConfig.score_bias_max,
                      help="judge − gold score of every model within ± this many points")
    # fmt: on


def _power_options(parser) -> None:
    power = parser.add_argument_group(
        "power: the chance each gate condition passes at the planned cases"
    )
    # fmt: off
    power.add_argument("--power", type=open_share, default=DEFAULT_POWER,
                       help=f"target power of every condition (default {DEFAULT_POWER})")
    power.add_argument("--expected-prevalence", type=fraction_0_1, default=None,
                       help="share of catastrophic criteria the gold marks met (default: the "
                       f"pilot study's, else {DEFAULT_PREVALENCE})")
    power.add_argument("--expected-recall", type=fraction_0_1, default=DEFAULT_RECALL,
                       help=f"the judge's catastrophic recall expected (default {DEFAULT_RECALL})")
    power.add_argument("--expected-difference", type=float, default=0.0,
                       help="judge − experts expected, for non-inferiority (default 0)")
    power.add_argument("--expected-bias", type=float, default=DEFAULT_SCORE_BIAS,
                       help="judge − gold case score, catastrophes aside, in points (default 0)")
    power.add_argument("--simulations", type=positive_int, default=DEFAULT_SIMULATIONS,
                       help=f"simulated studies for the score bias (default {DEFAULT_SIMULATIONS})")
    power.add_argument("--power-seed", type=non_negative_int, default=DEFAULT_SEED,
                       help="seed of the simulations")
    # fmt: on


def _gate_config(options) -> GateConfig:
    return GateConfig(
        agreement_min=options["gate_agreement"],
        noninferiority_margin=options["gate_margin"],
        catastrophic_recall_min=options["gate_catastrophic_recall"],
        catastrophic_min_hits=options["gate_catastrophic_hits"],
        score_bias_max=options["gate_score_bias"],
    )


def _assumptions(options) -> PowerAssumptions:
    prevalence = options["expected_prevalence"]
    return PowerAssumptions(
        target=options["power"],
        noninferiority_difference=options["expected_difference"],
        catastrophic_prevalence=DEFAULT_PREVALENCE if prevalence is None else prevalence,
        prevalence_source="default" if prevalence is None else "given",
        catastrophic_recall=options["expected_recall"],
        score_bias=options["expected_bias"],
        simulations=options["simulations"],
        seed=options["power_seed"],
    )


def power_warnings(power) -> list[str]:
    """One translated warning per condition no size within the dataset brings to the target."""
    warnings = []
    for c in power.unreachable:
        name = c.name if c.subject is None else f"{c.name} ({c.subject})"
        text = gettext(
            "%(condition)s is practically unreachable: even all %(available)d cases give it "
            "a %(power).0f%% chance to pass, below the target %(target).0f%%."
        ) % {"condition": name, "available": power.available,
             "power": 100 * c.power_at_available, "target": 100 * power.target}  # fmt: skip
        if c.name == "score_bias":
            text += " " + gettext(
                "Its interval is about ±%(half).1f points at %(cases)d cases: one catastrophic "
                "disagreement zeroes a case on one side only."
            ) % {"half": c.details["expected_half_width"], "cases": power.cases}
        warnings.append(text)
    return warnings


def _power_lines(power) -> list[str]:
    """Each condition's power at the planned cases and the cases it needs (English, as the
    CLI is; the warnings are translated)."""
    a = power.assumptions
    lines = [
        f"power at {power.cases} cases (target {power.target:.0%}; score bias: "
        f"{a.simulations} simulations, seed {a.seed}):"
    ]
    for c in power.conditions:
        name = c.name if c.subject is None else f"{c.name} {c.subject}"
        error = "" if c.mc_error is None else f" ± {c.mc_error:.3f} (Monte Carlo)"
        needed = f"needs {c.cases_needed} cases"
        if not c.reachable:
            needed = f"unreachable within {power.available} cases"
        extra = ""
        if c.name == "catastrophic_recall":
            extra = f"; {c.details['expected_gold_hits']:.1f} gold hits expected"
        elif c.name == "score_bias":
            extra = f"; interval ±{c.details['expected_half_width']:.1f} points"
        lines.append(f"  {name}: {c.power:.3f}{error}, {needed} [{c.method}]{extra}")
    joint = power.all_models
    if joint["models"] > 1:
        lines.append(
            f"  every model's score bias at once: {joint['power']:.3f} ± {joint['mc_error']:.3f}"
            + (f", needs {joint['cases_needed']} cases" if joint["cases_needed"] else "")
        )
    source = {"default": "default", "pilot": "the pilot study's", "given": "given"}
    lines.append(
        f"assumed: catastrophic prevalence {a.catastrophic_prevalence:.3f} "
        f"({source[a.prevalence_source]}), recall {a.catastrophic_recall}, false alarms "
        f"{a.catastrophic_false_alarm}, judge − experts {a.noninferiority_difference}, score "
        f"bias {a.score_bias} ± {a.case_spread} points per case, {a.case_score} points per "
        "catastrophic disagreement"
    )
    return lines + [f"warning: {w}" for w in power_warnings(power)]


def _plan_lines(plan) -> list[str]:
    """The plan for the command line (English, as the CLI is)."""
    source = (
        "estimated from the pilot study"
        if plan.icc_source == "pilot"
        else "default (no pilot study given)"
    )
    lines = [
        f"cases: {plan.cases} of {plan.available} (fraction {plan.fraction:.4f})",
        f"wanted: 95% interval half-width {plan.half_width} at agreement "
        f"{plan.expected_agreement}, reached in {plan.assurance:.0%} of studies "
        f"(expected half-width {plan.expected_half_width:.4f})",
        f"design effect: {plan.design_effect:.3f} = 1 + ((1 + cv²) × "
        f"{plan.items_per_case:.1f} items per case − 1) × ICC {plan.icc:.4f}, ICC {source}",
    ]
    if not plan.reachable:
        lines.append(
            f"the dataset has only {plan.available} cases: even all of them miss the half-width"
        )
    return lines


class Command(BaseCommand):
    help = "Create, open, close and export blind agreement studies."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="draw the sample and create a draft study")
        create.add_argument("name")
        create.add_argument("--dataset", help="required unless --pairwise")
        create.add_argument("--models", help="comma-separated model names; unless --pairwise")
        create.add_argument(
            "--pairwise",
            metavar="SET",
            help="a pairwise study over this set's pairs (its dataset and models)",
        )
        create.add_argument("--judge", action="append", default=[], help="judge name or run id")
        create.add_argument(
            "--fraction",
            type=_fraction,
            default=0.3,
            help='share of cases to sample, or "auto": as many as the planner needs',
        )
        _planning_options(create)
        create.add_argument(
            "--look-every",
            type=positive_int,
            default=None,
            metavar="K",
            help="look at the gate every K completed cases (group-sequential; may stop early)",
        )
        create.add_argument("--seed", type=non_negative_int, default=None)
        create.add_argument("--stratify", default="difficulty,primary_scene")
        create.add_argument("--lease-minutes", type=positive_int, default=30)
        create.add_argument("--show-ability", action="store_true")
        create.add_argument(
            "--adjudicate-splits",
            default="",
            help='ability codes (or "*") whose 2/1 splits a senior expert decides',
        )
        plan = sub.add_parser("plan", help="the cases a study needs for the interval wanted")
        plan.add_argument("--dataset", required=True)
        plan.add_argument("--models", required=True, help="comma-separated model names")
        _planning_options(plan)
        plan.add_argument("--format", choices=("table", "json"), default="table")
        _power_options(plan)
        _gate_options(plan)
        _gate_options(create)
        sub.add_parser("open").add_argument("name")
        close = sub.add_parser(
            "close",
            help="stop rating; shows the units still short of three ratings and asks first",
        )
        close.add_argument("name")
        close.add_argument(
            "--partial",
            choices=closing.CHOICES,
            default=None,
            help="units with some ratings: a senior expert decides what their ratings did not "
            f"settle, or drop them (default {closing.DEFAULT_PARTIAL})",
        )
        close.add_argument(
            "--unrated",
            choices=closing.CHOICES,
            default=None,
            help="units nobody rated: drop them from the sample (listed in the report with the "
            f"reason), or a senior expert decides them alone (default {closing.DEFAULT_UNRATED})",
        )
        close.add_argument(
            "--extend-to",
            type=_due_date,
            metavar="YYYY-MM-DD",
            help="do not close: keep the study open and move its due date to this day",
        )
        close.add_argument("--yes", action="store_true", help="close without asking")
        enrol = sub.add_parser("enrol", help="let experts who joined later take the study's units")
        enrol.add_argument("name")
        enrol.add_argument("usernames", nargs="*", metavar="USER")
        enrol.add_argument("--all-active", action="store_true", help="enrol every active expert")
        export = sub.add_parser("export", help="one row per (unit, criterion)")
        export.add_argument("name")
        export.add_argument("--format", choices=FORMATS, default="csv")
        export.add_argument("--output", "-o", default="-", help="file, or - for stdout")
        report = sub.add_parser("report", help="agreement report recomputed from the database")
        report.add_argument("name")
        report.add_argument("--format", choices=REPORT_FORMATS, default="json")
        report.add_argument("--output", "-o", default="-", help="file, or - for stdout")
        report.add_argument("--resamples", type=int, default=BootstrapSettings.resamples)
        report.add_argument("--seed", type=int, default=BootstrapSettings.seed)

    def handle(self, *args, action, **options):
        try:
            getattr(self, f"do_{action}")(**options)
        except (
            services.StudyError,
            AnnotationError,
            selectors.UnknownName,
            PlanningError,
        ) as exc:
            raise UsageError(str(exc)) from exc

    def _study(self, name: str):
        study = selectors.study_get(name=name)
        if study is None:
            raise UsageError(f"no study named {name!r}")
        return study

    def _plan(self, *, dataset, models, expected_agreement, half_width, pilot, **options):
        return study_plan(
            dataset=dataset,
            models=models,
            expected_agreement=DEFAULT_AGREEMENT
            if expected_agreement is None
            else expected_agreement,
            half_width=DEFAULT_HALF_WIDTH if half_width is None else half_width,
            pilot=None if pilot is None else self._study(pilot),
        )

    def do_plan(self, *, dataset, models, format, **options):
        data = selectors.dataset_newest(name=dataset)
        chosen = selectors.models_named(names=[n.strip() for n in models.split(",") if n.strip()])
        plan = self._plan(dataset=data, models=chosen, **options)
        power = study_power(
            dataset=data,
            models=chosen,
            plan=plan,
            gate=_gate_config(options).as_dict(),
            assumptions=_assumptions(options),
            pilot=None if options["pilot"] is None else self._study(options["pilot"]),
        )
        if format == "json":
            figures = power.as_dict()
            for entry, text in zip(figures["unreachable"], power_warnings(power), strict=True):
                entry["warning"] = text
            self.stdout.write(json.dumps(plan.as_dict() | {"power": figures}, indent=2))
        else:
            self.stdout.write("\n".join(_plan_lines(plan) + _power_lines(power)))

    def do_create(self, *, name, dataset, models, judge, fraction, seed, stratify, **options):
        if options["pairwise"] is not None:
            return self._create_pairwise(
                name=name,
                fraction=fraction,
                seed=seed,
                stratify=stratify,
                given=(dataset, models, judge),
                **options,
            )
        if dataset is None or models is None:
            raise UsageError("give --dataset and --models (or --pairwise SET)")
        data = selectors.dataset_newest(name=dataset)
        chosen = selectors.models_named(names=[n.strip() for n in models.split(",") if n.strip()])
        plan = None
        if fraction == AUTO:
            plan = self._plan(dataset=data, models=chosen, **options)
        elif any(options[k] is not None for k in ("expected_agreement", "half_width", "pilot")):
            raise UsageError(
                "--expected-agreement, --half-width and --pilot plan the fraction: "
                "give --fraction auto"
            )
        study = services.study_create(
            name=name,
            dataset=data,
            models=chosen,
            judge_runs=selectors.judge_runs_named(values=judge, dataset=data, models=chosen),
            fraction=fraction if plan is None else plan.fraction,
            seed=seed,
            stratify_by=[s.strip() for s in stratify.split(",") if s.strip()],
            lease_minutes=options["lease_minutes"],
            show_ability=options["show_ability"],
            adjudicate_splits=options["adjudicate_splits"],
            plan=plan,
            look_every=options["look_every"],
            gate=_gate_config(options),
        )
        if plan is not None:
            self.stdout.write("\n".join(_plan_lines(plan)))
        cases = study.planned_cases
        self.stdout.write(
            f"study {study.name} created (draft): {cases} cases, {study.units.count()} units, "
            f"seed {study.seed}, {len(study.sampling)} strata"
            + (
                f"; a senior adjudicates 2/1 splits on {', '.join(study.adjudicate_splits)}"
                if study.adjudicate_splits
                else ""
            )
        )

    def _create_pairwise(self, *, name, pairwise, fraction, seed, stratify, given, **options):
        given = [
            flag
            for flag, value in (
                *zip(("--dataset", "--models", "--judge"), given, strict=True),
                ("--adjudicate-splits", options["adjudicate_splits"]),
                ("--look-every", options["look_every"]),
                ("--fraction auto", fraction == AUTO or None),
                ("--gate-*", _gate_config(options) != GateConfig() or None),
            )
            if value
        ]
        if given:
            raise UsageError(
                f"{', '.join(given)}: not for a pairwise study (the set gives its dataset and "
                "models, a three-way split goes to a senior, the judge's pairwise runs of the "
                "set are compared)"
            )
        study = services.study_create(
            name=name,
            pair_set=selectors.pairwise_set_named(name=pairwise),
            fraction=fraction,
            seed=seed,
            stratify_by=[s.strip() for s in stratify.split(",") if s.strip()],
            lease_minutes=options["lease_minutes"],
            dataset=None,
            models=(),
        )
        self.stdout.write(
            f"pairwise study {study.name} created (draft): {study.planned_cases} cases, "
            f"{study.units.count()} pairs, seed {study.seed}, {len(study.sampling)} strata"
        )

    def do_open(self, *, name, **options):
        study = services.study_open(study=self._study(name))
        self.stdout.write(f"study {study.name} is open")

    def do_close(self, *, name, partial, unrated, extend_to, yes, **options):
        study = self._study(name)
        completion = selectors.study_completion(study=study)
        if extend_to is not None:
            if partial or unrated or yes:
                raise UsageError(
                    "--extend-to keeps the study open: no --partial, --unrated or --yes"
                )
            services.study_extend(study=study, due_date=extend_to)
            self.stdout.write(
                f"study {study.name}: {completion.units} units: {completion.describe()}; "
                f"left open, due {extend_to.isoformat()}"
            )
            return
        partial = partial or closing.DEFAULT_PARTIAL
        unrated = unrated or closing.DEFAULT_UNRATED
        services.study_check_closable(study=study)
        if not yes:
            self._confirm_close(study, completion, partial=partial, unrated=unrated)
        result = services.study_close(study=study, partial=partial, unrated=unrated)
        self.stdout.write(
            f"study {study.name} closed: {result['complete']} complete, "
            f"{result['partly_rated']} partly rated, {result['never_rated']} never rated units; "
            f"{result['gold']} got gold now, {result['dropped']} dropped from the sample; "
            f"{result['incomplete'] + result['awaiting']} units wait for a senior expert "
            f"({result['incomplete']} short of three ratings, {result['awaiting']} split)"
        )

    def _confirm_close(self, study, completion, *, partial: str, unrated: str) -> None:
        """Show what closing does to the short units and ask; no terminal, no close."""
        if not sys.stdin.isatty():
            raise UsageError(
                f"study {study.name} not closed: {completion.describe()} units; "
                "run it on a terminal to confirm, or pass --yes"
            )
        fate = {
            closing.SENIOR: "go to a senior expert, who decides every criterion",
            closing.DROP: "are dropped from the sample",
        }
        lines = [f"study {study.name}: {completion.units} units: {completion.describe()}"]
        if completion.partly_rated:
            lines.append(
                f"  {completion.partly_rated} partly rated units {fate[partial]} (--partial)"
            )
        if completion.never_rated:
            lines.append(
                f"  {completion.never_rated} never rated units {fate[unrated]} (--unrated)"
            )
        units, criteria = completion.senior_cost(partial=partial, unrated=unrated)
        lines.append(
            f"  the seniors get {units} units, up to {criteria} criteria to decide"
            if units
            else "  the seniors get no unit to decide"
        )
        if completion.short:
            lines.append(
                "  --extend-to YYYY-MM-DD keeps the study open with a later due date instead"
            )
        self.stdout.write("\n".join(lines))
        self.stdout.write(f"Close study {study.name} now? [y/N] ", ending="")
        self.stdout.flush()
        if sys.stdin.readline().strip().lower() not in {"y", "yes"}:
            raise UsageError(f"study {study.name} not closed")

    def do_enrol(self, *, name, usernames, all_active, **options):
        if bool(usernames) == all_active:
            raise UsageError("give either user names or --all-active")
        study = self._study(name)
        result = services.study_enrol(study=study, usernames=usernames, all_active=all_active)
        n = len(result.enrolled)
        line = (
            f"enrolled {n} expert{'' if n == 1 else 's'} in study {study.name}: "
            + ", ".join(result.enrolled)
            if n
            else f"nobody new to enrol in study {study.name}"
        )
        if result.already:
            line += f"; already enrolled: {', '.join(result.already)}"
        self.stdout.write(line)

    def do_export(self, *, name, format, output, **options):
        study = self._study(name)
        rows = selectors.study_export_rows(study=study)
        written = []
        if output == "-":
            written.append(rows_write(rows=rows, fmt=format, out=self.stdout))
        else:
            _write_atomically(
                output, lambda out: written.append(rows_write(rows=rows, fmt=format, out=out))
            )
        self.stderr.write(f"{written[0]} rows exported from study {name}")

    def do_report(self, *, name, format, output, resamples, seed, **options):
        if resamples < 100:
            raise UsageError(f"--resamples must be at least 100, got {resamples}")
        study = self._study(name)
        report = study_report_compute(
            study=study, bootstrap=BootstrapSettings(resamples=resamples, seed=seed)
        )
        text = report_render(report, fmt=format)
        if output == "-":
            self.stdout.write(text, ending="")
        else:
            _write_atomically(output, lambda out: out.write(text))
            self.stderr.write(f"study report of {name} written to {output} ({format})")
