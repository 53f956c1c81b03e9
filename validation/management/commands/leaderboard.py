import json
from pathlib import Path

from django.core.management.base import BaseCommand

from benchmark.leaderboard_html import render_html
from benchmark.leaderboard_render import render_csv, render_table
from benchmark.leaderboard_rules import DEFAULT_MIN_COVERAGE
from benchmark.scoring import SCORING_MODES
from benchmark.selectors.datasets import DATASET_HELP, DatasetNotFound, dataset_resolve
from benchmark.selectors.leaderboard import SPLITS, LeaderboardError
from benchmark.selectors.pairwise import PairwiseSetNotFound, pairwise_set_get
from benchmark.services.stored_board import leaderboard_keep
from benchmark.stored_rows import StoredValueError
from config.cli_exits import UsageError
from config.cli_types import fraction_0_1, positive_int
from config.files import FileWriteError, file_write_atomically
from validation.selectors.badge import leaderboard_gate


class Command(BaseCommand):
    help = "Score every model judged on a dataset and print the leaderboard."

    def add_arguments(self, parser):
        parser.add_argument("--dataset", help=DATASET_HELP)
        parser.add_argument("--split", choices=SPLITS, help="default: all")
        parser.add_argument("--scoring", choices=SCORING_MODES, help="default: paper")
        parser.add_argument(
            "--judge",
            help="compare the models under this judge (default: the judge covering the most "
            "models, then the most scored cases, then the first by name; rows never mix judges)",
        )
        parser.add_argument(
            "--min-coverage",
            type=fraction_0_1,
            help="rank only rows whose scored cases reach this share of the split's cases "
            f"(default {DEFAULT_MIN_COVERAGE}); the others are shown below, without a rank",
        )
        parser.add_argument(
            "--run",
            type=positive_int,
            action="append",
            default=[],
            dest="run_ids",
            metavar="ID",
            help="show this judge run as its model's row instead of the newest (repeatable; "
            "the runs' judge is the board's)",
        )
        parser.add_argument(
            "--pairwise",
            metavar="SET",
            help="the pairwise board instead: the judge's choices over this pairwise set ranked "
            "by Bradley-Terry with case intervals, beside the win rates (table or json; --judge "
            "picks the judge, default the one with the most usable pairs)",
        )
        parser.add_argument("--format", choices=["table", "json", "csv", "html"], default="table")
        parser.add_argument("--output", help="write to this file (whole or not at all)")

    def handle(self, *args, **options):
        if options["pairwise"]:
            self._write(self._pairwise(options), options["output"])
            return
        try:
            dataset = dataset_resolve(name=options["dataset"])
            # The page's entry point: the board kept as data, computed only when not kept.
            board = leaderboard_keep(
                dataset=dataset,
                split=options["split"] or "all",
                scoring=options["scoring"] or "paper",
                judge=options["judge"],
                min_coverage=DEFAULT_MIN_COVERAGE
                if options["min_coverage"] is None
                else options["min_coverage"],
                run_ids=options["run_ids"],
            )
        except (DatasetNotFound, LeaderboardError, StoredValueError) as exc:
            raise UsageError(str(exc)) from exc
        gate = None if options["format"] == "csv" else leaderboard_gate(dataset=dataset)
        if options["format"] == "html":
            text = render_html(board, gate=gate)
        elif options["format"] == "json":
            text = json.dumps({**board, "gate": gate}, ensure_ascii=False, indent=2) + "\n"
        elif options["format"] == "csv":
            text = render_csv(board)
        else:
            text = render_table(board, gate=gate)
        self._write(text, options["output"])

    def _pairwise(self, options) -> str:
        # Deferred: the board's statistics load numpy, which the rubric board does not need.
        from validation.pairwise_board import (
            PairwiseBoardError,
            pairwise_board,
            pairwise_board_table,
        )

        rubric_only = ["dataset", "split", "scoring", "min_coverage"]
        given = [f"--{o.replace('_', '-')}" for o in rubric_only if options[o] is not None]
        given += ["--run"] if options["run_ids"] else []
        if given:
            raise UsageError(f"{', '.join(given)}: for the rubric board only (--pairwise ranks "
                             "the set's own pairs)")  # fmt: skip
        if options["format"] not in ("table", "json"):
            raise UsageError("the pairwise board is written as table or json")
        try:
            pair_set = pairwise_set_get(name=options["pairwise"])
            board = pairwise_board(pair_set=pair_set, judge=options["judge"])
        except (PairwiseSetNotFound, PairwiseBoardError) as exc:
            raise UsageError(str(exc)) from exc
        if options["format"] == "json":
            return json.dumps(board, ensure_ascii=False, indent=2) + "\n"
        return pairwise_board_table(board)

    def _write(self, text: str, output: str | None) -> None:
        if not output:
            self.stdout.write(text, ending="")
            return
        try:
            file_write_atomically(path=Path(output), write=lambda out: out.write(text))
        except FileWriteError as exc:
            raise UsageError(str(exc)) from exc
