"""The language switch and the script catalogue in a real browser.

A browser that asks for Chinese gets Chinese; the switch on the page changes the language for
the rest of the visit (the cookie), server-rendered text and the workbench script's own
strings (from /jsi18n/) alike. Screenshots: ``language-<page>-<language>.png``.
"""

import pytest

from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.studies import open_study
from tests.e2e.conftest import shoot


def switch_to(page, language_name: str) -> None:
    with page.expect_navigation():
        page.click(f".lang-switch button:has-text('{language_name}')")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_switch_changes_every_page_and_the_workbench_script(live_server, chromium, artifacts):
    expert = ExpertFactory(user__username="rater-lang")
    open_study(cases=1, experts=[expert], name="lang-study", show_ability=True)
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    page = context.new_page()

    page.goto(f"{live_server.url}/login/?next=/rate/lang-study/")
    assert page.get_attribute("html", "lang") == "zh-hans"
    assert page.inner_text("h1") == "专家登录"
    page.language = "zh-hans"
    shoot(page, artifacts, "language-login")

    switch_to(page, "English")
    assert page.get_attribute("html", "lang") == "en"
    assert page.inner_text("h1") == "Expert log in"
    assert "next=/rate/lang-study/" in page.url  # the switch came back to the same page
    page.language = "en"
    shoot(page, artifacts, "language-login")

    page.fill("input[name=username]", "rater-lang")
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#criteria li")
    # The script's strings come from the JavaScript catalogue of the chosen language.
    assert page.inner_text("#status") == "Rate each criterion: does the response meet it?"
    page.keyboard.press("1")
    pressed = "#criteria li >> nth=0 >> button[aria-pressed=true]"
    assert page.inner_text(pressed) == "✓ Met"
    # The API sends ability codes; the page names them in its language.
    assert set(page.locator("#criteria .ability").all_inner_texts()) == {
        "Warmth", "Curiosity", "Emotional coping", "Catastrophic failure"}  # fmt: skip
    shoot(page, artifacts, "language-workbench")

    switch_to(page, "简体中文")
    page.wait_for_selector("#criteria li")
    assert page.get_attribute("html", "lang") == "zh-hans"
    assert page.inner_text("#status") == "请逐条评分：回应是否满足该标准？"
    assert page.inner_text("#response-title") == "待标注的回应"
    assert page.inner_text("#criteria-title").startswith("评分标准")
    page.keyboard.press("0")
    assert page.inner_text(pressed) == "✗ 未满足"
    assert set(page.locator("#criteria .ability").all_inner_texts()) == {
        "温暖", "好奇心", "情绪应对", "灾难性失误"}  # fmt: skip
    page.language = "zh-hans"
    shoot(page, artifacts, "language-workbench")

    # The choice holds for the rest of the visit, whatever the browser asks for.
    page.goto(f"{live_server.url}/done/")
    assert page.inner_text("h1") == "我完成的工作"
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_curly_quotes_are_latin_on_english_pages_and_full_width_on_chinese(live_server, chromium):
    """The CJK font's quotes are one em wide each: in English, “name” would read as spaced."""
    widths = {}
    for locale in ("en", "zh-CN"):
        context = chromium.new_context(locale=locale)
        page = context.new_page()
        page.goto(f"{live_server.url}/login/")
        widths[page.get_attribute("html", "lang")] = page.evaluate(
            """() => {
                const span = document.createElement("span");
                span.textContent = "“”";
                document.body.append(span);
                const em = parseFloat(getComputedStyle(span).fontSize);
                return span.getBoundingClientRect().width / em;
            }"""
        )
        context.close()
    assert widths["en"] < 1.2, widths  # two Latin marks, about half an em each
    assert widths["zh-hans"] > 1.9, widths  # two full-width marks, Chinese typography kept
