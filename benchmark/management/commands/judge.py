from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from benchmark.llm.prompts import DEFAULT_JUDGE_TEMPLATE, TemplateError, template_load
from benchmark.management.commands._llm_args import (
    EXIT_CONFIG,
    SYSTEM_CHECKS,
    add_endpoint_arguments,
    engine_options,
    finish,
    progress_writer,
    summary_lines,
)
from benchmark.models import ModelUnderTest
from benchmark.selectors.datasets import DatasetNotFound
from benchmark.selectors.runs import dataset_for_model
from benchmark.services.judging import (
    GRANULARITIES,
    judge_resolve,
    judge_run_execute,
    judge_run_start,
)
from benchmark.services.llm_jobs import LLMJobConfigError


class Command(BaseCommand):
    help = (
        "Judge a model's responses with an LLM judge. Resumes an unfinished run, serves "
        "repeated requests from the cache, and stores failures as verdicts in state error."
    )
    requires_system_checks = SYSTEM_CHECKS

    def add_arguments(self, parser):
        parser.add_argument("--model", required=True, help="model under test (by name)")
        parser.add_argument("--judge", help="judge name (default: the judge model id)")
        parser.add_argument("--judge-model", help="endpoint model id of the judge")
        parser.add_argument("--dataset", help="NAME or NAME:vN (default: the one answered)")
        parser.add_argument("--granularity", choices=GRANULARITIES, default="response")
        parser.add_argument("--prompt-template", type=Path, help="judge prompt template file")
        add_endpoint_arguments(parser)

    def handle(self, *args, **options):
        try:
            model = ModelUnderTest.objects.get(name=options["model"])
        except ModelUnderTest.DoesNotExist:
            raise CommandError(
                f"no model under test named {options['model']!r}", returncode=EXIT_CONFIG
            ) from None
        path = options["prompt_template"]
        try:
            template = template_load(path or DEFAULT_JUDGE_TEMPLATE)
            dataset = dataset_for_model(model=model, name=options["dataset"])
            judge = judge_resolve(
                name=options["judge"],
                endpoint_model=options["judge_model"],
                base_url=options["base_url"],
                template=template,
            )
            run, todo = judge_run_start(
                judge=judge,
                model=model,
                dataset=dataset,
                granularity=options["granularity"],
                template_path=path.resolve() if path else None,
                force=options["force"],
            )
            if not todo:
                self.stdout.write(
                    f"run {run.pk} ({judge} on {model}) already finished; nothing sent. "
                    "Use --force to judge again."
                )
                return
            outcome = judge_run_execute(
                run_id=run.pk, options=engine_options(options), on_progress=progress_writer(options)
            )
        except (TemplateError, DatasetNotFound, LLMJobConfigError) as exc:
            raise CommandError(str(exc), returncode=EXIT_CONFIG) from None
        self.stdout.write("\n".join(summary_lines("judge run", outcome)))
        finish(outcome, "criteria")
