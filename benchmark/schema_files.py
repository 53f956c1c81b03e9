"""The JSON Schemas of the import and export formats: each installed app keeps those of its
own formats as package data in ``<app>/schemas/NAME.schema.json`` (the dataset, answer and
verdict files and the leaderboard in ``benchmark``, the agreement CSVs and the study export in
``validation``), found here the way Django finds templates, so the benchmark app reads the
validation app's schemas without importing it."""

import json
from pathlib import Path

from django.apps import apps

SUFFIX = ".schema.json"


class SchemaNotFound(LookupError):
    """No installed app has a schema of that name."""


def schema_files() -> dict[str, Path]:
    """Schema name → file, sorted by name; where two apps have one name the first installed
    app wins, as with templates."""
    found: dict[str, Path] = {}
    for app in apps.get_app_configs():
        for path in sorted((Path(app.path) / "schemas").glob(f"*{SUFFIX}")):
            found.setdefault(path.name.removesuffix(SUFFIX), path)
    return dict(sorted(found.items()))


def schema_path(*, name: str) -> Path:
    files = schema_files()
    if name not in files:
        raise SchemaNotFound(f"unknown schema {name!r}; the schemas are: {', '.join(files)}")
    return files[name]


def schema_load(*, name: str) -> dict:
    """The parsed schema ``name``; SchemaNotFound names the known ones."""
    return json.loads(schema_path(name=name).read_text(encoding="utf-8"))
