"""`heartbench agreement --ratings FILE [--judge FILE] [--categories A,B] [--cluster COLUMN]
[--level nominal|ordinal|interval|ratio] [--latent-judge held-out|rater] [--format json|table]`."""

import json
import math
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from config.cli_exits import UsageError
from config.cli_types import comma_list, int_at_least, non_negative_int
from validation.label_spellings import (
    LabelReader,
    LabelSchemeError,
    NumberReader,
    scheme_declare,
)
from validation.ratings_csv import RatingsFileError, judge_csv_read, ratings_csv_read
from validation.statistics import (
    NONINFERIORITY_DELTA,
    BootstrapSettings,
    agreement_summary,
    ratings_build,
)
from validation.statistics.levels import LEVELS, NUMERIC_LEVELS
from validation.statistics.summary import agreement_table


class Command(BaseCommand):
    help = (
        "Agreement among raters, and of a judge with their majority, for labels made anywhere: "
        "ratings CSV unit,item,rater,label; judge CSV unit,item,label (empty label = missing)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = BootstrapSettings()
        parser.add_argument("--ratings", type=Path, required=True, help="unit,item,rater,label")
        parser.add_argument("--judge", type=Path, help="unit,item,label")
        parser.add_argument("--format", choices=("json", "table"), default="json")
        parser.add_argument(
            "--categories",
            type=comma_list,
            help="the label scheme, e.g. hit,miss (default: the usual spellings of a binary "
            "label, 1/0, true/false, yes/no, hit/miss, met/not met, 是/否, 命中/未命中, one "
            "spelling per file; else the file's own words)",
        )
        parser.add_argument(
            "--cluster",
            metavar="COLUMN",
            help="the ratings file's column whose values the bootstrap resamples, one per unit "
            "(default: case when the file has that column, else unit)",
        )
        parser.add_argument(
            "--latent-judge",
            choices=("held-out", "rater"),
            default="held-out",
            help="the latent-class (Dawid-Skene) estimate: hold the judge out and measure it "
            "against the experts' posterior (default), or fit it as one more rater",
        )
        parser.add_argument(
            "--level",
            choices=LEVELS,
            default="nominal",
            help="the labels' level of measurement, for Krippendorff's alpha (and, for interval "
            "and ratio numbers, the ICC): ordinal takes --categories in their order or numbers; "
            "interval and ratio take numbers (default nominal)",
        )
        parser.add_argument("--resamples", type=int_at_least(100), default=defaults.resamples)
        parser.add_argument("--seed", type=non_negative_int, default=defaults.seed)
        parser.add_argument(
            "--noninferiority-delta",
            type=float,
            default=NONINFERIORITY_DELTA,
            help="the judge passes non-inferiority when the lower 95%% bound of judge − experts "
            f"(pooled macro-F1, each against the other two) is at least this (default "
            f"{NONINFERIORITY_DELTA})",
        )

    def handle(self, *args, **options) -> None:
        delta = options["noninferiority_delta"]
        if not (math.isfinite(delta) and delta <= 0):
            raise UsageError("--noninferiority-delta: a margin is a number at most 0")
        level = options["level"]
        if options["categories"] and level in NUMERIC_LEVELS:
            raise UsageError(f"--categories: with --level {level} the labels are numbers")
        try:
            scheme = scheme_declare(options["categories"]) if options["categories"] else None
        except LabelSchemeError as exc:
            raise UsageError(f"--categories: {exc}") from exc
        if level == "nominal" or scheme is not None:
            rating_labels, judge_labels = LabelReader(scheme=scheme), LabelReader(scheme=scheme)
        else:
            rating_labels, judge_labels = NumberReader(level=level), NumberReader(level=level)
        try:
            rated = ratings_csv_read(
                path=options["ratings"], labels=rating_labels, cluster=options["cluster"]
            )
            judge = (
                judge_csv_read(path=options["judge"], labels=judge_labels, ratings=rating_labels)
                if options["judge"]
                else None
            )
        except RatingsFileError as exc:
            raise UsageError(str(exc)) from exc
        ratings = ratings_build(
            records=rated.records,
            categories=rating_labels.categories(),
            extra_labels=[label for label in (judge or {}).values() if label is not None],
            cluster_of=rated.clusters,
        )
        summary = agreement_summary(
            ratings=ratings,
            judge_labels=judge,
            bootstrap=BootstrapSettings(resamples=options["resamples"], seed=options["seed"]),
            delta=delta,
            cluster=rated.cluster,
            positive=scheme.binary[0] if scheme is not None and scheme.binary else None,
            judge_as_rater=options["latent_judge"] == "rater",
            level=level,
            values=[float(c) for c in ratings.categories]
            if isinstance(rating_labels, NumberReader)
            else list(range(ratings.n_categories)),
        )
        summary["label_spellings"] = {
            "ratings": rating_labels.spelling,
            "judge": judge_labels.spelling if options["judge"] else None,
        }
        if options["format"] == "json":
            self.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(agreement_table(summary), ending="")
            spelled = ", ".join(
                f"{name} spelled {spelling}"
                for name, spelling in summary["label_spellings"].items()
                if spelling
            )
            categories = ", ".join(str(c) for c in summary["categories"])
            self.stdout.write(f"Categories: {categories}" + (f" ({spelled})" if spelled else ""))
