"""Start-up stays light (issue 16): numpy and scipy load only where something computes with them.

Each check runs in a fresh interpreter, since the test process itself has long imported both.
"""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "scipy")

SETUP_URLCONF_ADMIN = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
from config.cli import django_setup, urls_load
django_setup()
urls_load()  # the URLconf, with every include() it names, as `heartbench serve` loads it
from django.contrib import admin
admin.site.get_urls()  # every registered ModelAdmin's URLs
assert "frontend.views.leaderboard" in sys.modules, "the views came with the URLconf"
print(" ".join(name for name in {heavy!r} if name in sys.modules) or "-")
"""


COMMANDS_WITHOUT_A_QUEUE = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
import benchmark.management.commands.generate, benchmark.management.commands.judge
print(" ".join(name for name in ("celery", "kombu") if name in sys.modules) or "-")
"""


CACHE_LIBRARY_BEFORE_THE_FORK = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
from config.cli import django_setup, urls_load
django_setup()
before = "redis" in sys.modules
urls_load()
print(before, "redis" in sys.modules)
"""


def _run(args: list[str], tmp_path: Path, **env_extra: str) -> subprocess.CompletedProcess:
    env = os.environ | {"HEARTBENCH_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    env |= env_extra
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


def test_the_urlconf_load_brings_the_cache_client_library_before_the_workers_fork(tmp_path):
    # No connection is made: nothing listens on this port.
    url = "redis://127.0.0.1:9/0"
    result = _run(["-c", CACHE_LIBRARY_BEFORE_THE_FORK], tmp_path, REDIS_URL=url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]


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


@pytest.mark.parametrize("command", ["study", "agreement", "leaderboard", "pairwise", "judge"])
def test_a_commands_help_leaves_scipy_stats_unloaded(tmp_path, command):
    # scipy.stats costs a second or more at import; the suite runs these commands in hundreds
    # of subprocesses, and a user asking for help waits for nothing it needs
    # (validation.statistics.lazy_scipy).
    code = (f"import sys; sys.argv = ['heartbench', {command!r}, '--help']\n"
            "from config.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('LOADED' if 'scipy.stats' in sys.modules else 'LIGHT')")  # fmt: skip
    result = _run(["-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("LIGHT"), (
        f"heartbench {command} --help loaded scipy.stats"
    )


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


def test_start_up_leaves_the_collector_on_with_what_it_built_frozen(tmp_path):
    """`django.setup()` runs without collector passes; what it built is frozen, and collection
    is back on for the command (a run makes and drops many objects of its own)."""
    check = "import gc; print(gc.isenabled(), gc.get_freeze_count() > 10000)"
    result = _run(["-c", "import sys; sys.argv = ['heartbench', 'shell', '-c', "
                   f"{check!r}]; from config.cli import main; main()"], tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "True True"


def test_start_up_and_the_llm_commands_load_celery_only_when_a_task_is_queued(tmp_path):
    result = _run(["-c", COMMANDS_WITHOUT_A_QUEUE], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "-", f"imported at start-up: {result.stdout.strip()}"


def test_the_tasks_registered_by_name_are_the_tasks_themselves():
    from annotation import events
    from benchmark.models import GenerationRun, JudgeRun
    from benchmark.services.dispatch import RUN_TASKS
    from benchmark.tasks import generation_run_task, judge_run_task
    from config.lazy_import import Lazy
    from webhooks.dispatch import TASKS
    from webhooks.tasks import webhook_deliver

    assert RUN_TASKS[JudgeRun].name == judge_run_task.name
    assert RUN_TASKS[GenerationRun].name == generation_run_task.name
    assert TASKS["deliver"].name == webhook_deliver.name
    # A senior's decision settles in its own transaction: no task waits on the broker for it.
    assert events.DECIDED == [Lazy("validation.services.unit_settle")]


ADMIN_LOADED = """
import atexit, sys
loaded = ("benchmark.admin", "annotation.services")
atexit.register(lambda: print(*(name in sys.modules for name in loaded)))
sys.argv = {argv!r}
from config.cli import main
main()
"""


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["heartbench", "judge", "--help"], "False False"),
        (["heartbench", "generate", "--help"], "False False"),
        (["heartbench", "shell", "-c", "pass"], "True True"),  # every other command: as before
    ],
)
def test_commands_that_serve_no_page_start_without_the_admin_modules(tmp_path, argv, expected):
    result = _run(["-c", ADMIN_LOADED.format(argv=argv)], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == expected


def test_the_urlconf_discovers_the_admin_when_start_up_did_not(tmp_path):
    probe = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; "
        "import django; from config.apps import AdminConfig; AdminConfig.discover = False; "
        "django.setup(); from django.contrib import admin; from django.urls import reverse; "
        "print(len(admin.site._registry)); "
        "print(reverse('admin:benchmark_judgerun_change', args=[7]), len(admin.site._registry))"
    )
    result = _run(["-c", probe], tmp_path)
    assert result.returncode == 0, result.stderr
    before, after = result.stdout.split("\n")[:2]
    assert before == "0"
    url, registered = after.split()
    assert url == "/admin/benchmark/judgerun/7/change/" and int(registered) > 10


def test_serve_loads_the_urlconf_before_it_forks_its_workers(monkeypatch):
    """The workers share the URLconf's modules and no worker's first request imports them."""
    from frontend.management.commands import serve

    order = []

    class Server:
        def run(self) -> None:
            order.append("workers forked")

    monkeypatch.setattr("config.cli.urls_load", lambda: order.append("URLconf loaded"))
    monkeypatch.setattr(serve, "_gunicorn_application", lambda options: Server())
    call_command("serve", "--port", "8999", stdout=io.StringIO())
    assert order == ["URLconf loaded", "workers forked"]
