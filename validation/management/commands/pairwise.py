"""`heartbench pairwise rank --comparisons FILE [--format json|table] [--resamples N]
[--seed N]`: a ranking from pairwise choices made anywhere; `heartbench pairwise draw`
(benchmark's): a named set of response pairs drawn from the answers in the platform."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from benchmark.management.commands._pairwise import add_draw_parser, pairwise_draw
from config.cli_exits import UsageError
from config.cli_types import int_at_least, non_negative_int
from validation.pairwise_csv import comparisons_csv_read
from validation.pairwise_rank import rank_summary, rank_table
from validation.ratings_csv import RatingsFileError
from validation.statistics.preference import PreferenceError
from validation.statistics.results import BootstrapSettings


class Command(BaseCommand):
    help = "Pairwise comparisons: Bradley-Terry strengths and win rates with case intervals."

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = BootstrapSettings()
        sub = parser.add_subparsers(dest="action", required=True)
        rank = sub.add_parser(
            "rank",
            help="rank models from a CSV case,model_a,model_b,winner (a, b or tie; a tie is "
            "half a win for each side)",
        )
        rank.add_argument("--comparisons", type=Path, required=True, metavar="FILE")
        rank.add_argument("--format", choices=("json", "table"), default="json")
        rank.add_argument("--resamples", type=int_at_least(100), default=defaults.resamples)
        rank.add_argument("--seed", type=non_negative_int, default=defaults.seed)
        add_draw_parser(sub)  # benchmark's: a set of response pairs from the stored answers

    def handle(self, *args, action, **options) -> None:
        getattr(self, f"do_{action}")(**options)

    def do_draw(self, **options) -> None:
        pairwise_draw(self, **options)

    def do_rank(self, *, comparisons, format, resamples, seed, **options) -> None:
        try:
            read = comparisons_csv_read(path=comparisons)
            summary = rank_summary(
                read, bootstrap=BootstrapSettings(resamples=resamples, seed=seed)
            )
        except RatingsFileError as exc:
            raise UsageError(str(exc)) from exc
        except PreferenceError as exc:
            raise UsageError(f"{comparisons}: {exc}") from exc
        if format == "json":
            self.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(rank_table(summary), ending="")
