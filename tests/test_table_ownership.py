"""An app reads another app's data through that app's selectors and services, never its tables
(DESIGN.md, engineering rules): no module of app A touches a manager of app B's model.

The check is static (ast) with the Django app registry saying which app owns a model. It finds
``Model.objects`` / ``Model._default_manager`` / ``Model._base_manager``, ``get_object_or_404``
and ``get_list_or_404`` on a model, where the model is named by an import (absolute or relative,
at module level or inside a function, aliased or through an imported models module) or by an
``apps.get_model("app", "Model")`` assignment. Related managers (``case.responses.all()``) and
joins across relations inside a query of one's own model are out of its reach. Migrations are
exempt: a migration works on historical models, not on another app's API.

Reads that still break the rule would sit in ALLOWED, one to-do per line; the list only
shrinks: a new violation fails the test, and so does an entry that no longer violates.
"""

import ast
import importlib
from pathlib import Path

from django.apps import apps
from django.db import models

ROOT = Path(__file__).resolve().parent.parent
APPS = ("benchmark", "annotation", "validation", "frontend", "webhooks", "config")
MANAGERS = {"objects", "_default_manager", "_base_manager"}
SHORTCUTS = {"get_object_or_404", "get_list_or_404"}

# (path, "app.Model") still reading another app's table. Each line is a to-do: move the read
# into a selector (a write: a service) of the model's app and call it, then delete the line.
# Each entry a to-do, with its reason (empty: every read goes through its owner's API).
ALLOWED: set[tuple[str, str]] = set()


def owning_app(model: type[models.Model]) -> str:
    return apps.get_app_config(model._meta.app_label).name.split(".")[0]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if not is_package:
        package.pop()
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def resolve(dotted: str):
    """The object an import names, or None when it is not ours to follow."""
    if dotted.split(".")[0] not in APPS:
        return None
    try:
        return importlib.import_module(dotted)
    except ImportError:
        head, _, name = dotted.rpartition(".")
        try:
            return getattr(importlib.import_module(head), name, None)
        except ImportError:
            return None


def names_of(tree: ast.AST, module: str, is_package: bool) -> dict[str, object]:
    """Local name -> imported object (a model class or a module) anywhere in the module."""
    names: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = absolute(node, module, is_package)
            for alias in node.names:
                found = resolve(f"{base}.{alias.name}")
                if found is not None:
                    names[alias.asname or alias.name] = found
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and (found := resolve(alias.name)) is not None:
                    names[alias.asname] = found
                elif not alias.asname and (found := resolve(alias.name.split(".")[0])):
                    names[alias.name.split(".")[0]] = found
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            model = registry_lookup(node.value)
            if model is not None and isinstance(node.targets[0], ast.Name):
                names[node.targets[0].id] = model
    return names


def registry_lookup(node: ast.AST):
    """The model of ``apps.get_model("app_label", "Model")``, or None."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "get_model"):
        return None
    arguments = [a.value for a in node.args if isinstance(a, ast.Constant)]
    if len(arguments) != 2 or not all(isinstance(a, str) for a in arguments):
        return None
    return apps.get_model(*arguments)


def model_of(node: ast.AST, names: dict[str, object]):
    """The model class an expression names (``Case``, ``bm.Case``, ``benchmark.models.Case``)."""
    if isinstance(node, ast.Name):
        found = names.get(node.id)
    elif isinstance(node, ast.Attribute):
        found = getattr(model_of_or_module(node.value, names), node.attr, None)
    else:
        found = registry_lookup(node)
    if isinstance(found, type) and issubclass(found, models.Model):
        return found
    return None


def model_of_or_module(node: ast.AST, names: dict[str, object]):
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        return getattr(model_of_or_module(node.value, names), node.attr, None)
    return None


def table_reads(source: str, *, module: str, is_package: bool = False):
    """(line, model, how) for every read of a model's table in one module's source; ``how``
    is the manager (``objects``) or the shortcut (``get_object_or_404``) that reads it."""
    tree = ast.parse(source)
    names = names_of(tree, module, is_package)
    for node in ast.walk(tree):
        target = how = None
        if isinstance(node, ast.Attribute) and node.attr in MANAGERS:
            target, how = node.value, node.attr
        elif isinstance(node, ast.Call) and node.args:
            called = node.func.id if isinstance(node.func, ast.Name) else None
            called = called or getattr(node.func, "attr", None)
            if called in SHORTCUTS:
                target, how = node.args[0], called
        if target is not None and (model := model_of(target, names)) is not None:
            yield node.lineno, model, how


def app_modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if "migrations" in parts or "tests" in parts or path.name.startswith("test_"):
                continue
            yield app, path


def violations() -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(path, "app.Model") -> [(line, how)] of every read of another app's table."""
    found: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for app, path in app_modules():
        source = path.read_text(encoding="utf-8")
        package = path.name == "__init__.py"
        for line, model, how in table_reads(source, module=module_name(path), is_package=package):
            owner = owning_app(model)
            if owner in APPS and owner != app:
                key = (path.relative_to(ROOT).as_posix(), f"{owner}.{model.__name__}")
                found.setdefault(key, []).append((line, how))
    return found


def test_no_app_reads_another_apps_tables():
    found = violations()
    new = [
        f"{where}:{line}: app {where.split('/')[0]} reads "
        + (f"{model}.{how}" if how in MANAGERS else f"{model} by {how}")
        + f" — use {model.split('.')[0]}'s selectors/services"
        for (where, model), reads in sorted(found.items())
        if (where, model) not in ALLOWED
        for line, how in sorted(reads)
    ]
    assert new == [], "\n".join(new)


def test_the_allowed_list_only_shrinks():
    stale = sorted(ALLOWED - set(violations()))
    assert stale == [], f"no longer violating, delete from ALLOWED: {stale}"


def test_the_check_sees_a_read_through_each_kind_of_name():
    # The detector itself can fail: each form of naming another app's model is caught.
    source = (
        "import benchmark.models as bm\n"
        "from benchmark import models\n"
        "from django.apps import apps\n"
        "from django.shortcuts import get_object_or_404\n"
        "from ..models import Study\n"
        "def f():\n"
        "    from benchmark.models import Case as C\n"
        "    Unit = apps.get_model('annotation', 'Unit')\n"
        "    C.objects.all()\n"
        "    bm.Case._default_manager.all()\n"
        "    models.Case._base_manager.all()\n"
        "    Unit.objects.all()\n"
        "    get_object_or_404(C, pk=1)\n"
        "    Study.objects.all()\n"
    )
    reads = table_reads(source, module="validation.selectors.probe")
    reads = [(line, owning_app(model), how) for line, model, how in reads]
    assert sorted(reads) == [
        (9, "benchmark", "objects"),
        (10, "benchmark", "_default_manager"),
        (11, "benchmark", "_base_manager"),
        (12, "annotation", "objects"),
        (13, "benchmark", "get_object_or_404"),
        (14, "validation", "objects"),
    ]
