"""`heartbench run`: the upstream `run_evaluation.py` command line, through our engine.

An upstream user's command works unchanged (flags keep their underscores). The mapping is
documented in docs/upstream.md.
"""

import json
import re
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand

from benchmark.importing import ImportFailure
from benchmark.llm.client import RetryPolicy
from benchmark.llm.credentials import api_key_resolve
from benchmark.llm.progress import ProgressWriter
from benchmark.llm.prompts import DEFAULT_JUDGE_TEMPLATE, template_load
from benchmark.management.commands._llm_args import (
    SYSTEM_CHECKS,
    finish,
    summary_lines,
)
from benchmark.models import Response
from benchmark.selectors.datasets import DatasetNotFound
from benchmark.selectors.runs import dataset_cases
from benchmark.services.generation import (
    MODES,
    generation_run_execute,
    generation_run_start,
    model_resolve,
)
from benchmark.services.imports import answers_import, dataset_import
from benchmark.services.judging import judge_resolve, judge_run_execute, judge_run_start
from benchmark.services.llm_jobs import EngineOptions, LLMJobConfigError
from benchmark.taxonomy import BY_CODE
from config.cli_exits import UsageError
from config.cli_types import non_negative_int, positive_int
from config.files import file_write_atomically

UPSTREAM_JUDGE_MODEL = "claude-sonnet-4-5-20250929"
UPSTREAM_ANSWER_FILE = "./data/temp_answers.jsonl"


def upstream_base_url(url: str) -> str:
    """Upstream appends /v1 to a base URL that does not end with it; so do we here."""
    return url if url.endswith("/v1") else re.sub(r"/$", "", url) + "/v1"


class Command(BaseCommand):
    help = (
        "Generate answers and judge them with the upstream run_evaluation.py flags "
        "(see docs/upstream.md), with our concurrency, cache, resume and error handling."
    )
    requires_system_checks = SYSTEM_CHECKS

    def add_arguments(self, parser):
        parser.add_argument("--input_file", type=Path, default=Path("./data/question_all.jsonl"))
        parser.add_argument("--mode", choices=MODES, default="all")
        parser.add_argument("--api_key", help="API key (default: $HEARTBENCH_API_KEY)")
        parser.add_argument("--model", help="model to evaluate (endpoint model id)")
        parser.add_argument("--base_url", help="API base URL")
        parser.add_argument("--generate_only", action="store_true")
        parser.add_argument("--score_only", action="store_true")
        parser.add_argument("--answer_file", type=Path)
        parser.add_argument("--max_workers", type=positive_int, default=16, help="concurrency")
        parser.add_argument(
            "--max_retries", type=non_negative_int, default=3, help="retries per request"
        )
        parser.add_argument("--judge_model", default=UPSTREAM_JUDGE_MODEL, help="(ours)")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **o):
        if o["score_only"] and not o["answer_file"]:
            raise UsageError("Must specify --answer_file when using --score_only")
        if o["generate_only"] and o["score_only"]:
            raise UsageError("Cannot use --generate_only and --score_only simultaneously")
        if not o["base_url"]:
            raise UsageError("--base_url is required")
        if not o["score_only"] and not o["model"]:
            raise UsageError("--model is required to generate answers")
        base_url = upstream_base_url(o["base_url"])
        engine = EngineOptions(
            api_key=api_key_resolve(o["api_key"]),
            base_url=base_url,
            concurrency=o["max_workers"],
            retry=RetryPolicy(max_attempts=max(1, o["max_retries"]) + 1),
        )
        progress = None if o["no_progress"] else ProgressWriter()
        answer_file = o["answer_file"] or Path(UPSTREAM_ANSWER_FILE)
        finished = []  # (outcome, what): exit status decided once everything ran
        try:
            dataset = dataset_import(path=o["input_file"]).dataset
            if o["score_only"]:
                name = o["model"] or f"answers:{answer_file.stem}"
                model = answers_import(
                    path=answer_file,
                    model_name=name,
                    dataset_name=f"{dataset.name}:v{dataset.version}",
                ).model
            else:
                model = model_resolve(name=o["model"], endpoint_model=o["model"], base_url=base_url)
                run = generation_run_start(model=model, dataset=dataset, mode=o["mode"])
                outcome = generation_run_execute(
                    run_id=run.pk, options=engine, on_progress=progress
                )
                self.stdout.write("\n".join(summary_lines("generation run", outcome)))
                _write_answers(answer_file, model=model, dataset=dataset, mode=o["mode"])
                self.stdout.write(f"answers saved to: {answer_file}")
                finished.append((outcome, "cases"))
                if o["generate_only"]:
                    finish(outcome, "cases")
                    return
            template = template_load(DEFAULT_JUDGE_TEMPLATE)
            judge = judge_resolve(
                name=o["judge_model"],
                endpoint_model=o["judge_model"],
                base_url=base_url,
                template=template,
            )
            run, todo = judge_run_start(judge=judge, model=model, dataset=dataset)
            if todo:
                outcome = judge_run_execute(run_id=run.pk, options=engine, on_progress=progress)
                self.stdout.write("\n".join(summary_lines("judge run", outcome)))
                finished.append((outcome, "criteria"))
            else:
                self.stdout.write(f"judge run {run.pk} already finished; nothing sent")
        except (ImportFailure, DatasetNotFound, LLMJobConfigError) as exc:
            raise UsageError(str(exc)) from None
        call_command(
            "leaderboard",
            dataset=f"{dataset.name}:v{dataset.version}",
            judge=judge.name,
            split=o["mode"],  # --mode hard judged the hard cases: their board, not all cases'
            stdout=self.stdout,
        )
        for outcome, what in finished:
            finish(outcome, what)


def _write_answers(path: Path, *, model, dataset, mode: str) -> None:
    """The upstream answer file: each input row plus ``response``; written whole or not at all."""
    answers = dict(
        Response.objects.filter(model=model, case__dataset=dataset).values_list("case_id", "text")
    )
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(out) -> None:
        for case in dataset_cases(dataset=dataset, mode=mode):
            row = {
                "question_id": case.question_id,
                "dialogue": case.dialogue,
                "rubric": [
                    {
                        "dimension": BY_CODE[item.ability].zh,
                        "score": item.points,
                        "content": item.text,
                    }
                    for item in case.rubric.all()
                ],
                "difficulty": case.difficulty,
                "primary_scene": case.primary_scene,
                "secondary_scene": case.secondary_scene,
                "response": answers.get(case.pk),
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")

    file_write_atomically(path=path, write=write)
