"""Login throttling, CSRF on every form and session POST, escaping of data text, API keys."""

import logging
import re

import pytest
from django.test import Client

from benchmark.llm.fake_server import FakeLLM
from benchmark.models import AuditEvent, Case, JudgeRun, Response, RubricItem
from benchmark.services.judging import EngineOptions, judge_run_execute
from tests.builders.accounts import PASSWORD, ExpertFactory, UserFactory
from tests.builders.datasets import JudgeFactory, ResponseFactory, case_with_rubric
from tests.builders.llm import answered_dataset
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert('xss')</script>"
IMG = '<img src=x onerror="alert(1)">'


@pytest.mark.parametrize(
    ("door", "kind"),
    [("/login/", "form"), ("/admin/login/", "form"), ("/api/v1/auth/token/", "api")],
)
def test_failed_logins_are_throttled_per_user_and_a_success_clears_the_count(settings, door, kind):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 3, "per_address": 100, "window": 60}
    user = UserFactory(is_staff=True)
    client = Client()
    wrong = {"username": user.username, "password": "not-it"}
    right = {"username": user.username, "password": PASSWORD}
    failure = 200 if kind == "form" else 400
    assert [client.post(door, wrong).status_code for _ in range(2)] == [failure, failure]
    assert client.post(door, right).status_code in (200, 302)  # success resets the count
    client = Client()
    assert [client.post(door, wrong).status_code for _ in range(3)] == [failure] * 3
    blocked = client.post(door, right)
    assert blocked.status_code == 429 and blocked["Retry-After"] == "60"
    # Another user name from the same address is not locked out by this one's failures.
    other = UserFactory()
    assert client.post(door, {"username": other.username, "password": "x"}).status_code == failure


def test_many_user_names_from_one_address_hit_the_address_limit(settings):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 100, "per_address": 4, "window": 60}
    client = Client()
    codes = [client.post("/login/", {"username": f"u{i}", "password": "x"}).status_code
             for i in range(6)]  # fmt: skip
    assert codes == [200] * 4 + [429] * 2


def test_csrf_is_enforced_on_every_form_and_session_post():
    expert = ExpertFactory()
    open_study(cases=2, experts=[expert])
    admin_user = UserFactory(is_staff=True, is_superuser=True)
    anonymous = Client(enforce_csrf_checks=True)
    assert anonymous.post("/login/", {"username": "a", "password": "b"}).status_code == 403
    assert anonymous.post("/admin/login/", {"username": "a", "password": "b"}).status_code == 403

    session = Client(enforce_csrf_checks=True)
    session.force_login(expert.user)
    assert session.post("/logout/").status_code == 403
    # The API with a session cookie is a browser: DRF enforces CSRF there too.
    assert session.post("/api/v1/assignments/next/?study=study-a").status_code == 403
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(admin_user)
    assert staff.post("/admin/auth/user/add/", {}).status_code == 403

    # The same requests with the token go through: it is the check that refused them.
    session.get("/")
    token = session.cookies["csrftoken"].value
    claim = session.post("/api/v1/assignments/next/?study=study-a", HTTP_X_CSRFTOKEN=token)
    assert claim.status_code == 201


@pytest.fixture
def hostile_case():
    case = case_with_rubric(
        dialogue=[{"role": "A", "content": f"我很难过{SCRIPT}"}, {"role": "B", "content": IMG}]
    )
    RubricItem.objects.filter(case=case).update(text=f"共情{SCRIPT}{IMG}")
    ResponseFactory(case=case, text=f"回应{SCRIPT}{IMG}")
    return case


def test_dialogue_response_and_criterion_text_is_escaped_on_every_admin_page(hostile_case):
    admin_user = UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin_user)
    response = Response.objects.get(case=hostile_case)
    item = RubricItem.objects.filter(case=hostile_case).first()
    pages = [
        "/admin/benchmark/case/",
        f"/admin/benchmark/case/{hostile_case.pk}/change/",
        "/admin/benchmark/response/",
        f"/admin/benchmark/response/{response.pk}/change/",
        "/admin/benchmark/rubricitem/",
        f"/admin/benchmark/rubricitem/{item.pk}/change/",
    ]
    for url in pages:
        page = client.get(url)
        assert page.status_code == 200, url
        html = page.content.decode()
        assert SCRIPT not in html and IMG not in html, f"raw payload on {url}"
    assert Case.objects.filter(pk=hostile_case.pk).exists()


def test_the_workbench_never_writes_data_as_html():
    from pathlib import Path

    import frontend

    script = (Path(frontend.__file__).parent / "static" / "frontend" / "workbench.js").read_text()
    # Every piece of data reaches the page through textContent; innerHTML would parse it.
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script
    assert "textContent" in script


def test_the_api_key_is_never_logged_stored_or_shown(caplog):
    key = "sk-SECRET-never-show-4711"
    caplog.set_level(logging.DEBUG)
    with FakeLLM() as fake:
        dataset, model = answered_dataset(cases=2)
        judge = JudgeFactory(
            base_url=fake.base_url, prompt_template_version="heartbench-judge-zh-v1"
        )
        run = JudgeRun.objects.create(judge=judge, model=model, dataset=dataset, source="engine")
        outcome = judge_run_execute(run_id=run.pk, options=EngineOptions(api_key=key))
        assert outcome.status == "finished" and fake.count() == 2
    assert key not in caplog.text
    assert key not in repr(EngineOptions(api_key=key))
    run.refresh_from_db()
    stored = str(JudgeRun.objects.filter(pk=run.pk).values().get())
    assert key not in stored and key not in str(judge.parameters)
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    for url in ("/admin/benchmark/judgerun/", f"/admin/benchmark/judgerun/{run.pk}/change/",
                "/admin/benchmark/judge/", "/admin/benchmark/verdict/"):  # fmt: skip
        assert key not in client.get(url).content.decode(), url


def test_admins_browse_the_audit_trail_and_nobody_edits_it(admin_client, client):
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert], name="audited-study")

    def actions(url: str) -> list[str]:
        return re.findall(r'<td class="field-action">([^<]+)</td>', admin_client.get(url).text)

    assert {"study.create", "study.open"} <= set(actions("/admin/benchmark/auditevent/"))
    assert set(actions("/admin/benchmark/auditevent/?action=study.open")) == {"study.open"}
    event = AuditEvent.objects.filter(action="study.open").get()
    assert admin_client.get(f"/admin/benchmark/auditevent/{event.pk}/change/").status_code == 200
    assert admin_client.get(f"/admin/benchmark/auditevent/{event.pk}/delete/").status_code == 403
    assert admin_client.get("/admin/benchmark/auditevent/add/").status_code == 403
    client.force_login(expert.user)
    assert client.get("/admin/benchmark/auditevent/").status_code == 302  # to the admin login
