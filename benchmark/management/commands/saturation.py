"""`heartbench saturation --dataset D [--models A,B] [--judge J] [--easy-threshold 80]
[--hard-quantile Q] [--format json|table]`: saturated criteria, too-easy and hard cases."""

import json

from django.core.management.base import BaseCommand

from benchmark.saturation import (
    DEFAULT_EASY_THRESHOLD,
    DEFAULT_HARD_QUANTILE,
    SaturationError,
    saturation_compute,
)
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve
from benchmark.selectors.leaderboard import LeaderboardError, dataset_hits
from config.cli_exits import UsageError
from config.cli_types import comma_list, non_negative_float, positive_fraction


def _table(data: dict, *, dataset: str, judge: str) -> str:
    summary = data["summary"]
    lines = [
        f"Saturation on {dataset}, judge {judge}, models {', '.join(summary['models'])}",
        f"criteria: {summary['criteria']}, saturated {summary['saturated']}; "
        f"cases: {summary['cases']}, too easy (mean > {summary['easy_threshold']:g}) "
        f"{summary['too_easy']}, proposed hard (mean ≤ {summary['hard_cutoff']:.2f}, the "
        f"{summary['hard_quantile']:g} quantile) {summary['proposed_hard']} "
        f"({summary['hard_share']:.0%})",
    ]
    if summary["excluded_cases"]:
        left_out = ", ".join(
            f"{case['question_id']} ({', '.join(case['models'])})"
            for case in summary["excluded_cases"]
        )
        lines.append(f"left out (an error or no verdict): {left_out}")
    lines += ["", "saturated criteria (question_id #position)"]
    lines += [
        f"  {c['question_id']} #{c['position']}" for c in data["criteria"] if c["saturated"]
    ] or ["  none"]
    lines += ["", "cases: question_id  mean score  flags"]
    for case in data["cases"]:
        flags = [name for name in ("too_easy", "proposed_hard") if case[name]]
        lines.append(f"  {case['question_id']}  {case['mean_score']:6.2f}  {' '.join(flags)}")
    return "\n".join(lines) + "\n"


class Command(BaseCommand):
    help = (
        "From one judge's verdicts on several models: the criteria every model hit "
        "(saturated), the cases whose mean question score is above a threshold (too easy) "
        "and those in a bottom quantile (proposed hard). Reads only."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dataset", required=True, help="NAME or NAME:vN")
        parser.add_argument(
            "--models", type=comma_list, help="A,B,... (default: every model the judge ran on)"
        )
        parser.add_argument(
            "--judge", help="default: the judge covering the most models, as the leaderboard"
        )
        parser.add_argument(
            "--easy-threshold",
            type=non_negative_float,
            default=DEFAULT_EASY_THRESHOLD,
            help=f"a case is too easy above this mean score (default {DEFAULT_EASY_THRESHOLD:g})",
        )
        parser.add_argument(
            "--hard-quantile",
            type=positive_fraction,
            default=DEFAULT_HARD_QUANTILE,
            help="propose as hard the cases at or under this quantile of the mean scores "
            f"(default {DEFAULT_HARD_QUANTILE:g}, the released data's hard share is 0.28)",
        )
        parser.add_argument("--format", choices=["table", "json"], default="table")

    def handle(self, *args, **options):
        try:
            dataset = dataset_resolve(name=options["dataset"])
            found = dataset_hits(dataset=dataset, judge=options["judge"], models=options["models"])
            result = saturation_compute(
                question_ids=found.question_ids,
                layout=found.layout,
                hits=found.hits,
                easy_threshold=options["easy_threshold"],
                hard_quantile=options["hard_quantile"],
            )
        except (DatasetNotFound, LeaderboardError, SaturationError) as exc:
            raise UsageError(str(exc)) from exc
        data = result.as_dict()
        data["summary"] = {"dataset": str(dataset), "judge": found.judge, **data["summary"]}
        if options["format"] == "json":
            self.stdout.write(json.dumps(data, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(_table(data, dataset=str(dataset), judge=found.judge), ending="")
