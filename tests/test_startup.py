"""Start-up stays light (issue 16): numpy and scipy load only where something computes with them.

Each check runs in a fresh interpreter, since the test process itself has long imported both.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "scipy")

SETUP_URLCONF_ADMIN = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from django.contrib import admin
from django.urls import get_resolver
get_resolver().url_patterns  # the URLconf, with every include() it names
admin.site.get_urls()  # every registered ModelAdmin's URLs
print(" ".join(name for name in {heavy!r} if name in sys.modules) or "-")
"""


def _run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"HEARTBENCH_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def _imported(importtime_stderr: str) -> set[str]:
    """Top-level package names in `python -X importtime` output."""
    names = set()
    for line in importtime_stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.rsplit("|", 1)[1].strip()
            names.add(name.split(".")[0])
    return names


def test_django_setup_urlconf_and_admin_import_neither_numpy_nor_scipy(tmp_path):
    result = _run(["-c", SETUP_URLCONF_ADMIN.format(heavy=HEAVY)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "-", f"imported at start-up: {result.stdout.strip()}"


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_heartbench_version_and_help_import_neither_numpy_nor_scipy(tmp_path, flag):
    result = _run(["-X", "importtime", "-m", "config.cli", flag], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip(), "printed nothing"
    loaded = sorted(_imported(result.stderr) & set(HEAVY))
    assert not loaded, f"heartbench {flag} imported {', '.join(loaded)}"


def test_heartbench_help_is_djangos_main_help_text():
    from django.core.management import ManagementUtility

    from config.cli import main_help_text

    expected = ManagementUtility(["heartbench"]).main_help_text()
    assert main_help_text(prog_name="heartbench") == expected
    assert "[benchmark]" in expected and "    judge" in expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [(["help", "judge"], "usage: heartbench judge"), (["leaderboard", "--help"], "--min-coverage")],
)
def test_help_on_one_command_still_goes_through_django(tmp_path, args, expected):
    result = _run(["-c", f"import sys; sys.argv = {['heartbench', *args]!r}; "
                   "from config.cli import main; main()"], tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert expected in result.stdout


BLAS_THREADS = """
import ctypes, pathlib, sys
if sys.argv[1] == "config":
    import config  # what every Django process, the command line and the workers import first
import numpy
found = sorted((pathlib.Path(numpy.__file__).parent.parent / "numpy.libs").glob("*openblas*"))
print(ctypes.CDLL(str(found[0])).scipy_openblas_get_num_threads64_() if found else "-")
"""


def test_a_process_of_the_project_computes_with_one_blas_thread(tmp_path):
    # config/__init__.py sets OPENBLAS_NUM_THREADS=1 (unless set): figures do not depend on
    # the core count, and the statistics do not fight the web workers for the cores.
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    threads = {}
    for first in ("config", "numpy"):
        done = subprocess.run(
            [sys.executable, "-c", BLAS_THREADS, first],
            cwd=ROOT,
            env=env | {"PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        threads[first] = done.stdout.strip()
    if threads["config"] == "-":
        pytest.skip("numpy is not linked to scipy-openblas here: its thread count is not read")
    assert threads["config"] == "1"
    if (os.cpu_count() or 1) > 1:
        assert int(threads["numpy"]) > 1  # without config first, OpenBLAS takes every core
