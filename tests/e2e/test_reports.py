"""Both HTML reports in headless Chromium: they render, every chart is labelled, screenshots."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.builders.browser import open_file
from tests.builders.studies import rated_study

LABELLED = """() => [...document.querySelectorAll('figure svg')].map(s => ({
  title: (s.querySelector('title') || {}).textContent || '',
  desc: (s.querySelector('desc') || {}).textContent || '',
  width: s.getBoundingClientRect().width}))"""


def check_charts(page) -> int:
    charts = page.evaluate(LABELLED)
    assert charts, "no chart rendered"
    for chart in charts:
        assert chart["title"] and chart["desc"] and chart["width"] > 100, chart
    assert page.evaluate("document.querySelectorAll('figure script, section script').length") == 0
    return len(charts)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_study_report_page_and_file(live_server, browser_page, artifacts):
    study = rated_study(name="e2e-report")
    get_user_model().objects.create_superuser("admin-e2e", "a@example.org", "pw-admin-e2e-1")
    page = browser_page
    page.goto(f"{live_server.url}/admin/login/?next=/admin/studies/e2e-report/report/")
    page.fill("#id_username", "admin-e2e")
    page.fill("#id_password", "pw-admin-e2e-1")
    page.click("input[type=submit]")
    page.wait_for_selector("section.judge")
    assert "judge-a" in page.inner_text("body")
    assert page.locator("a[href='?format=html']").count() == 1
    on_page = check_charts(page)
    page.screenshot(path=str(artifacts / "study-report-page.png"), full_page=True)

    target = artifacts / "study-report.html"
    call_command("study", "report", study.name, "--format", "html", "--resamples", "300",
                 "--output", str(target), stderr=io.StringIO())  # fmt: skip
    assert open_file(page, target) == []
    assert check_charts(page) == on_page
    assert "<script>" in page.inner_text("body")  # the hostile model name, shown as text
    page.screenshot(path=str(artifacts / "study-report-file.png"), full_page=True)
    page.emulate_media(media="print")
    page.screenshot(path=str(artifacts / "study-report-print.png"), full_page=True)

    leaderboard = artifacts / "leaderboard.html"
    out = io.StringIO()
    call_command("leaderboard", "--dataset", study.dataset.name, "--format", "html", stdout=out)
    leaderboard.write_text(out.getvalue(), encoding="utf-8")
    page.emulate_media(media="screen")
    assert open_file(page, leaderboard) == []
    assert check_charts(page) == 1 + 3  # normal vs hard, a radar per model
    assert "e2e-report" in page.inner_text(".gate")
    page.screenshot(path=str(artifacts / "leaderboard-report.png"), full_page=True)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_study_report_gate_baseline_and_scores_at_three_widths(live_server, page_in, artifacts):
    """The report page's new sections in both languages at 1920, 1366 and 390 px."""
    rated_study(name="e2e-gate")
    get_user_model().objects.create_superuser("admin-gate", "g@example.org", "pw-admin-gate-1")
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/studies/e2e-gate/report/")
    page.fill("#id_username", "admin-gate")
    page.fill("#id_password", "pw-admin-gate-1")
    page.click("input[type=submit]")
    page.wait_for_selector("section.judge")
    assert page.locator(".gatebox").count() == 2  # one per judge
    assert page.locator(".gatebox table.conditions tr").count() >= 2 * (1 + 4)
    assert page.locator("table.baseline").count() == 2
    assert page.locator("table.raters tr").count() == 1 + 3
    titles = page.evaluate(LABELLED)
    assert sum("Bland" in chart["title"] for chart in titles) == 2
    check_charts(page)
    for width in (1920, 1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(".gatebox").first.scroll_into_view_if_needed()
        path = artifacts / f"study-report-gate-{width}-{page.language}.png"
        page.screenshot(path=str(path), full_page=True)
        for name, selector in (
            ("gatebox", ".gatebox"),
            ("baseline", "table.baseline"),
            ("bland-altman", "figure:has(svg title:text-matches('Bland'))"),
            ("raters", "table.raters"),
            ("provenance", "table.provenance"),
            ("latent-class", "section.latent-class"),
        ):
            page.locator(selector).first.screenshot(
                path=str(artifacts / f"study-report-{name}-{width}-{page.language}.png")
            )
