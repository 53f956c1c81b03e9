"""The import page in Chromium, in both languages: from the dashboard, the admin uploads the
released dataset with the mouse and watches the upload's progress bar, then "importing",
then the result with its seven warnings; then a bad file with the keyboard, and sees its line.
axe-core finds nothing (no violation of any impact); screenshots
``manage-import-<state>-<width>-<language>.png`` at 1920, 1366 and 390 px."""

import pytest
from django.contrib.auth import get_user_model

from benchmark.models import Dataset
from tests.builders.browser import AXE
from tests.conftest import require
from tests.e2e.widths import readable_at_every_width, shoot_widths

PASSWORD = "pw-admin-import-1"
WORDS = {
    "uploading": {"en": "Uploading", "zh-hans": "正在上传"},
    "importing": {"en": "Importing", "zh-hans": "正在导入"},
    "line": {"en": "Line 3:", "zh-hans": "第 3 行："},
    "cases": {"en": "296 cases", "zh-hans": "296 个案例"},
    "warnings": {"en": "7 data warnings", "zh-hans": "7 条数据警告"},
}
# Every text the upload's status line shows, as it changes (Playwright's evaluate is not
# subject to the page's policy, as axe's injection is not).
WATCH = """() => {
  window.__seen = [];
  new MutationObserver(() => {
    document.querySelectorAll('.upload-progress:not([hidden])').forEach((box) => {
      const bar = box.querySelector('progress');
      window.__seen.push({text: box.querySelector('label').textContent,
                          value: bar.hasAttribute('value') ? bar.value : null, max: bar.max});
    });
  }).observe(document.body, {subtree: true, childList: true, characterData: true,
                             attributes: true});
}"""


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_admin_imports_the_released_dataset_and_sees_a_bad_files_line(
    live_server, page_in, artifacts, shared_data, tmp_path
):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    get_user_model().objects.create_superuser("admin-import", "i@example.org", PASSWORD)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/")
    page.fill("#id_username", "admin-import")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.click("#import-link")
    page.wait_for_selector("#import-dataset form")
    assert "Import a dataset first" in page.inner_text("#import-answers") or lang != "en"
    problems = readable_at_every_width(
        page, artifacts, "manage-import-empty", presses=14, every_impact=True
    )

    # The mouse: choose the released file and press the dataset form's button. The upload is
    # slowed to ~256 KB/s so that its progress can be watched.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 20,
             "downloadThroughput": -1, "uploadThroughput": 256 * 1024})  # fmt: skip
    page.set_input_files("#id_dataset-file", str(shared_data / "question_all.jsonl"))
    page.evaluate(WATCH)
    page.click("#import-dataset button[type=submit]")
    progress = page.locator("#import-dataset .upload-progress progress")
    progress.wait_for(state="visible")
    page.wait_for_function(
        "document.querySelector('#import-dataset .upload-progress progress').value > 0"
    )
    shoot_widths(page, artifacts, "manage-import-uploading")
    page.wait_for_selector("#import-outcome.imported", timeout=60000)
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0,
             "downloadThroughput": -1, "uploadThroughput": -1})  # fmt: skip
    seen = page.evaluate("window.__seen || []")
    assert any(WORDS["uploading"][lang] in s["text"] and s["value"] for s in seen), seen[:5]
    assert any(WORDS["importing"][lang] in s["text"] and s["value"] is None for s in seen)
    # The outcome has the focus, so a keyboard or screen-reader user is at the news.
    assert page.evaluate("document.activeElement.id") == "import-outcome"
    outcome = page.inner_text("#import-outcome")
    assert WORDS["cases"][lang] in outcome and "3,114" in outcome
    assert WORDS["warnings"][lang] in outcome
    assert page.locator("#import-outcome table.warnings tbody tr").count() == 7
    dataset = Dataset.objects.get(name="question_all")
    assert dataset.case_count == 296
    # The new dataset is offered at once to the answers and verdicts forms.
    assert page.input_value("#id_answers-dataset") == "question_all:v1"
    problems += readable_at_every_width(
        page, artifacts, "manage-import-done", presses=14, every_impact=True
    )

    # The keyboard: a bad file, the button reached with Tab and pressed with Enter.
    bad = tmp_path / "question_broken.jsonl"
    lines = (shared_data / "question_all.jsonl").read_text(encoding="utf-8").splitlines()
    bad.write_text("\n".join([lines[0], lines[1], lines[2][:-40], lines[3]]) + "\n", "utf-8")
    page.set_input_files("#id_dataset-file", str(bad))
    page.focus("#id_dataset-allow_copy")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent").strip()
    page.keyboard.press("Enter")
    page.wait_for_selector("#import-outcome.refused")
    failure = page.inner_text("#import-outcome .failure")
    assert WORDS["line"][lang] in failure and "invalid JSON" in failure
    assert "question_broken.jsonl" in page.inner_text("#import-outcome")
    assert Dataset.objects.count() == 1  # nothing written
    problems += readable_at_every_width(
        page, artifacts, "manage-import-refused", presses=14, every_impact=True
    )
    assert not problems, "\n".join(problems)
