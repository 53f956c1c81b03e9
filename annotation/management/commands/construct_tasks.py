"""`heartbench construct-tasks --project P --kind difficulty|review|panel [--raters N]
[--panel-size N --panel-rule unanimous|majority]` opens a kind of expert work on a project;
`--assign-authors a,b,c` first gives the drafts without an author one, round-robin."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from annotation.models import PanelRule, TaskKind
from annotation.services import AnnotationError
from annotation.services.construction import construction_work_open, drafts_authors_assign
from benchmark.selectors.construction import ProjectNotFound, project_get
from config.cli_exits import UsageError
from config.cli_types import comma_list, positive_int

KINDS = {"difficulty": TaskKind.DIFFICULTY, "review": TaskKind.REVIEW, "panel": TaskKind.PANEL}


class Command(BaseCommand):
    help = "Open construction work (difficulty marks, criterion reviews, the senior panel)."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="the construction project")
        parser.add_argument("--kind", choices=list(KINDS), help="the kind of work to open")
        parser.add_argument(
            "--raters", type=positive_int, help="experts per draft (difficulty 3, review 2)"
        )
        parser.add_argument("--panel-size", type=positive_int, help="seniors on the panel (4)")
        parser.add_argument(
            "--panel-rule", choices=PanelRule.values, help="how the panel decides (unanimous)"
        )
        parser.add_argument(
            "--assign-authors",
            type=comma_list,
            metavar="USER,USER,...",
            help="give the drafts without an author one of these experts, round-robin",
        )

    def handle(self, *args, **options):
        kind = options["kind"]
        if kind is None and not options["assign_authors"]:
            raise UsageError("say what to do: --kind, --assign-authors, or both")
        if kind != "panel" and (options["panel_size"] or options["panel_rule"]):
            raise UsageError("--panel-size and --panel-rule are for --kind panel")
        if kind == "panel" and options["raters"]:
            raise UsageError("the panel's size is --panel-size")
        try:
            project = project_get(name=options["project"])
        except ProjectNotFound as exc:
            raise UsageError(str(exc)) from exc
        users = self._users(options["assign_authors"] or [])
        try:
            if users:
                count = drafts_authors_assign(project=project, users=users)
                self.stdout.write(f"{project}: {count} drafts got an author")
            if kind:
                work = construction_work_open(
                    project=project,
                    kind=KINDS[kind],
                    raters=options["panel_size"] if kind == "panel" else options["raters"],
                    panel_rule=options["panel_rule"],
                )
                rule = f", {work.panel_rule}" if kind == "panel" else ""
                self.stdout.write(f"{project}: {kind} open, {work.raters} per draft{rule}")
        except AnnotationError as exc:
            raise UsageError(str(exc)) from exc

    def _users(self, names: list[str]) -> list:
        found = {
            user.get_username(): user
            for user in get_user_model().objects.filter(username__in=names, expert__is_active=True)
        }
        missing = [name for name in names if name not in found]
        if missing:
            raise UsageError(f"not active experts: {', '.join(missing)}")
        return [found[name] for name in names]
