from pathlib import Path

from django.core.management.base import BaseCommand

from benchmark.importing import ImportFailure
from benchmark.selectors.datasets import DATASET_HELP, DatasetNotFound
from benchmark.services.imports import answers_import
from config.cli_exits import UsageError


class Command(BaseCommand):
    help = (
        "Import a model's answers from an upstream answer file (rows with question_id and "
        "response). Any error names its line and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="upstream answer file (JSONL)")
        parser.add_argument("--model", required=True, help="model name (created if new)")
        parser.add_argument("--dataset", help=DATASET_HELP)

    def handle(self, *args, **options):
        try:
            result = answers_import(
                path=options["path"], model_name=options["model"], dataset_name=options["dataset"]
            )
        except (ImportFailure, DatasetNotFound) as failure:
            raise UsageError(str(failure)) from None
        self.stdout.write(
            f"{result.model} on {result.dataset}: {result.created:,} answers imported, "
            f"{result.unchanged:,} already there, {result.missing:,} missing "
            f"(failed generation) of {result.rows:,} rows"
        )
