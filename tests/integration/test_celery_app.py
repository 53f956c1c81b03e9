"""Every thread and process resolves tasks to the project's Celery app.

Each probe runs in a fresh interpreter, because the test process has already set Celery's
per-thread state. The probe loads the project the way a WSGI server does (``config.wsgi``,
with no settings module in the environment) and asks from a new thread, as a request thread
of a threaded server would.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, threading
import config.wsgi
from {module} import {task} as task

seen = {{}}
def probe():
    app = task.app
    seen.update(app=app.main, eager=app.conf.task_always_eager, broker=app.conf.broker_url)
thread = threading.Thread(target=probe)
thread.start()
thread.join()
print(json.dumps(seen))
"""


def _probe(task: str = "validation.tasks.study_figures_warm_task", **env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    module, _, name = task.rpartition(".")
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module, task=name)],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_new_thread_runs_tasks_in_process_when_no_broker_is_configured():
    seen = _probe()
    assert seen["app"] == "heartbench"
    assert seen["eager"] is True


def test_a_new_thread_sends_tasks_to_the_configured_broker():
    seen = _probe(CELERY_BROKER_URL="redis://127.0.0.1:1/0")
    assert seen == {"app": "heartbench", "eager": False, "broker": "redis://127.0.0.1:1/0"}


def test_benchmark_tasks_resolve_to_the_project_app_too():
    # `import config` does not load the app (so `heartbench --version` starts without Celery);
    # every module that defines tasks does.
    seen = _probe("benchmark.tasks.judge_run_task")
    assert seen["app"] == "heartbench"
    assert seen["eager"] is True
