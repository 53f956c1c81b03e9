"""A judge run's Inspect AI log opened in `inspect view` in Chromium, as a researcher opens it:
the task names judge and dataset, one column per ability, the answers in view, the question
with an error verdict shown as an error (not a success), and a sample's transcript the judge's
request and reply."""

import contextlib
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command

from tests.builders.judge_log import logged_run
from tests.e2e.conftest import shoot
from tests.services import free_port

pytestmark = [pytest.mark.browser, pytest.mark.django_db]
INSPECT = Path(sys.executable).parent / "inspect"


@pytest.fixture
def run():
    return logged_run()


def test_the_log_reads_as_a_heartbench_run_in_inspect_view(run, tmp_path, browser_page, artifacts):
    pytest.importorskip("inspect_ai")
    logs = tmp_path / "logs"
    logs.mkdir()
    call_command("export_log", run=run.pk, format="inspect", output=str(logs / "run.eval"))
    port = free_port()
    view = subprocess.Popen(
        [str(INSPECT), "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline and view.poll() is None, "inspect view did not start"
            time.sleep(0.2)
        page = browser_page
        page.set_viewport_size({"width": 1366, "height": 768})
        page.goto(f"http://127.0.0.1:{port}/")
        page.locator("#task-title", has_text="heartbench judge claude on log-set v1").wait_for(
            timeout=30_000
        )
        page.get_by_text("answer to q-ok").wait_for()
        body = page.inner_text("body")
        for column in ("WARMTH", "CURIOSITY", "CATASTROPHIC", "QUESTION_SCORE"):
            assert column in body.upper()
        assert "criterion_0" not in body and "NaN" not in body
        shoot(page, artifacts, "inspect-view-samples")
        # The sample's transcript is the judge's request and reply, not a size message.
        page.get_by_text("answer to q-ok").first.click()
        page.get_by_role("tab", name="Transcript").click()
        page.get_by_text("judge prompt for q-ok").first.wait_for(timeout=15_000)
        shoot(page, artifacts, "inspect-view-transcript")
    finally:
        view.kill()
        view.wait(10)
