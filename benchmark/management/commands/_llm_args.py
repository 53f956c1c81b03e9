"""Command-line options shared by `judge`, `generate` and `run` (not a command itself)."""

import argparse
import math

from django.core.checks import Tags
from django.core.management.base import CommandError

from benchmark.llm.client import RetryPolicy
from benchmark.llm.credentials import api_key_resolve
from benchmark.llm.engine import REFUSED
from benchmark.llm.progress import ProgressWriter
from benchmark.models import LLMRun
from benchmark.selectors.runs import run_error_kinds
from benchmark.services.llm_jobs import EngineOptions, LLMJobConfigError, RunOptions, RunOutcome
from config.cli_exits import EXIT_ERRORS, EXIT_INTERRUPTED, EXIT_STOPPED, UsageError
from config.cli_types import (
    comma_list,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_fraction,
    positive_int,
)

# The model checks only: the template and URL checks (every view, the API schema, DRF's
# template tags) take half a second and concern serving pages, which these commands never do;
# `heartbench check` and the server commands still run every check.
SYSTEM_CHECKS = [Tags.models]


def add_endpoint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base-url", help="OpenAI-compatible base URL, e.g. http://host/v1")
    parser.add_argument(
        "--api-key",
        help="API key for this process only (default: $HEARTBENCH_API_KEY, then $OPENAI_API_KEY)",
    )
    parser.add_argument("--concurrency", type=positive_int, default=16)
    parser.add_argument("--rpm", type=positive_float, help="requests per minute limit")
    parser.add_argument("--tpm", type=positive_float, help="tokens per minute limit")
    parser.add_argument("--timeout", type=positive_float, default=120.0, help="seconds per request")
    parser.add_argument("--max-attempts", type=positive_int, default=6, help="per request")
    parser.add_argument(
        "--max-retry-wait", type=positive_float, default=120.0, help="seconds per request"
    )
    parser.add_argument("--max-cost", type=positive_float, help="stop before spending more (USD)")
    parser.add_argument("--price-in", type=non_negative_float, help="USD per million input tokens")
    parser.add_argument(
        "--price-out", type=non_negative_float, help="USD per million output tokens"
    )
    parser.add_argument(
        "--hedge",
        type=positive_fraction,
        metavar="QUANTILE",
        help="send a request again when it is slower than this quantile of the replies so far "
        "(e.g. 0.95) and a slot is free; the first usable reply wins, both are paid for",
    )
    parser.add_argument("--force", action="store_true", help="ignore cached replies")
    parser.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """What a run asks for (``RunOptions``): another value makes another run."""
    parser.add_argument("--temperature", type=non_negative_float, help="sent with each request")
    parser.add_argument("--max-tokens", type=positive_int, help="sent with each request")
    parser.add_argument("--seed", type=non_negative_int, help="sent with each request")
    parser.add_argument("--limit", type=positive_int, help="only the first N cases")
    parser.add_argument(
        "--sample-id", type=comma_list, default=[], help="only these cases: ID[,ID...]"
    )
    parser.add_argument(
        "--retry-errors",
        action="store_true",
        help="a new run with the same options that asks again only where the last one failed",
    )


def run_options(options: dict) -> RunOptions:
    if options["retry_errors"] and options["force"]:
        raise UsageError(
            "--retry-errors and --force exclude each other: --force asks again for everything",
        )
    return RunOptions(
        temperature=options["temperature"],
        max_tokens=options["max_tokens"],
        seed=options["seed"],
        sample_ids=tuple(options["sample_id"]),
        limit=options["limit"],
    )


def engine_options(options: dict) -> EngineOptions:
    return EngineOptions(
        api_key=api_key_resolve(options.get("api_key")),
        base_url=options.get("base_url") or "",
        concurrency=options["concurrency"],
        rpm=options.get("rpm"),
        tpm=options.get("tpm"),
        timeout=options["timeout"],
        max_cost=options.get("max_cost"),
        price_in=options.get("price_in"),
        price_out=options.get("price_out"),
        force=options.get("force", False),
        hedge_quantile=options.get("hedge"),
        retry=RetryPolicy(
            max_attempts=options["max_attempts"], max_total_wait=options["max_retry_wait"]
        ),
    )


def progress_writer(options: dict) -> ProgressWriter | None:
    return None if options.get("no_progress") else ProgressWriter()


def summary_lines(label: str, outcome: RunOutcome) -> list[str]:
    r = outcome.run
    kinds = run_error_kinds(run=r) if r.errors else []
    by_kind = "; ".join(f"{n} × {kind}" for kind, n in kinds)
    # Which dataset the run read, said every time: without --dataset it is the default one.
    dataset = [f"  dataset {r.dataset}"] if getattr(r, "dataset_id", None) else []
    return [
        f"{label} {r.pk}: {outcome.status}"
        + (f" ({outcome.stop_reason})" if outcome.stop_reason else ""),
        *dataset,
        f"  done {r.done}/{r.total}, errors {r.errors}" + (f": {by_kind}" if by_kind else ""),
        f"  calls {r.calls} (retries {r.retries}, re-asks {r.reasks}, "
        f"served from cache {r.cached})",
        f"  tokens in {r.tokens_in}, out {r.tokens_out}, "
        f"cost ${r.cost:.4f}, wall {r.wall_seconds:.1f}s, "
        f"parse failures {r.parse_failures}",
    ]


def _again(options: dict) -> str:
    """How to run the same run again: the same command, less the flags that start a new one."""
    flags = [f"--{name.replace('_', '-')}" for name in ("force", "retry_errors") if options[name]]
    return "run the same command again" + (f" without {' and '.join(flags)}" if flags else "")


def finish(
    outcome: RunOutcome, what: str, options: dict | None = None, *, budget: float | None = None
) -> None:
    """Exit non-zero when the run stopped early or left errors, with the reason and what to do
    next (``options``: those of a command with ``add_run_arguments``, which can retry errors;
    ``budget``: the --max-cost of a command without them)."""
    run = outcome.run
    again = _again(options) if options else "run the same command again"
    budget = options["max_cost"] if options else budget
    if outcome.stop_reason == REFUSED:
        # Retrying cannot mend a refused key, an unknown model or a wrong address.
        raise UsageError(
            f"run {run.pk} failed: {run.error}. Nothing was stored as an error; once the "
            f"endpoint, key or model is right, {again} to continue the run"
        )
    if outcome.stop_reason == "budget":
        raise CommandError(budget_advice(run, what, budget=budget, again=again),
                           returncode=EXIT_STOPPED)  # fmt: skip
    if outcome.stop_reason:
        raise CommandError(
            f"stopped ({outcome.stop_reason}); {again} to continue run {run.pk}",
            returncode=EXIT_STOPPED,
        )
    if run.errors:
        retry = "; to ask again for them only, add --retry-errors" if options else ""
        raise CommandError(
            f"{run.errors} {what} ended in error (kept with the reason and raw reply){retry}",
            returncode=EXIT_ERRORS,
        )


def budget_advice(run: LLMRun, what: str, *, budget: float | None, again: str) -> str:
    """What a budget stop spent, what is left, and the budget that would finish the run: what
    is left at the run's cost so far per piece of work done, with a tenth to spare."""
    left = run.total - run.done
    spent = f"spent ${run.cost:.4f}" + (f" of ${budget:.2f}" if budget is not None else "")
    if run.done and run.cost:
        enough = math.ceil((run.cost + 1.1 * left * run.cost / run.done) * 100) / 100
        finish = f"to finish, {again}, with --max-cost {enough:.2f}"
    else:
        finish = f"to continue it, {again}, with a higher --max-cost"
    return f"stopped (budget): run {run.pk} {spent}; {left} {what} left; {finish}"


def interrupted(run: LLMRun, what: str, options: dict) -> CommandError:
    """The one line for Ctrl-C: what the run stored and how to resume it."""
    run.refresh_from_db()
    return CommandError(
        f"interrupted: run {run.pk} stopped with {run.done} of {run.total} {what} stored; "
        f"to resume it, {_again(options)}",
        returncode=EXIT_INTERRUPTED,
    )


def job_run(execute, run: LLMRun, what: str, options: dict) -> RunOutcome:
    """Run a job through its ``*_run_execute`` with the command's engine options and progress
    line: a configuration the engine refuses is a usage error (exit 2), Ctrl-C the one-line
    interruption (exit 130) with how to resume."""
    try:
        return execute(
            run_id=run.pk, options=engine_options(options), on_progress=progress_writer(options)
        )
    except LLMJobConfigError as exc:
        raise UsageError(str(exc)) from None
    except KeyboardInterrupt:
        raise interrupted(run, what, options) from None
