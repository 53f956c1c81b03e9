from pathlib import Path

from django.core.management.base import BaseCommand

from benchmark.importing import ImportFailure
from benchmark.selectors.datasets import DATASET_HELP, DatasetNotFound
from benchmark.services.imports import DEFAULT_JUDGE, verdicts_import
from config.cli_exits import UsageError


class Command(BaseCommand):
    help = (
        "Import judge verdicts from an upstream scored file (rows with question_id and "
        "score_detail) as one judge run. Any error names its line and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="upstream scored file (JSONL)")
        parser.add_argument("--model", required=True, help="the judged model's name")
        parser.add_argument(
            "--judge", default=DEFAULT_JUDGE, help=f"judge name (default: {DEFAULT_JUDGE})"
        )
        parser.add_argument("--dataset", help=DATASET_HELP)
        parser.add_argument(
            "--lenient",
            action="store_true",
            help="pad short verdict lists with 0 and truncate long ones, as the upstream scorer",
        )

    def handle(self, *args, **options):
        try:
            result = verdicts_import(
                path=options["path"],
                model_name=options["model"],
                judge_name=options["judge"],
                dataset_name=options["dataset"],
                lenient=options["lenient"],
            )
        except (ImportFailure, DatasetNotFound) as failure:
            raise UsageError(str(failure)) from None
        if not result.created:
            self.stdout.write(f"already imported as judge run {result.run.pk}; nothing changed")
            return
        stats = result.stats
        self.stdout.write(
            f"judge run {result.run.pk}: {result.judge} on {result.model} ({result.dataset}): "
            f"{stats['scored_cases']:,} cases scored, {stats['error_cases']:,} judge errors, "
            f"{stats['unanswered']:,} unanswered, {stats['verdicts']:,} verdicts"
        )
        if stats["refitted"]:
            self.stdout.write(
                self.style.WARNING(
                    f"--lenient padded or truncated {stats['refitted']:,} verdict lists"
                )
            )
        if stats["responses_created"]:
            self.stdout.write(f"{stats['responses_created']:,} answers taken from the file")
