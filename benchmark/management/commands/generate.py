from django.core.management.base import BaseCommand, CommandError

from benchmark.management.commands._llm_args import (
    EXIT_CONFIG,
    SYSTEM_CHECKS,
    add_endpoint_arguments,
    engine_options,
    finish,
    progress_writer,
    summary_lines,
)
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve
from benchmark.services.generation import (
    MODES,
    generation_run_execute,
    generation_run_start,
    model_resolve,
)
from benchmark.services.llm_jobs import LLMJobConfigError


class Command(BaseCommand):
    help = (
        "Generate a model's answers to a dataset's dialogues through an OpenAI-compatible "
        "endpoint. Answered cases are skipped; a re-run continues where the last one stopped."
    )
    requires_system_checks = SYSTEM_CHECKS

    def add_arguments(self, parser):
        parser.add_argument("--model", required=True, help="model under test (created if new)")
        parser.add_argument("--endpoint-model", help="model id at the endpoint (default: --model)")
        parser.add_argument("--dataset", help="NAME or NAME:vN (default: the latest imported)")
        parser.add_argument("--mode", choices=MODES, default="all")
        add_endpoint_arguments(parser)

    def handle(self, *args, **options):
        try:
            dataset = dataset_resolve(name=options["dataset"])
            model = model_resolve(
                name=options["model"],
                endpoint_model=options["endpoint_model"],
                base_url=options["base_url"],
            )
            run = generation_run_start(model=model, dataset=dataset, mode=options["mode"])
            outcome = generation_run_execute(
                run_id=run.pk, options=engine_options(options), on_progress=progress_writer(options)
            )
        except (DatasetNotFound, LLMJobConfigError) as exc:
            raise CommandError(str(exc), returncode=EXIT_CONFIG) from None
        self.stdout.write("\n".join(summary_lines("generation run", outcome)))
        finish(outcome, "cases")
