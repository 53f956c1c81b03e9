"""A rubric's author self-validates a draft in Chromium, in both languages: response A with
the keyboard (1, 0, Enter to the unlabelled one, Enter to submit), response B with the mouse;
the judge's verdicts appear beside each only after its submit, the disagreement marked; a
criterion revised from the comparison leaves the label marked as of an old version. Every
page readable at 1920, 1366 and 390 px without sideways scroll, passing axe-core, focus
shown. Screenshots ``selfcheck-<page>-<width>-<language>.png``."""

import pytest

from annotation.models import MockScore
from benchmark.models import DraftCriterion
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import AXE
from tests.builders.selfcheck import selfcheck_world, snapshot_judged
from tests.conftest import require
from tests.e2e.conftest import login
from tests.e2e.widths import readable_at_every_width

DISAGREEMENT = {"en": "1 disagreement with the judge", "zh-hans": "与评判模型有 1 处分歧"}
STALE = {"en": "Your label is of version 1", "zh-hans": "你的标注针对第 1 版"}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_author_labels_by_keyboard_and_mouse_then_meets_the_judge(
    live_server, page_in, artifacts
):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    author = ExpertFactory(user__username=f"author-{lang}")
    world = selfcheck_world(author=author.user, name=f"pilot-{lang}")
    snapshot_judged(draft=world.draft, judge_name=f"judge-{lang}",
                    states={"ref-a": ["met", "met", "not_met"], "ref-b": ["met"] * 3,
                            "ref-c": ["not_met"] * 3})  # fmt: skip
    problems = []
    login(page, live_server, author.user.username, PASSWORD, next_path="/construct/selfcheck/")
    page.wait_for_selector("table.selfcheck-drafts")
    problems += readable_at_every_width(page, artifacts, "selfcheck-home")
    page.click("table.selfcheck-drafts a.button")
    page.wait_for_selector(f"#response-{world.responses['ref-a'].pk}")
    assert f"judge-{lang}" not in page.content()  # nothing submitted: the judge is hidden
    problems += readable_at_every_width(page, artifacts, "selfcheck-draft-before")

    # Response A by keyboard: 1 met, 0 not met; Enter with one left goes to it; Enter submits.
    page.click(f"#response-{world.responses['ref-a'].pk} a.button")
    page.wait_for_selector("#selfcheck-form li.current")
    page.keyboard.press("1")
    page.keyboard.press("0")
    page.keyboard.press("k")
    page.keyboard.press("1")  # changed my mind: the second is met after all ...
    page.keyboard.press("k")
    page.keyboard.press("0")  # ... and back to not met, by keys alone
    page.keyboard.press("Enter")
    assert page.locator("li.current").get_attribute("data-criterion") == str(world.criteria[2].pk)
    page.keyboard.press("0")
    page.wait_for_function(
        "document.getElementById('selfcheck-saved').textContent.length > 0"
        " && !document.getElementById('selfcheck-saved').textContent.includes('…')"
    )
    assert MockScore.objects.filter(submitted_at__isnull=True).count() == 3  # autosaved
    problems += readable_at_every_width(page, artifacts, "selfcheck-label")
    page.keyboard.press("Enter")
    page.wait_for_selector("table.selfcheck-compare")
    assert DISAGREEMENT[lang] in page.inner_text(f"#response-{world.responses['ref-a'].pk}")
    assert page.locator("tr.state-disagree").count() == 1
    assert f"judge-{lang}" in page.content()

    # Response B by mouse: click each mark, then Submit.
    page.click(f"#response-{world.responses['ref-b'].pk} a.button")
    page.wait_for_selector("#selfcheck-form")
    for criterion, value in zip(world.criteria, ("1", "1", "0"), strict=True):
        page.click(f"input[name='criterion-{criterion.pk}'][value='{value}']")
    page.click("#selfcheck-submit")
    page.wait_for_selector(f"#response-{world.responses['ref-b'].pk} table.selfcheck-compare")
    assert page.locator("tr.state-disagree").count() == 2
    submitted = MockScore.objects.filter(submitted_at__isnull=False)
    assert sorted(submitted.values_list("response__model__name", "criterion__position", "met")) \
        == [(f"pilot-{lang}-ref-a", 0, True), (f"pilot-{lang}-ref-a", 1, False),
            (f"pilot-{lang}-ref-a", 2, False), (f"pilot-{lang}-ref-b", 0, True),
            (f"pilot-{lang}-ref-b", 1, True), (f"pilot-{lang}-ref-b", 2, False)]  # fmt: skip

    # Revise the criterion A disagreed on, from the comparison.
    second = world.criteria[1]
    page.click(f"tr.state-disagree a[href='#revise-{second.pk}']")
    page.click(f"#revise-{second.pk} summary")
    page.fill(f"#revise-{second.pk} textarea[name=text]", "询问了失眠持续多久、如何影响白天")
    page.fill(f"#revise-{second.pk} textarea[name=reason]", "更具体，便于二元判断")
    page.click(f"#revise-{second.pk} button[type=submit]")
    page.wait_for_selector(".messages")
    assert DraftCriterion.objects.get(pk=second.pk).version == 2
    assert STALE[lang] in page.inner_text(f"#response-{world.responses['ref-a'].pk}")
    problems += readable_at_every_width(page, artifacts, "selfcheck-draft-after")
    assert not problems, "\n".join(problems)
