"""Every kind of page still works under its Content-Security-Policy (issue 40, item 8).

Chromium loads the expert's pages (the workbench and the senior queue, run by scripts), the
leaderboard with its charts, the admin (its scripted widgets), the dashboard and Swagger UI,
and reports any request or script the policy refused; each page's script must have run. A
criterion with a right-to-left override reads as imported, its control shown, not obeyed.
"""

import pytest

from benchmark.models import RubricItem
from tests.builders.accounts import PASSWORD, UserFactory
from tests.builders.hostile import hostile_world
from tests.builders.leaderboards import judged_dataset
from tests.e2e.conftest import login


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_every_kind_of_page_works_under_the_policy(live_server, chromium):
    judged_dataset(models=3)
    world = hostile_world()
    expert, senior = world["labeller"], world["senior"]
    RubricItem.objects.update(text="共情\u202e反转\u202c结尾")
    staff = UserFactory(username="policy-admin", is_staff=True, is_superuser=True)
    refused: list[str] = []

    def page_for(username: str):
        page = chromium.new_context(locale="en-US").new_page()
        page.on(
            "console",
            lambda m: (
                refused.append(f"{page.url}: {m.text}")
                if "Content Security Policy" in m.text
                else None
            ),
        )
        page.on("pageerror", lambda e: refused.append(f"{page.url}: {e}"))
        login(page, live_server, username, PASSWORD)
        return page

    rater = page_for(expert.user.username)
    rater.goto(f"{live_server.url}/rate/hostile-b/")
    rater.wait_for_selector("#criteria li")
    text = rater.locator("#criteria li .text").first.text_content()
    assert text == "共情[U+202E]反转[U+202C]结尾"
    rater.goto(f"{live_server.url}/leaderboard/")
    rater.wait_for_selector("#leaderboard")

    seniors = page_for(senior.user.username)
    seniors.goto(f"{live_server.url}/adjudicate/hostile/")
    seniors.wait_for_selector("#criteria li")
    seniors.goto(f"{live_server.url}/standards/warmth/")

    admin = page_for("policy-admin")
    admin.goto(f"{live_server.url}/admin/auth/user/{staff.pk}/change/")
    admin.wait_for_selector(".selector-available")  # the permissions widget, built by script
    admin.goto(f"{live_server.url}/admin/dashboard/")
    admin.goto(f"{live_server.url}/admin/dashboard/studies/hostile/")
    admin.goto(f"{live_server.url}/admin/studies/hostile/report/")
    admin.goto(f"{live_server.url}/leaderboard/")
    admin.wait_for_selector("figure svg")
    admin.goto(f"{live_server.url}/api/docs/")
    admin.wait_for_selector(".swagger-ui .info")  # Swagger UI ran from its script file
    assert refused == []
