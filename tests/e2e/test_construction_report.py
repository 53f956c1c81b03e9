"""The construction report's HTML file in headless Chromium, in English and Chinese, at three
widths: it renders self-contained, every section is there, nothing overflows sideways."""

import io

import pytest
from django.core.management import call_command

from benchmark.services.construction import project_create
from tests.builders.browser import open_file
from tests.builders.construction import built

WIDTHS = (1920, 1366, 390)
HEADINGS = {
    "en": ["Funnel", "Drafts removed, by stage", "Discrimination before and after pruning",
           "Hard share", "Rubric agreement among reviewers"],
    "zh-hans": ["漏斗", "按阶段列出被移除的草稿", "剪除前后的区分度", "困难案例占比",
                "审阅者之间对评分标准的一致率"],
}  # fmt: skip


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_construction_report_renders_in_both_languages(chromium, language, artifacts):
    built(project_create(name="pilot", dataset_name="heartbench-pilot"))
    target = artifacts / f"construction-report-{language}.html"
    call_command("construct_report", "--project", "pilot", "--format", "html",
                 "--language", language, "--out", str(target), stderr=io.StringIO())  # fmt: skip
    for width in WIDTHS:
        page = chromium.new_page(viewport={"width": width, "height": 900})
        assert open_file(page, target) == []  # self-contained: no request beyond the file
        headings = page.locator("h2").all_inner_texts()
        assert all(heading in headings for heading in HEADINGS[language]), headings
        assert page.locator("html").get_attribute("lang") == language
        assert page.locator("#funnel + div tr").count() == 1 + 7  # header and seven stages
        page.locator("#removed-drafts + details summary").click()  # the reasons unfold
        assert "s-01: too easy: mean score 100.0" in page.inner_text("body")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{overflow}px sideways scroll at {width}px"
        page.screenshot(
            path=str(artifacts / f"construction-report-{width}-{language}.png"), full_page=True
        )
        page.close()
