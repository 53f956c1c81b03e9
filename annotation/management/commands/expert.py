"""`heartbench expert add USERNAME --password-stdin [--tier senior] [--specialty ...]`."""

import sys

from django.core.management.base import BaseCommand

from annotation import services
from annotation.models import Expert
from config.cli_exits import UsageError
from config.cli_types import positive_int


class Command(BaseCommand):
    help = "Manage expert logins."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="create an expert login")
        add.add_argument("username")
        add.add_argument(
            "--password-stdin", action="store_true", required=True,
            help="read the password from the first line of standard input",
        )  # fmt: skip
        add.add_argument("--tier", choices=Expert.Tier.values, default=Expert.Tier.EXPERT)
        add.add_argument(
            "--specialty", action="append", default=[],
            help="a primary scene or ability code; repeat for several",
        )  # fmt: skip
        add.add_argument("--display-name", default="")
        add.add_argument("--language", action="append", default=None)
        add.add_argument("--daily-capacity", type=positive_int, default=200)

    def handle(self, *args, **options):
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise UsageError("no password on standard input")
        try:
            expert = services.expert_create(
                username=options["username"],
                password=password,
                tier=options["tier"],
                specialties=options["specialty"],
                languages=options["language"] or ["zh"],
                display_name=options["display_name"],
                daily_capacity=options["daily_capacity"],
            )
        except services.AnnotationError as exc:
            raise UsageError(str(exc)) from exc
        self.stdout.write(
            f"expert {expert.user.username} ({expert.tier}, rater id {expert.pseudonym}) created"
        )
