"""Pairwise comparison on the command line (not a command itself).

``add_draw_parser`` / ``pairwise_draw`` are the ``draw`` subcommand of `heartbench pairwise`
(whose command lives in validation, beside ``rank``); ``add_pairwise_judge_arguments`` /
``judge_pairwise`` are `heartbench judge --pairwise SET`.
"""

import argparse
from pathlib import Path

from django.core.management.base import BaseCommand

from benchmark.llm.prompts import TemplateError
from benchmark.management.commands._llm_args import (
    finish,
    job_run,
    run_options,
    summary_lines,
)
from benchmark.models import ModelUnderTest
from benchmark.selectors.datasets import DATASET_HELP, DatasetNotFound, dataset_resolve
from benchmark.selectors.pairwise import PairwiseSetNotFound, pairwise_set_get
from benchmark.services.judging import judge_resolve
from benchmark.services.llm_jobs import LLMJobConfigError, run_options_check
from benchmark.services.pairwise import PairwiseDrawError, pairwise_set_draw
from benchmark.services.pairwise_judging import (
    pairwise_run_execute,
    pairwise_run_start,
    pairwise_template_load,
)
from config.cli_exits import UsageError
from config.cli_types import comma_list, non_negative_int, positive_float, positive_int


def add_draw_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``draw`` to `heartbench pairwise`'s subcommands (``dest="action"``)."""
    draw = subparsers.add_parser(
        "draw",
        help="store a named set of response pairs drawn from the answers of a dataset",
        description="Per case, every pair of the models that answered it (stored in model "
        "name order), or a stratified sample of them; optionally only pairs whose rubric "
        "case scores differ by less than a gap.",
    )
    draw.add_argument("name", help="the set's name")
    draw.add_argument("--dataset", help=DATASET_HELP)
    draw.add_argument(
        "--models", type=comma_list, required=True, help="two or more model names: M1,M2,..."
    )
    draw.add_argument("--sample", type=positive_int, help="draw N pairs, stratified by case")
    draw.add_argument("--seed", type=non_negative_int, help="the sample's seed (default: random)")
    draw.add_argument(
        "--max-score-gap",
        type=positive_float,
        metavar="X",
        help="only pairs whose rubric case scores differ by under X points (with --score-judge)",
    )
    draw.add_argument(
        "--score-judge",
        metavar="JUDGE",
        help="the judge whose runs give the case scores (per model, the run the leaderboard reads)",
    )
    return draw


def pairwise_draw(command: BaseCommand, **options) -> None:
    """`heartbench pairwise draw`: a clear error, exit 2 and nothing written on bad input."""
    names = list(dict.fromkeys(options["models"]))
    found = {m.name: m for m in ModelUnderTest.objects.filter(name__in=names)}
    unknown = [name for name in names if name not in found]
    if unknown:
        raise UsageError(f"no model under test named {', '.join(map(repr, unknown))}")
    try:
        dataset = dataset_resolve(name=options["dataset"])
        pair_set = pairwise_set_draw(
            name=options["name"],
            dataset=dataset,
            models=[found[name] for name in names],
            sample=options["sample"],
            seed=options["seed"],
            max_score_gap=options["max_score_gap"],
            score_judge=options["score_judge"],
        )
    except (DatasetNotFound, PairwiseDrawError) as exc:
        raise UsageError(str(exc)) from None
    summary = pair_set.draw_summary
    drawn = f"{summary['pairs']} pairs of {summary['candidates']}"
    if "within_gap" in summary:
        drawn += f" ({summary['within_gap']} within a score gap of {pair_set.max_score_gap:g})"
    seed = f", seed {pair_set.seed}" if pair_set.sample is not None else ""
    command.stdout.write(f"pairwise set {pair_set.name!r} on {dataset}: {drawn}{seed}")


def add_pairwise_judge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pairwise",
        metavar="SET",
        help="instead of rubric verdicts, choose the better response of each pair of this "
        "pairwise set, asking in both orders (then --model is not given)",
    )


def judge_pairwise(command: BaseCommand, options: dict) -> None:
    """`heartbench judge --pairwise SET`: one pairwise run, resumed when unfinished."""
    for flag, given in (
        ("--model", options["model"]),
        ("--dataset", options["dataset"]),
        ("--retry-errors", options["retry_errors"]),
        ("--repeats", options["repeats"] != 1),
        ("--granularity", options["granularity"] != "response"),
    ):
        if given:
            raise UsageError(f"--pairwise and {flag} exclude each other")
    asked = run_options(options)
    path: Path | None = options["prompt_template"]
    try:
        pair_set = pairwise_set_get(name=options["pairwise"])
        template = pairwise_template_load(path)
        run_options_check(dataset=pair_set.dataset, options=asked)
        judge = judge_resolve(
            name=options["judge"],
            endpoint_model=options["judge_model"],
            base_url=options["base_url"],
            template=None,
        )
        run, todo = pairwise_run_start(
            judge=judge,
            pair_set=pair_set,
            options=asked,
            template_path=path.resolve() if path else None,
            force=options["force"],
        )
        if not todo:
            command.stdout.write(
                f"pairwise run {run.pk} ({judge} on {pair_set}) already finished; nothing "
                "sent. Use --force to judge again."
            )
            return
        if run.template_version and run.template_version != template.version:
            raise LLMJobConfigError(
                f"pairwise run {run.pk} was asked with template {run.template_version!r}, "
                f"not {template.version!r}; use --force for a new run"
            )
    except (TemplateError, PairwiseSetNotFound, LLMJobConfigError) as exc:
        raise UsageError(str(exc)) from None
    outcome = job_run(pairwise_run_execute, run, "pair orders", options)
    command.stdout.write("\n".join(summary_lines("pairwise run", outcome)))
    # No options: a pairwise run has no --retry-errors to advise.
    finish(outcome, "pair orders", budget=options["max_cost"])
