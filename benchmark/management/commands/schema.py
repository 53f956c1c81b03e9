from django.core.management.base import BaseCommand

from benchmark.schema_files import SchemaNotFound, schema_files, schema_load, schema_path
from config.cli_exits import UsageError


class Command(BaseCommand):
    help = (
        "Print the JSON Schema (draft 2020-12) of an import or export format; without a name, "
        "list them."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?", help="the format (list them: heartbench schema)")

    def handle(self, *args, name=None, **options):
        if name is None:
            for known in schema_files():
                self.stdout.write(f"{known:<16} {schema_load(name=known)['title']}")
            return
        try:
            self.stdout.write(schema_path(name=name).read_text(encoding="utf-8"), ending="")
        except SchemaNotFound as exc:
            raise UsageError(str(exc)) from exc
