"""Every task and handler an app names by its dotted path (``config.lazy_import.Lazy``) can be
imported, and is its own app's: a name is an import that the layers' contract (import-linter,
in `make lint`) cannot follow, so it must not reach into another app."""

import ast
from pathlib import Path

from django.utils.module_loading import import_string

import benchmark.services.warming  # noqa: F401  (module-level names)
import validation.services.stored  # noqa: F401
from config.lazy_import import NAMED, Lazy

ROOT = Path(__file__).resolve().parent.parent
APPS = ("benchmark", "annotation", "validation", "frontend", "webhooks", "config")


def test_every_named_task_and_handler_imports():
    # The apps' ready() methods ran when Django was set up: their registrations are in NAMED.
    assert "validation.services.unit_settle" in NAMED and "benchmark.tasks.judge_run_task" in NAMED
    for path in sorted(NAMED):
        assert callable(import_string(path)), path


def test_a_name_never_reaches_into_another_app():
    named = []
    for app in APPS:
        for source in (ROOT / app).rglob("*.py"):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == Lazy.__name__:
                    (argument,) = node.args
                    text = ast.unparse(argument).strip("f'\"")
                    named.append((app, text, source.relative_to(ROOT)))
    assert len(named) >= 7, named
    assert [(where, text) for app, text, where in named if text.split(".")[0] != app] == []
