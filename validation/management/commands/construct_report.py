"""`heartbench construct-report --project P [--format json|html] [--language en|zh-hans]
[--out F]`: the construction report of a benchmark built with experts. Reads only."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from benchmark.selectors.construction import ProjectNotFound, project_get
from config.cli_exits import UsageError
from validation.construction.compute import construction_report_compute
from validation.construction.gather import construction_inputs
from validation.construction.render import FORMATS, construction_report_render


class Command(BaseCommand):
    help = (
        "The construction report of a project: the funnel per stage with the reasons drafts "
        "and criteria were removed, discrimination before and after pruning, the hard share."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="the project's name")
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument(
            "--language",
            choices=[code for code, _ in settings.LANGUAGES],
            default="en",
            help="the language of the HTML report (default en)",
        )
        parser.add_argument("--out", type=Path, help="write here instead of standard output")

    def handle(self, *args, **options):
        out = options["out"]
        if out is not None and not out.parent.is_dir():
            raise UsageError(f"{out.parent} is not a directory")
        try:
            project = project_get(name=options["project"])
        except ProjectNotFound as exc:
            raise UsageError(str(exc)) from exc
        report = construction_report_compute(construction_inputs(project=project))
        text = construction_report_render(
            report, fmt=options["format"], language=options["language"]
        )
        if out is None:
            self.stdout.write(text, ending="")
            return
        out.write_text(text, encoding="utf-8")
        self.stderr.write(
            f"construction report of {project} written to {out} ({options['format']})"
        )
