from django.conf import settings
from django.core.management.base import BaseCommand

from config.cli_exits import UsageError
from config.cli_types import positive_int

QUEUES = ("judge", "generate", "reports")


class Command(BaseCommand):
    help = (
        "Start a Celery worker for background jobs (judge runs, generation, reports) against "
        "CELERY_BROKER_URL. Run one or more per machine; they share the work and the judge "
        "engine's rate limits (through Redis)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--queues",
            default=",".join(QUEUES),
            help=f"comma-separated queues to serve, from: {', '.join(QUEUES)}",
        )
        parser.add_argument(
            "--concurrency", type=positive_int, default=1, help="worker processes (default 1)"
        )
        parser.add_argument("--hostname", default=None, help="worker name (default: celery@HOST)")
        parser.add_argument("--loglevel", default="INFO")
        parser.add_argument(
            "--beat",
            action="store_true",
            help="also run the periodic jobs (re-queue runs that waited for the broker); "
            "exactly one worker of a deployment should",
        )

    def handle(self, *args, **options):
        if not settings.CELERY_BROKER_URL:
            raise UsageError(
                "CELERY_BROKER_URL is not set: without a broker tasks run in the web process "
                "and there is nothing for a worker to do",
            )
        queues = [q.strip() for q in options["queues"].split(",") if q.strip()]
        unknown = sorted(set(queues) - set(QUEUES))
        if unknown or not queues:
            raise UsageError(
                f"unknown queue(s) {', '.join(unknown) or '(none given)'}; "
                f"choose from {', '.join(QUEUES)}",
            )
        if options["concurrency"] < 1:
            raise UsageError("--concurrency must be at least 1")
        from config.celery import app

        argv = [
            "worker",
            f"--queues={','.join(queues)}",
            f"--concurrency={options['concurrency']}",
            f"--loglevel={options['loglevel']}",
        ]
        if options["hostname"]:
            argv.append(f"--hostname={options['hostname']}")
        if options["beat"]:
            argv += ["--beat", f"--schedule={settings.DATA_DIR / 'celerybeat-schedule'}"]
        app.worker_main(argv)
