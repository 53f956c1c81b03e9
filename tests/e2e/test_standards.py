"""A senior expert writes, then revises, an ability's absolute standard in Chromium, in both
languages, with the mouse; every page readable at 1920, 1366 and 390 px with
no sideways scroll and passing axe-core. Screenshots ``standards-<page>-<width>-<language>.png``.
"""

import pytest

from annotation.models import Expert
from benchmark.models import AbsoluteStandard
from benchmark.services.standards import standard_write
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import AXE
from tests.conftest import require
from tests.e2e.conftest import login
from tests.e2e.widths import readable_at_every_width

SAVED = {"en": "Version 2 saved.", "zh-hans": "已保存第 2 版。"}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_senior_revises_a_standard_and_reads_its_history(live_server, page_in, artifacts):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    senior = ExpertFactory(user__username=f"senior-std-{lang}", tier=Expert.Tier.SENIOR)
    standard_write(
        ability="curiosity",
        text="提出开放式问题，邀请用户讲述具体经历，而不是给出假设。",
        author=senior.user,
    )
    problems = []
    login(page, live_server, senior.user.username, PASSWORD, next_path="/standards/")
    page.wait_for_selector("table.standards")
    assert page.locator("table.standards tbody tr").count() == 15
    problems += readable_at_every_width(page, artifacts, "standards-list")

    page.click("a[href='/standards/curiosity/']")
    page.wait_for_selector("#standard-text")
    page.fill("#standard-text", "提出开放式问题，邀请用户讲述具体经历；不替用户下结论。")
    page.click("form.standard button[type=submit]")
    # A revision needs a reason: the browser holds the form back (the server refuses too).
    assert page.evaluate("document.querySelector('#standard-reason').validity.valueMissing")
    assert AbsoluteStandard.objects.get(ability="curiosity").version == 1
    page.fill("#standard-reason", "补充：不替用户下结论")
    page.click("form.standard button[type=submit]")
    page.wait_for_selector(".messages")
    assert SAVED[lang] in page.inner_text(".messages")
    assert page.locator("ul.standard-history li").count() == 2
    problems += readable_at_every_width(page, artifacts, "standards-edit")
    assert AbsoluteStandard.objects.get(ability="curiosity").version == 2
    assert not problems, "\n".join(problems)
