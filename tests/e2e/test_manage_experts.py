"""The admin's expert pages and the invitation in Chromium, in both languages.

From the dashboard the admin opens the experts (a senior, an expert whose study asks for a
calibration not taken yet, a demo login), adds an expert with the mouse (no password typed),
copies the one-time invitation link with the button; the expert, in a second browser
context, opens the link, sets a password with the keyboard, logs in and reaches the
workbench; the used link is refused. The admin then makes the expert a senior and deactivates
them with the keyboard. axe-core finds nothing (no violation of any impact) and every control
shows its focus; screenshots ``manage-experts-<state>-<width>-<language>.png`` and
``invite-<state>-<width>-<language>.png`` at 1920, 1366 and 390 px.
"""

import pytest
from django.contrib.auth import get_user_model

from annotation import services
from annotation.models import Expert
from tests.builders.accounts import ExpertFactory
from tests.builders.browser import AXE, wait_for_unit
from tests.builders.calibration import calibration_set
from tests.builders.studies import open_study
from tests.conftest import require
from tests.e2e.conftest import LOCALES, login
from tests.e2e.widths import readable_at_every_width
from validation.services.lifecycle import study_enrol

ADMIN_PASSWORD = "pw-admin-experts-1"
NEW_PASSWORD = "a-long-password-of-hers"
STUDY = "invite-pilot"
WORDS = {
    "pending": {"en": "calibration pending", "zh-hans": "待校准"},
    "demo": {"en": "demo login", "zh-hans": "演示账号"},
    "copied": {"en": "Copied", "zh-hans": "已复制"},
    "set": {"en": "Your password is set", "zh-hans": "密码已设置"},
    "refused": {"en": "no longer works", "zh-hans": "邀请链接已失效"},
    "invited": {"en": "no password set yet", "zh-hans": "尚未设置密码"},
}


def world():
    admin = get_user_model().objects.create_superuser("admin-experts", "", ADMIN_PASSWORD)
    senior = ExpertFactory(user__username="sam-senior", tier="senior", specialties=["morality"])
    pat = ExpertFactory(user__username="pat", specialties=["warmth", "职场心理"])
    ExpertFactory(user__username="demo-expert-1", is_demo=True)
    study = open_study(cases=2, experts=[pat], name=STUDY)
    calibration = calibration_set(senior=senior, units=2, name=f"{STUDY}-calibration")
    services.pool_set_quality_policy(pool=study.pool, calibration=calibration, actor=admin)
    return study


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_admin_invites_an_expert_who_sets_a_password_and_rates(
    live_server, page_in, chromium, artifacts
):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    study = world()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/")
    page.fill("#id_username", "admin-experts")
    page.fill("#id_password", ADMIN_PASSWORD)
    page.click("input[type=submit]")

    # The mouse: the dashboard's link, the list, the add form.
    page.click("#experts-link")
    page.wait_for_selector("#experts-table")
    pat_row = page.inner_text("tr[data-expert=pat]")
    assert STUDY in pat_row and WORDS["pending"][lang] in pat_row
    assert WORDS["demo"][lang] in page.inner_text("tr[data-expert=demo-expert-1]")
    problems = readable_at_every_width(
        page, artifacts, "manage-experts-list", presses=16, every_impact=True
    )

    page.click("#add-expert")
    page.wait_for_selector("#expert-new form")
    page.click("#expert-username")
    page.keyboard.type("lin-invited")
    page.click("label:has(input[name=specialties][value=warmth])")
    page.click("label:has(input[name=specialties][value=emotional_coping])")
    problems += readable_at_every_width(
        page, artifacts, "manage-experts-new", presses=12, every_impact=True
    )
    page.click("#expert-add")
    page.wait_for_selector("#invitation-link")
    expert = Expert.objects.get(user__username="lin-invited")
    assert expert.specialties == ["warmth", "emotional_coping"] and expert.tier == "expert"
    assert not expert.user.has_usable_password()
    link = page.input_value("#invitation-link")
    assert link.startswith(f"{live_server.url}/invite/")
    page.click("#copy-link")
    page.wait_for_function(
        "(word) => document.getElementById('copy-status').textContent === word",
        arg=WORDS["copied"][lang],
    )
    assert page.evaluate("async () => await navigator.clipboard.readText()") == link
    problems += readable_at_every_width(
        page, artifacts, "manage-experts-added", presses=16, every_impact=True
    )

    # The study's admin lets the new expert rate (the study pages do it in the browser).
    study_enrol(study=study, usernames=["lin-invited"])

    # The expert, in a browser of their own: the link, a password with the keyboard, log in.
    context = chromium.new_context(viewport={"width": 1366, "height": 768}, locale=LOCALES[lang])
    invited = context.new_page()
    invited.language = lang
    invited.goto(link)
    invited.wait_for_selector("#invite form")
    assert "lin-invited" in invited.inner_text("#invite")
    problems += readable_at_every_width(
        invited, artifacts, "invite-form", presses=8, every_impact=True
    )
    invited.focus("input[name=new_password1]")
    invited.keyboard.type(NEW_PASSWORD)
    invited.keyboard.press("Tab")
    invited.keyboard.type(NEW_PASSWORD)
    invited.keyboard.press("Enter")
    invited.wait_for_url("**/login/**")
    assert WORDS["set"][lang] in invited.inner_text("main")
    expert.user.refresh_from_db()
    assert expert.user.check_password(NEW_PASSWORD)
    login(invited, live_server, "lin-invited", NEW_PASSWORD, next_path=f"/rate/{STUDY}/")
    assert invited.url.endswith(f"/rate/{STUDY}/")
    wait_for_unit(invited)

    # The used link: refused, in words.
    invited.goto(link)
    invited.wait_for_selector("#invite-refused")
    assert WORDS["refused"][lang] in invited.inner_text("#invite-refused")
    assert invited.locator("input[type=password]").count() == 0
    problems += readable_at_every_width(
        invited, artifacts, "invite-refused", presses=6, every_impact=True
    )

    # The keyboard, back at the admin's page: a senior now, then deactivated.
    page.goto(f"{live_server.url}/admin/manage/experts/{expert.pk}/")
    assert page.locator("#invitation-link").count() == 0  # shown once only
    assert page.locator("#invite-again").count() == 0  # a password is set: no more links
    page.focus("input[name=tier][value=expert]")
    page.keyboard.press("ArrowRight")
    assert page.is_checked("input[name=tier][value=senior]")
    page.focus("#expert-save")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expert.refresh_from_db()
    assert expert.tier == "senior"
    page.focus("#expert-deactivate")
    page.keyboard.press("Enter")
    page.wait_for_selector("#expert-reactivate")
    expert.refresh_from_db()
    assert not expert.is_active
    page.goto(f"{live_server.url}/admin/manage/experts/")
    row = page.inner_text("tr[data-expert=lin-invited]")
    assert WORDS["invited"][lang] not in row
    problems += readable_at_every_width(
        page, artifacts, "manage-experts-after", presses=16, every_impact=True
    )
    assert not problems, "\n".join(problems)
