"""No test module imports another: shared scenario builders live in tests/builders/.

A test file that borrows `rated_study` from another test file drags that file's tests into its
own import, breaks when the other file is renamed, and hides the builder from the next person
who needs it. docs/testing.md lists the builders and says how to add one.
"""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PROJECT = TESTS.parent
GUIDE = "move the shared name into tests/builders/ (docs/testing.md) and import it from there"


def module_of(path: Path) -> str:
    parts = list(path.relative_to(PROJECT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def target_of(node: ast.ImportFrom, path: Path) -> str:
    """The absolute module an ImportFrom names, relative imports resolved from `path`."""
    if not node.level:
        return node.module or ""
    package = module_of(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def module_file(module: str) -> Path | None:
    base = PROJECT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(node: ast.AST, path: Path) -> list[str]:
    """Every tests.* module an import statement loads, `from pkg import module` included."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = target_of(node, path)
        names = [base]
        names += [
            f"{base}.{alias.name}" for alias in node.names if module_file(f"{base}.{alias.name}")
        ]
    else:
        return []
    return [name for name in names if name == "tests" or name.startswith("tests.")]


def problems_in(path: Path, source: str | None = None) -> list[str]:
    where = path.relative_to(PROJECT)
    source = path.read_text(encoding="utf-8") if source is None else source
    found = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        for module in imported_modules(node, path):
            if module.rsplit(".", 1)[-1].startswith("test_"):
                found.append(f"{where}:{node.lineno}: imports the test module {module}; {GUIDE}")
            elif module_file(module) is None:
                found.append(
                    f"{where}:{node.lineno}: imports {module}, which does not exist "
                    f"(moved to tests/builders/? see docs/testing.md)"
                )
    return found


def test_no_test_module_imports_another_test_module():
    # Builders and conftest files are scanned too: a builder that imports a test module would
    # bring the same coupling back one step removed.
    problems = [problem for path in sorted(TESTS.rglob("*.py")) for problem in problems_in(path)]
    assert not problems, "\n".join(problems)


def test_the_rule_sees_absolute_relative_and_package_imports():
    source = (
        "from tests.validation.test_report_db import rated_study\n"
        "import tests.benchmark.test_leaderboard\n"
        "from tests.integration import test_workers\n"
        "def later():\n"
        "    from .test_concurrency import hold_open\n"
        "from tests.builders.studies import open_study\n"
    )
    path = TESTS / "annotation" / "test_probe_only_parsed.py"
    tree = ast.parse(source)
    loaded = [module for node in ast.walk(tree) for module in imported_modules(node, path)]
    assert "tests.validation.test_report_db" in loaded
    assert "tests.benchmark.test_leaderboard" in loaded
    assert "tests.integration.test_workers" in loaded
    assert "tests.annotation.test_concurrency" in loaded
    assert "tests.builders.studies" in loaded
    problems = problems_in(path, source)
    assert [problem.split(": ", 1)[0] for problem in problems] == [
        "tests/annotation/test_probe_only_parsed.py:1",
        "tests/annotation/test_probe_only_parsed.py:2",
        "tests/annotation/test_probe_only_parsed.py:3",
        "tests/annotation/test_probe_only_parsed.py:5",
    ]


def test_an_import_from_where_a_builder_used_to_be_is_named():
    path = TESTS / "frontend" / "test_probe_only_parsed.py"
    (problem,) = problems_in(path, "from tests.validation.factories import open_study\n")
    assert problem.startswith("tests/frontend/test_probe_only_parsed.py:1: imports ")
    assert "tests.validation.factories, which does not exist" in problem
