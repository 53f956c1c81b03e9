"""`heartbench certificate issue --bar NAME [USERNAME ...]`: issue to the named experts, or
to every active expert who meets the bar when none are named.

Each named expert is tried: those issued are listed, and the command ends with an error that
names every expert not issued and why."""

from django.core.management.base import BaseCommand, CommandError

from annotation import services
from annotation.models import CertificationBar, Expert
from config.cli_exits import EXIT_ERRORS, UsageError


class Command(BaseCommand):
    help = "Issue certificates to experts who meet a certification bar."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        issue = sub.add_parser("issue")
        issue.add_argument("--bar", required=True)
        issue.add_argument("usernames", nargs="*")

    def handle(self, *args, **options):
        bar = CertificationBar.objects.filter(name=options["bar"]).first()
        if bar is None:
            raise UsageError(f"no certification bar named {options['bar']!r}")
        names = options["usernames"]
        issued, refused = [], []
        if names:
            for username in names:
                try:
                    issued.append(
                        services.certificate_issue(expert=self._expert(username), bar=bar)
                    )
                except (services.AnnotationError, CommandError) as exc:
                    refused.append(f"{username}: {exc}")
        else:
            try:
                issued = services.certificate_issue_all(bar=bar)
            except services.AnnotationError as exc:  # the bar is not active
                raise UsageError(str(exc)) from exc
        for certificate in issued:
            self.stdout.write(f"{certificate.serial} issued to {certificate.expert.user.username}")
        self.stdout.write(f"{len(issued)} certificate(s) issued for {bar}")
        if refused:
            raise CommandError(
                f"{len(refused)} of {len(names)} not issued: " + "; ".join(refused),
                returncode=EXIT_ERRORS,
            )

    def _expert(self, username: str) -> Expert:
        expert = Expert.objects.filter(user__username=username).first()
        if expert is None:
            raise UsageError(f"no expert {username!r}")
        return expert
