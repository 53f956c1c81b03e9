"""An admin runs a whole study from the browser, on the served product (`heartbench serve`: the
embedded SQLite with tasks in process, or PostgreSQL with Redis and a worker), starting from an
empty platform: the dataset, two models' answers and their verdicts uploaded (a bad file
refused with its line), three experts invited (each sets a password from the link), a study
created, its sample previewed, opened, rated by the experts over the API, closed, and its
report opened. Every action is a click on the platform's own pages; only the names and
numbers are typed. axe-core finds nothing on the pages it passes; screenshots
``admin-browser-<step>-<width>-en.png``."""

import hashlib
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.builders.browser import AXE, axe_problems
from tests.conftest import require
from tests.product.conftest import BIN, ROOT

DEMO = ROOT / "fixtures" / "demo"
ADMIN, ADMIN_PASSWORD = "lab-admin", "lab-admin-password-1"
EXPERT_PASSWORD = "a-long-expert-password-7"
MODELS = {"advice-bot": "demo-advice-bot", "warm-counsellor": "demo-warm-counsellor"}
STUDY = "lab-pilot"


def _shots(page, artifacts: Path, step: str) -> None:
    for width in (1920, 1366):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(
            path=str(artifacts / f"admin-browser-{step}-{width}-en.png"), full_page=True
        )
    page.set_viewport_size({"width": 1366, "height": 900})


def _upload(page, kind: str, path: Path, **names: str) -> str:
    """One import form: the file, the names typed, the button clicked; the outcome's text."""
    page.set_input_files(f"#id_{kind}-file", str(path))
    for field, value in names.items():
        page.fill(f"#id_{kind}-{field}", value)
    page.click(f"#import-{kind} button[type=submit]")
    page.wait_for_selector(f"#import-outcome.imported:has-text('{path.name}'), "
                           f"#import-outcome.refused:has-text('{path.name}')")  # fmt: skip
    return page.inner_text("#import-outcome")


def _mark(username: str, criterion: dict) -> bool:
    """An expert's mark: the same for most experts, now and then one of them differs."""
    digest = hashlib.sha256(criterion["text"].encode()).digest()
    own = hashlib.sha256(f"{username}:{criterion['text']}".encode()).digest()[0] % 10 == 0
    return (digest[0] % 3 != 0) != own


def _rate_everything(base_url: str, username: str) -> int:
    """The expert's client: a token, then claim and submit until nothing is left."""
    done = 0
    with httpx.Client(base_url=base_url, timeout=60) as client:
        reply = client.post("/api/v1/auth/token/",
                            json={"username": username, "password": EXPERT_PASSWORD})  # fmt: skip
        assert reply.status_code == 200, reply.text
        headers = {"Authorization": f"Token {reply.json()['token']}"}
        while True:
            reply = client.post("/api/v1/assignments/next/", params={"study": STUDY},
                                headers=headers)  # fmt: skip
            if reply.status_code != 201:
                assert reply.status_code in (200, 204), reply.text
                return done
            body = reply.json()
            labels = [
                {"criterion": c["id"], "hit": _mark(username, c), "version": c["version"]}
                for c in body["unit"]["criteria"]
            ]
            submitted = client.post(f"/api/v1/assignments/{body['id']}/submit/",
                                    json={"labels": labels}, headers=headers)  # fmt: skip
            assert submitted.status_code in (200, 201), submitted.text
            done += 1


@pytest.mark.browser
def test_an_admin_takes_an_empty_platform_to_a_closed_study_with_a_report(
    empty_product, chromium, artifacts, tmp_path
):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    product = empty_product
    subprocess.run(
        [str(BIN / "heartbench"), "createsuperuser", "--noinput", "--username", ADMIN,
         "--email", "admin@example.org"],
        env={**product.env, "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD},
        cwd=ROOT, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    context = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="en")
    page = context.new_page()
    page.goto(f"{product.base_url}/admin/login/?next=/admin/dashboard/")
    page.fill("#id_username", ADMIN)
    page.fill("#id_password", ADMIN_PASSWORD)
    page.click("input[type=submit]")
    problems = []

    # The data: a dataset of our own (the demo's cases under a lab's file name), then each
    # model's answers and its judge's verdicts; a broken file first, refused with its line.
    page.click("#import-link")
    questions = tmp_path / "lab_questions.jsonl"
    shutil.copy(DEMO / "demo_questions.jsonl", questions)
    broken = tmp_path / "lab_broken.jsonl"
    lines = questions.read_text(encoding="utf-8").splitlines()
    broken.write_text("\n".join([lines[0], lines[1][:-30], *lines[2:]]) + "\n", "utf-8")
    refused = _upload(page, "dataset", broken)
    assert "Nothing was imported" in refused and "Line 2:" in refused
    assert "12 cases" in _upload(page, "dataset", questions)
    for model, demo_name in MODELS.items():
        answers = tmp_path / f"{model}.answers.jsonl"
        shutil.copy(DEMO / f"{demo_name}.answers.jsonl", answers)
        assert "12 answers imported" in _upload(page, "answers", answers, model=model)
        verdicts = tmp_path / f"{model}.scored.jsonl"
        shutil.copy(DEMO / f"{demo_name}.scored.jsonl", verdicts)
        scored = _upload(page, "verdicts", verdicts, model=model, judge="lab-judge")
        assert "lab-judge on " + model in scored and "60 verdicts" in scored
    _shots(page, artifacts, "imported")
    problems += axe_problems(page, "import", every_impact=True)

    # Three experts, invited: each sets a password from the link the admin copies.
    links = []
    for username in ("lin", "mei", "tao"):
        page.goto(f"{product.base_url}/admin/manage/experts/")
        page.click("#add-expert")
        page.fill("#expert-username", username)
        page.click("#expert-add")
        links.append((username, page.input_value("#invitation-link")))
    _shots(page, artifacts, "invited")
    for _username, link in links:
        assert link.startswith(product.base_url + "/invite/"), link
        expert = chromium.new_context(locale="en").new_page()
        expert.goto(link)
        expert.fill("input[name=new_password1]", EXPERT_PASSWORD)
        expert.fill("input[name=new_password2]", EXPERT_PASSWORD)
        expert.click("#set-password")
        expert.wait_for_url("**/login/**")
        expert.context.close()

    # The study: created as a draft, its sample seen, then opened.
    page.goto(f"{product.base_url}/admin/dashboard/")
    page.click("#new-study-link")
    page.fill("#study-name", STUDY)
    for model in MODELS:
        page.check(f"input[name=models][value={model}]")
    page.check("input[name=judge_runs][value=lab-judge]")
    page.fill("#study-fraction", "1")
    page.fill("#study-seed", "7")
    problems += axe_problems(page, "study-new", every_impact=True)
    page.click("#study-new button[type=submit]")
    page.wait_for_selector("#draft")
    preview = page.inner_text("#draft")
    assert "12 cases, 24 units; 3 raters a unit make 72 ratings" in preview
    assert "3 experts are enrolled." in preview
    _shots(page, artifacts, "draft")
    problems += axe_problems(page, "draft", every_impact=True)
    page.click("#open-form button")
    page.wait_for_selector("#close-form")
    assert "Status: open" in page.inner_text("#study-status")

    # The experts rate over the API, all three at once.
    with ThreadPoolExecutor(3) as pool:
        rated = list(pool.map(lambda item: _rate_everything(product.base_url, item[0]), links))
    assert rated == [24, 24, 24]

    # Closed from its page: every unit complete, so nothing goes to a senior or is dropped.
    page.reload()
    assert "24 units complete, 0 partly rated, 0 never rated." in page.inner_text("#close")
    _shots(page, artifacts, "closing")
    problems += axe_problems(page, "closing", every_impact=True)
    page.check("#close-form input[name=confirm]")
    page.click("#close-form button[type=submit]")
    page.wait_for_selector("ul.messagelist li.success")
    assert "24 complete, 0 partly rated, 0 never rated units" in page.inner_text("ul.messagelist")
    assert "Status: closed" in page.inner_text("#study-status")

    # The report, from the study's page.
    page.click(f"a[href='/admin/studies/{STUDY}/report/']")
    page.wait_for_selector("h2")
    report = page.inner_text("body")
    assert "lab-judge" in report and "Gate" in report
    _shots(page, artifacts, "report")
    context.close()
    assert not problems, "\n".join(problems)
