from pathlib import Path

from django.core.management.base import BaseCommand

from benchmark.importing import DIFFICULTIES, ImportFailure
from benchmark.services.imports import dataset_import
from config.cli_exits import UsageError


class Command(BaseCommand):
    help = (
        "Import a HeartBench dataset in the upstream JSONL format. Every line is validated "
        "first; any error names its line and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="upstream JSONL file (one case per line)")
        parser.add_argument("--name", help="dataset name (default: the file name without suffix)")
        parser.add_argument("--source", help="where the data came from (default: the file name)")
        parser.add_argument("--licence", default="", help="licence note shown with the dataset")
        parser.add_argument("--demo", action="store_true", help="mark the dataset as demo data")
        parser.add_argument(
            "--difficulty",
            choices=DIFFICULTIES,
            help="for lines without one (default: the file name's, as in question_hard.jsonl)",
        )
        parser.add_argument(
            "--allow-copy",
            action="store_true",
            help="import content already imported under another name as a second dataset",
        )

    def handle(self, *args, **options):
        try:
            result = dataset_import(
                path=options["path"],
                name=options["name"],
                source=options["source"],
                licence_note=options["licence"],
                is_demo=options["demo"],
                difficulty=options["difficulty"],
                allow_copy=options["allow_copy"],
            )
        except ImportFailure as failure:
            raise UsageError(str(failure)) from None
        dataset, scan = result.dataset, result.scan
        if result.created:
            split = ", ".join(f"{n:,} {level}" for level, n in scan.difficulty_counts.items() if n)
            self.stdout.write(
                f"imported {dataset}: {scan.case_count:,} cases ({split}), "
                f"{scan.criterion_count:,} criteria"
            )
        else:
            self.stdout.write(f"already imported as {dataset}; nothing changed")
        for warning in scan.warnings:
            notice = f"warning: line {warning.line}: {warning.message}"
            self.stdout.write(self.style.WARNING(notice))
        if scan.warnings:
            self.stdout.write(f"{len(scan.warnings)} data warnings (kept on the dataset)")
