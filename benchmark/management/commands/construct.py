"""`heartbench construct create-project P --dataset-name NAME [--description T]` and
`heartbench construct import-seeds FILE --project P`: the start of a new benchmark."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from benchmark.importing import ImportFailure
from benchmark.selectors.construction import ProjectNotFound, project_get
from benchmark.services.construction import ProjectError, project_create, seeds_import


class Command(BaseCommand):
    help = "Build a benchmark: create a construction project, import seed scenarios as drafts."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create-project", help="a new construction project")
        create.add_argument("name", help="the project's name")
        create.add_argument(
            "--dataset-name", required=True, help="the name its published dataset takes"
        )
        create.add_argument("--description", default="")
        seeds = sub.add_parser(
            "import-seeds",
            help="add seed scenarios (JSONL: id, dialogue, primary_scene, source, notes) as "
            "draft cases; any error names its line and nothing is written",
        )
        seeds.add_argument("path", type=Path, help="seed file (JSONL)")
        seeds.add_argument("--project", required=True, help="the project's name")

    def handle(self, *args, **options):
        if options["action"] == "create-project":
            try:
                project = project_create(
                    name=options["name"],
                    dataset_name=options["dataset_name"],
                    description=options["description"],
                )
            except ProjectError as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(f"project {project} created; it will publish {project.dataset_name}")
            return
        try:
            result = seeds_import(
                project=project_get(name=options["project"]), path=options["path"]
            )
        except (ImportFailure, ProjectNotFound) as exc:
            raise CommandError(str(exc)) from exc
        total = result.project.drafts.count()
        self.stdout.write(
            f"{len(result.drafts):,} drafts added to {result.project} ({total:,} in all)"
        )
