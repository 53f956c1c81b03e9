import time

from django.core.management.base import BaseCommand

from benchmark.llm.fake_server import FAULTS, QUICK_FAULTS, FakeLLM
from config.cli_exits import UsageError
from config.cli_types import (
    comma_list,
    fraction_0_1,
    non_negative_float,
    non_negative_int,
    port_number,
)


class Command(BaseCommand):
    help = (
        "Serve a fake OpenAI-compatible chat-completions endpoint on 127.0.0.1 for local "
        "demos: deterministic judge verdicts and answers, optional latency and faults."
    )

    def add_arguments(self, parser):
        parser.add_argument("--port", type=port_number, default=8765)
        parser.add_argument(
            "--latency", type=non_negative_float, default=0.0, help="seconds per reply"
        )
        parser.add_argument("--fault-rate", type=fraction_0_1, default=0.0, help="0..1")
        parser.add_argument(
            "--faults",
            default=",".join(QUICK_FAULTS),
            help=f"comma-separated mix drawn from: {', '.join(FAULTS)}",
        )
        parser.add_argument("--style", choices=["ours", "upstream"], default="ours")
        parser.add_argument("--no-structured", action="store_true", help="reject response_format")
        parser.add_argument("--seed", type=non_negative_int, default=0)
        parser.add_argument(
            "--noise",
            type=fraction_0_1,
            default=0.0,
            help="0..1: each verdict flips with chance noise × the request's temperature",
        )
        parser.add_argument(
            "--plain",
            action="store_true",
            help="the tests' fake: one answer for every model, a verdict a fixed function of "
            "the criterion's text (default: a stable skill per model, rare catastrophic hits)",
        )
        parser.add_argument(
            "--require-key", metavar="KEY", help="answer 401 to a request without this key"
        )
        parser.add_argument(
            "--models",
            type=comma_list,
            help="answer 404 (model not found) to a request for any other model",
        )
        parser.add_argument(
            "--position-bias",
            type=fraction_0_1,
            default=0.0,
            help="0..1: a pairwise prompt picks the response shown first with this chance "
            "(drawn per prompt), whatever the responses say",
        )
        parser.add_argument(
            "--length-bias",
            action="store_true",
            help="a pairwise prompt prefers the longer response",
        )

    def handle(self, *args, **options):
        mix = tuple(f.strip() for f in options["faults"].split(",") if f.strip())
        try:
            fake = self._server(options, mix)
        except (ValueError, OSError) as exc:  # an unknown fault name, a port in use
            raise UsageError(str(exc)) from None
        with fake:
            self.stdout.write(f"fake LLM endpoint at {fake.base_url} (Ctrl-C to stop)")
            self.stdout.write(f"what was sent: {fake.base_url}/stats")
            self.stdout.flush()
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                stats = fake.stats()
                by_status = ", ".join(f"{n} × {s}" for s, n in stats["by_status"].items())
                self.stdout.write(f"\nserved {stats['requests']} requests ({by_status or 'none'})")

    def _server(self, options: dict, mix: tuple[str, ...]) -> FakeLLM:
        return FakeLLM(
            port=options["port"],
            latency=options["latency"],
            fault_rate=options["fault_rate"],
            fault_mix=mix,
            style=options["style"],
            structured=not options["no_structured"],
            seed=options["seed"],
            noise=options["noise"],
            api_key=options["require_key"],
            skilled=not options["plain"],
            models=tuple(options["models"]) if options["models"] else None,
            position_bias=options["position_bias"],
            length_bias=options["length_bias"],
        )
