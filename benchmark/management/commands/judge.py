from pathlib import Path

from django.core.management.base import BaseCommand

from benchmark.llm.prompts import DEFAULT_JUDGE_TEMPLATE, TemplateError, template_load
from benchmark.management.commands._llm_args import (
    SYSTEM_CHECKS,
    add_endpoint_arguments,
    add_run_arguments,
    finish,
    job_run,
    run_options,
    summary_lines,
)
from benchmark.management.commands._pairwise import add_pairwise_judge_arguments, judge_pairwise
from benchmark.models import ModelUnderTest
from benchmark.selectors.datasets import DatasetNotFound
from benchmark.selectors.runs import dataset_for_model
from benchmark.services.judge_retry import judge_run_retry_errors_start
from benchmark.services.judging import (
    GRANULARITIES,
    judge_repeats_start,
    judge_resolve,
    judge_run_execute,
)
from benchmark.services.llm_jobs import LLMJobConfigError, NothingToRetry, run_options_check
from config.cli_exits import UsageError
from config.cli_types import positive_int


class Command(BaseCommand):
    help = (
        "Judge a model's responses with an LLM judge. Resumes an unfinished run, serves "
        "repeated requests from the cache, and stores failures as verdicts in state error."
    )
    requires_system_checks = SYSTEM_CHECKS

    def add_arguments(self, parser):
        parser.add_argument(
            "--model", help="model under test (by name); required without --pairwise"
        )
        parser.add_argument("--judge", help="judge name (default: the judge model id)")
        parser.add_argument("--judge-model", help="endpoint model id of the judge")
        parser.add_argument("--dataset", help="NAME or NAME:vN (default: the one answered)")
        parser.add_argument("--granularity", choices=GRANULARITIES, default="response")
        parser.add_argument("--prompt-template", type=Path, help="judge prompt template file")
        parser.add_argument(
            "--repeats",
            type=positive_int,
            default=1,
            help="N independent runs over the same responses (run 0 is the ordinary run; each "
            "repeat asks anew, with seed + i when --seed is given), for the judge's stability",
        )
        add_pairwise_judge_arguments(parser)
        add_endpoint_arguments(parser)
        add_run_arguments(parser)

    def handle(self, *args, **options):
        if options["pairwise"]:
            judge_pairwise(self, options)
            return
        if not options["model"]:
            raise UsageError("give --model NAME (or --pairwise SET)")
        asked = run_options(options)
        try:
            model = ModelUnderTest.objects.get(name=options["model"])
        except ModelUnderTest.DoesNotExist:
            raise UsageError(f"no model under test named {options['model']!r}") from None
        path = options["prompt_template"]
        try:
            template = template_load(path or DEFAULT_JUDGE_TEMPLATE)
            dataset = dataset_for_model(model=model, name=options["dataset"])
            run_options_check(dataset=dataset, options=asked)
            judge = judge_resolve(
                name=options["judge"],
                endpoint_model=options["judge_model"],
                base_url=options["base_url"],
                template=template,
            )
            start = {
                "judge": judge,
                "model": model,
                "dataset": dataset,
                "granularity": options["granularity"],
                "options": asked,
            }
            if options["retry_errors"]:
                if options["repeats"] > 1:
                    raise LLMJobConfigError("--retry-errors and --repeats exclude each other")
                try:
                    runs = [judge_run_retry_errors_start(**start)]
                except NothingToRetry as nothing:
                    self.stdout.write(f"judge run {nothing.run_id} has no errors: nothing to retry")
                    return
            else:
                runs = []
                for run, todo in judge_repeats_start(
                    **start,
                    repeats=options["repeats"],
                    template_path=path.resolve() if path else None,
                    force=options["force"],
                ):
                    if todo:
                        runs.append(run)
                    else:
                        self.stdout.write(
                            f"run {run.pk} ({judge} on {model}{_repeat_label(run)}) already "
                            "finished; nothing sent. Use --force to judge again."
                        )
        except (TemplateError, DatasetNotFound, LLMJobConfigError) as exc:
            raise UsageError(str(exc)) from None
        outcomes = []
        for run in runs:
            outcome = job_run(judge_run_execute, run, "criteria", options)
            label = f"repeat {run.repeat_index}: judge run" if run.repeat_of_id else "judge run"
            self.stdout.write("\n".join(summary_lines(label, outcome)))
            outcomes.append(outcome)
            if outcome.stop_reason:
                break  # a budget spent stops the repeats still to come too
        for outcome in outcomes:
            finish(outcome, "criteria", options)


def _repeat_label(run) -> str:
    return f", repeat {run.repeat_index}" if run.repeat_of_id else ""
