import json
from pathlib import Path

from django.core.management.base import BaseCommand

from benchmark.inspect_log import InspectUnavailable, inspect_log_write, inspect_require
from benchmark.models import JudgeRun
from benchmark.scoring import SCORING_MODES
from benchmark.selectors.leaderboard import judge_run_scores
from benchmark.selectors.run_log import judge_run_log_header, judge_run_log_lines
from benchmark.selectors.runs import judge_run_get
from config.cli_exits import UsageError
from config.cli_types import positive_int
from config.files import FileWriteError, file_write_atomically

FORMATS = ("inspect", "jsonl")


class Command(BaseCommand):
    help = (
        "Write a judge run as a per-answer log: an Inspect AI eval log (`inspect view` opens "
        "it; needs the inspect extra) or JSON Lines (`heartbench schema export-log`)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--run", type=positive_int, required=True, help="the judge run's id")
        parser.add_argument("--format", choices=FORMATS, required=True)
        parser.add_argument("--scoring", choices=SCORING_MODES, default="paper")
        parser.add_argument(
            "--output",
            help="write to this file, whole or not at all (jsonl: default stdout; inspect: "
            "required, FILE.eval or FILE.json)",
        )

    def handle(self, *args, **options):
        fmt, output = options["format"], options["output"]
        try:
            if fmt == "inspect":
                inspect_require()
                if not output:
                    raise UsageError("--format inspect writes a file: give --output FILE.eval")
            run = judge_run_get(run_id=options["run"])
        except InspectUnavailable as exc:
            raise UsageError(str(exc)) from exc
        except JudgeRun.DoesNotExist as exc:
            raise UsageError(f"no judge run with id {options['run']}") from exc
        scores = judge_run_scores(run=run, scoring=options["scoring"])
        lines = judge_run_log_lines(run=run, scores=scores)
        try:
            if fmt == "inspect":
                inspect_log_write(
                    path=Path(output),
                    header=judge_run_log_header(run=run),
                    lines=lines,
                    model=scores.model,
                )
            elif output:
                file_write_atomically(path=Path(output), write=lambda out: _jsonl(lines, out))
            else:
                _jsonl(lines, self.stdout)
        except FileWriteError as exc:
            raise UsageError(str(exc)) from exc


def _jsonl(lines, out) -> None:
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
