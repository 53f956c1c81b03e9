"""Every page carries a Content-Security-Policy, and imported text cannot reorder a page
(issue 40, item 8).

The pages load no third-party script and write none inline, so the policy allows scripts from
the site alone; the rendered HTML of every kind of page is checked for an inline script or an
event-handler attribute, which the policy would block. Bidirectional controls (U+202A–U+202E,
U+2066–U+2069) in a case's dialogue, a response or a criterion are neutralised where the text
is rendered, in pages and in the expert API the workbench renders from.
"""

import re

import pytest
from django.test import Client

from benchmark.models import Case, Response, RubricItem
from config.page_safety import BIDI_CONTROLS, CONTENT_SECURITY_POLICY
from tests.builders.accounts import UserFactory
from tests.builders.hostile import api_for, hostile_world, page_for

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>")
HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


@pytest.fixture
def world():
    world = hostile_world()
    world["staff"] = UserFactory(is_staff=True, is_superuser=True)
    return world


def pages(world) -> list[tuple]:
    case = world["study"].units.get().case
    rater, senior, staff = world["rater"].user, world["senior"].user, world["staff"]
    return [
        (None, "/login/"),
        (None, "/admin/login/"),
        (None, "/no-such-page/"),
        (rater, "/"),
        (rater, "/done/"),
        (rater, f"/done/{world['rated']}/"),
        (rater, f"/discuss/{world['discussion']}/"),
        (rater, "/leaderboard/"),
        (rater, "/faq/"),
        (rater, "/library/"),
        (rater, "/profile/"),
        (world["labeller"].user, "/rate/hostile-b/"),
        (senior, "/adjudicate/"),
        (senior, "/adjudicate/hostile/"),
        (senior, "/standards/"),
        (senior, "/standards/warmth/"),
        (staff, "/admin/"),
        (staff, "/admin/benchmark/case/"),
        (staff, f"/admin/benchmark/case/{case.pk}/change/"),
        (staff, "/admin/auth/user/add/"),
        (staff, "/admin/dashboard/"),
        (staff, "/admin/dashboard/studies/hostile/"),
        (staff, "/admin/studies/hostile/report/"),
        (staff, "/leaderboard/"),
        (rater, "/api/v1/studies/"),  # the browsable API, for a browser
        (staff, "/api/docs/"),
    ]


def test_every_page_sends_the_policy_and_needs_nothing_it_forbids(world):
    policy = dict(part.strip().split(" ", 1) for part in CONTENT_SECURITY_POLICY.split(";"))
    assert policy["script-src"] == "'self'" and policy["object-src"] == "'none'"
    for user, url in pages(world):
        client = page_for(user) if user else Client()
        response = client.get(url, HTTP_ACCEPT="text/html")
        assert response.status_code in (200, 404), (url, response.status_code)
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY, url
        html = response.content.decode()
        assert not INLINE_SCRIPT.search(html), (url, INLINE_SCRIPT.search(html))
        assert not HANDLER.search(html), (url, HANDLER.search(html))


def test_the_api_and_static_files_need_no_policy_but_the_docs_script_is_a_file(world):
    docs = page_for(world["staff"]).get("/api/docs/")
    script = re.search(r'<script src="([^"]+\?script[^"]*)"', docs.content.decode())
    assert script, "Swagger UI's set-up is a script file, not inline"
    answer = page_for(world["staff"]).get(script.group(1).replace("&amp;", "&"))
    assert answer.status_code == 200 and "javascript" in answer["Content-Type"]


def bidi_world(world) -> str:
    """Every bidi control in the unit's dialogue, response and criteria; returns one."""
    controls = "".join(BIDI_CONTROLS)
    unit = world["study"].units.get()
    case = unit.case
    Case.objects.filter(pk=case.pk).update(
        dialogue=[{"role": "A", "content": f"我很难过{controls}结尾"}],
        primary_scene=f"职场{controls}",
    )
    Response.objects.filter(case=case).update(text=f"回应{controls}结尾")
    RubricItem.objects.filter(case=case).update(text=f"共情{controls}结尾")
    return controls


def test_bidi_controls_in_imported_text_never_reach_a_page_raw(world):
    bidi_world(world)
    for user, url in pages(world):
        client = page_for(user) if user else Client()
        html = client.get(url).content.decode()
        raw = [f"U+{ord(c):04X}" for c in BIDI_CONTROLS if c in html]
        assert not raw, (url, raw)
    # The text is still there, with each control shown for what it is.
    admin = page_for(world["staff"]).get(
        f"/admin/benchmark/case/{world['study'].units.get().case.pk}/change/"
    )
    assert "我很难过" in admin.content.decode() and "[U+202E]" in admin.content.decode()


def test_the_unit_the_workbench_renders_carries_no_raw_bidi_control(world):
    bidi_world(world)
    claim = world["claim"]
    unit = api_for(world["labeller"].user).get(f"/api/v1/assignments/{claim['id']}/").content
    senior = api_for(world["senior"].user)
    decision = senior.get(f"/api/v1/adjudications/{world['decision']['id']}/").content
    for body in (unit, decision):
        text = body.decode()
        assert "回应" in text and not any(c in text for c in BIDI_CONTROLS)
        assert "[U+202E]" in text
