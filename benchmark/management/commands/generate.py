from django.core.management.base import BaseCommand

from benchmark.management.commands._llm_args import (
    SYSTEM_CHECKS,
    add_endpoint_arguments,
    add_run_arguments,
    finish,
    job_run,
    run_options,
    summary_lines,
)
from benchmark.models import GenerationRun
from benchmark.selectors.datasets import DATASET_HELP, DatasetNotFound, dataset_resolve
from benchmark.services.generation import (
    MODES,
    generation_run_execute,
    generation_run_start,
    model_resolve,
)
from benchmark.services.llm_jobs import LLMJobConfigError, NothingToRetry, run_options_check
from config.cli_exits import UsageError


class Command(BaseCommand):
    help = (
        "Generate a model's answers to a dataset's dialogues through an OpenAI-compatible "
        "endpoint. Answered cases are skipped; a re-run continues where the last one stopped."
    )
    requires_system_checks = SYSTEM_CHECKS

    def add_arguments(self, parser):
        parser.add_argument("--model", required=True, help="model under test (created if new)")
        parser.add_argument("--endpoint-model", help="model id at the endpoint (default: --model)")
        parser.add_argument("--dataset", help=DATASET_HELP)
        parser.add_argument("--mode", choices=MODES, default="all")
        add_endpoint_arguments(parser)
        add_run_arguments(parser)

    def handle(self, *args, **options):
        asked = run_options(options)
        try:
            dataset = dataset_resolve(name=options["dataset"])
            run_options_check(dataset=dataset, options=asked)
            model = model_resolve(
                name=options["model"],
                endpoint_model=options["endpoint_model"],
                base_url=options["base_url"],
            )
            run = generation_run_start(
                model=model,
                dataset=dataset,
                mode=options["mode"],
                options=asked,
                retry_errors=options["retry_errors"],
            )
        except NothingToRetry as nothing:
            self.stdout.write(f"generation run {nothing.run_id} has no errors: nothing to retry")
            return
        except (DatasetNotFound, LLMJobConfigError) as exc:
            raise UsageError(str(exc)) from None
        if run.status == GenerationRun.Status.FINISHED:
            self.stdout.write(
                f"generation run {run.pk} ({model} on {dataset}) already finished and every "
                "case has an answer; nothing sent"
            )
            return
        outcome = job_run(generation_run_execute, run, "cases", options)
        self.stdout.write("\n".join(summary_lines("generation run", outcome)))
        finish(outcome, "cases", options)
