"""Command-line options shared by `judge`, `generate` and `run` (not a command itself)."""

import argparse

from django.core.checks import Tags
from django.core.management.base import CommandError

from benchmark.cli_types import non_negative_float, positive_float, positive_int
from benchmark.llm.client import RetryPolicy
from benchmark.llm.credentials import api_key_resolve
from benchmark.llm.progress import ProgressWriter
from benchmark.services.llm_jobs import EngineOptions, RunOutcome

EXIT_CONFIG = 2  # bad command line or configuration: nothing was sent
EXIT_ERRORS = 1  # finished, but some criteria/cases could not be judged/generated
EXIT_STOPPED = 3  # stopped before the end (budget); run again to continue
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
    parser.add_argument("--force", action="store_true", help="ignore cached replies")
    parser.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


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
        retry=RetryPolicy(
            max_attempts=options["max_attempts"], max_total_wait=options["max_retry_wait"]
        ),
    )


def progress_writer(options: dict) -> ProgressWriter | None:
    return None if options.get("no_progress") else ProgressWriter()


def summary_lines(label: str, outcome: RunOutcome) -> list[str]:
    r = outcome.run
    return [
        f"{label} {r.pk}: {outcome.status}"
        + (f" ({outcome.stop_reason})" if outcome.stop_reason else ""),
        f"  done {r.done}/{r.total}, errors {r.errors}",
        f"  calls {r.calls} (retries {r.retries}, re-asks {r.reasks}, "
        f"served from cache {r.cached})",
        f"  tokens in {r.tokens_in}, out {r.tokens_out}, "
        f"cost ${r.cost:.4f}, wall {r.wall_seconds:.1f}s, "
        f"parse failures {r.parse_failures}",
    ]


def finish(outcome: RunOutcome, what: str) -> None:
    """Exit non-zero when the run stopped early or left errors, with the reason."""
    if outcome.stop_reason:
        raise CommandError(
            f"stopped ({outcome.stop_reason}); run the same command again to continue",
            returncode=EXIT_STOPPED,
        )
    errors = outcome.run.errors
    if errors:
        raise CommandError(
            f"{errors} {what} ended in error (kept with the reason and raw reply)",
            returncode=EXIT_ERRORS,
        )
