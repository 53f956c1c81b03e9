"""The admin's expert pages (/admin/manage/experts/) and the public invitation page
(/invite/<uidb64>/<token>/): add an expert without typing a password, the one-time link, the
expert sets a password and logs in; a used, replaced, expired or forged link refused with a
translated page; tier and specialties edited, deactivation and back, calibration by study;
every write audited, CSRF-protected and staff only."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from annotation import services
from annotation.models import Assignment, Expert
from annotation.selectors import experts as selectors
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.calibration import calibration_set, reference_labels
from tests.builders.i18n import untranslated
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db
LIST, NEW = "/admin/manage/experts/", "/admin/manage/experts/new/"
PASSWORD = "a-long-new-password-1"
LINK = re.compile(r'id="invitation-link"[^>]*>(http://testserver(/invite/[^<]+))</textarea>')


@pytest.fixture
def admin_user():
    return UserFactory(username="admin-experts", is_staff=True, is_superuser=True)


@pytest.fixture
def staff(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def add(client: Client, username="alice", tier="expert", specialties=("warmth",), **extra):
    return client.post(
        NEW,
        {"username": username, "tier": tier, "specialties": list(specialties)},
        follow=True,
        **extra,
    )


def link_of(response) -> str:
    found = LINK.search(response.content.decode())
    assert found, "no invitation link on the page"
    return found.group(2)


def set_password(link: str, password=PASSWORD, again=None, client=None, **extra):
    client = client or Client()
    return client.post(
        link, {"new_password1": password, "new_password2": again or password}, **extra
    )


def test_add_invite_set_the_password_and_log_in(staff, admin_user):
    page = add(staff, specialties=("warmth", "职场心理"))
    assert page.status_code == 200
    expert = Expert.objects.get(user__username="alice")
    assert expert.tier == "expert" and expert.specialties == ["warmth", "职场心理"]
    assert not expert.user.has_usable_password()  # nobody typed a password for them
    link = link_of(page)
    assert b"Expert alice added" in page.content
    created = AuditEvent.objects.get(action="expert.create", object_id=str(expert.pk))
    assert created.actor == admin_user and created.data == {"tier": "expert", "invited": True}

    # The link is shown once: the expert's page again shows none, and offers a new one.
    again = staff.get(f"/admin/manage/experts/{expert.pk}/")
    assert b'id="invitation-link"' not in again.content and b'id="invite-again"' in again.content

    invited = Client()
    form = invited.get(link)
    assert form.status_code == 200 and b"alice" in form.content
    assert b'name="new_password1"' in form.content
    done = set_password(link, client=invited)
    assert done.status_code == 302 and done["Location"].startswith("/login/")
    expert.user.refresh_from_db()
    assert expert.user.check_password(PASSWORD)
    assert AuditEvent.objects.filter(action="expert.password_set", object_id=str(expert.pk))
    login = invited.get(done["Location"])
    assert b"Your password is set" in login.content
    assert invited.post("/login/", {"username": "alice", "password": PASSWORD}).status_code == 302
    assert invited.get("/").status_code == 200  # the expert's home: a signed-in expert
    # The list now says the invitation is used: no "no password set yet" for alice.
    assert b"no password set yet" not in staff.get(LIST).content


def test_a_used_link_is_refused_with_a_translated_page(staff):
    link = link_of(add(staff))
    assert set_password(link).status_code == 302
    for language, words in (("en", b"no longer works"), ("zh-hans", "邀请链接已失效".encode())):
        refused = Client().get(link, HTTP_ACCEPT_LANGUAGE=language)
        assert refused.status_code == 404 and words in refused.content, language
        assert b'name="new_password1"' not in refused.content
    # A second send of the used form sets nothing.
    assert set_password(link, password="another-long-password").status_code == 404
    user = get_user_model().objects.get(username="alice")
    assert user.check_password(PASSWORD)


@pytest.mark.parametrize(
    "forged",
    [
        "/invite/AAAA/abc-def/",
        "/invite/Mg/set-password/",
        "/invite/%00%00/x/",
        "/invite/" + "z" * 300 + "/" + "y" * 300 + "/",
        "/invite/MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw/x-y/",
    ],
)
def test_a_forged_link_gets_the_refusal_never_a_500(staff, forged):
    add(staff)
    for method in ("get", "post"):
        response = getattr(Client(), method)(forged, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code in (400, 404), (method, response.status_code)
    assert Client().get(forged, HTTP_ACCEPT_LANGUAGE="en").status_code in (400, 404)


def test_a_link_with_the_right_user_but_a_wrong_token_is_refused(staff):
    link = link_of(add(staff))
    uid = link.split("/")[2]
    response = Client().get(f"/invite/{uid}/cn1234-0123456789abcdef0123456789abcdef/")
    assert response.status_code == 404 and b"no longer works" in response.content


def test_an_expired_link_is_refused(staff):
    link = link_of(add(staff))
    with override_settings(PASSWORD_RESET_TIMEOUT=-1):
        assert Client().get(link).status_code == 404
        assert set_password(link).status_code == 404
    assert not get_user_model().objects.get(username="alice").has_usable_password()
    assert Client().get(link).status_code == 200  # within the timeout it still holds


def test_a_new_link_replaces_the_old_one_until_a_password_is_set(staff):
    first = link_of(add(staff))
    expert = Expert.objects.get(user__username="alice")
    page = staff.post(f"/admin/manage/experts/{expert.pk}/invite/", follow=True)
    second = link_of(page)
    assert second != first
    assert Client().get(first).status_code == 404
    assert Client().get(second).status_code == 200
    assert AuditEvent.objects.filter(action="expert.invite", object_id=str(expert.pk)).count() == 1
    assert set_password(second).status_code == 302
    # With a password set, no new link: the page says why and shows no button.
    refused = staff.post(f"/admin/manage/experts/{expert.pk}/invite/", follow=True)
    assert b"has set a password already" in refused.content
    assert b'id="invitation-link"' not in refused.content
    assert b'id="invite-again"' not in refused.content


def test_the_password_validators_apply_and_nothing_is_set(staff):
    link = link_of(add(staff))
    short = set_password(link, password="short")
    assert short.status_code == 400 and b"too short" in short.content
    mismatch = set_password(link, password=PASSWORD, again=PASSWORD + "x")
    assert mismatch.status_code == 400
    assert not get_user_model().objects.get(username="alice").has_usable_password()
    assert Client().get(link).status_code == 200  # a refused password does not use the link


def test_add_refuses_an_existing_login_a_bad_name_and_a_bad_tier_and_writes_nothing(staff):
    UserFactory(username="taken")
    ExpertFactory(user__username="bob")
    users = get_user_model().objects.count()
    for name, tier, reason in [
        ("taken", "expert", b"exists already"),
        ("bob", "expert", b"exists already"),
        ("has space", "expert", b"user name"),
        ("<b>x</b>", "expert", b"user name"),
        ("", "expert", b"give a user name"),
        ("carol", "boss", b"tier must be one of"),
    ]:
        response = staff.post(NEW, {"username": name, "tier": tier}, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 400, name
        assert reason in response.content, (name, response.content[:200])
    assert get_user_model().objects.count() == users
    assert not AuditEvent.objects.filter(action="expert.create").exists()
    # The taken login keeps its password: an invitation never reaches an existing login.
    assert get_user_model().objects.get(username="taken").has_usable_password()


def test_edit_tier_and_specialties_audited_and_kept_specialties_the_form_does_not_list(
    staff, admin_user
):
    expert = ExpertFactory(user__username="dora", specialties=["warmth", "from-the-command"])
    page = staff.get(f"/admin/manage/experts/{expert.pk}/")
    assert b'value="from-the-command" checked' in page.content
    response = staff.post(
        f"/admin/manage/experts/{expert.pk}/",
        {"tier": "senior", "specialties": ["morality", "from-the-command"]},
    )
    assert response.status_code == 302
    expert.refresh_from_db()
    assert expert.tier == "senior" and expert.specialties == ["morality", "from-the-command"]
    event = AuditEvent.objects.get(action="expert.update", object_id=str(expert.pk))
    assert event.actor == admin_user
    assert event.data == {
        "before": {"tier": "expert", "specialties": ["warmth", "from-the-command"]},
        "after": {"tier": "senior", "specialties": ["morality", "from-the-command"]},
    }
    bad = staff.post(f"/admin/manage/experts/{expert.pk}/", {"tier": "boss"})
    assert bad.status_code == 400
    expert.refresh_from_db()
    assert expert.tier == "senior"
    assert AuditEvent.objects.filter(action="expert.update").count() == 1


def test_deactivate_releases_open_units_and_reactivate(staff, admin_user):
    expert = ExpertFactory(user__username="erin")
    study = open_study(cases=2, experts=[expert])
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    page = f"/admin/manage/experts/{expert.pk}/"
    response = staff.post(f"{page}active/", {"active": "no"}, follow=True)
    assert b"Deactivated erin;" in response.content
    expert.refresh_from_db()
    assignment.refresh_from_db()
    assert not expert.is_active and assignment.status == Assignment.Status.RELEASED
    event = AuditEvent.objects.get(action="expert.deactivate", object_id=str(expert.pk))
    assert event.actor == admin_user and event.data == {"released": 1}
    assert b'id="expert-reactivate"' in response.content
    listed = staff.get(LIST).content.decode()
    assert re.search(r'data-expert="erin" class="inactive"', listed)
    back = staff.post(f"{page}active/", {"active": "yes"}, follow=True)
    assert b"Reactivated erin:" in back.content
    expert.refresh_from_db()
    assert expert.is_active
    assert AuditEvent.objects.filter(action="expert.activate", object_id=str(expert.pk)).exists()


def test_the_list_shows_tier_specialties_demo_studies_and_calibration(staff):
    senior = ExpertFactory(user__username="sam", tier="senior")
    fresh, passed = ExpertFactory(user__username="fay"), ExpertFactory(user__username="pat")
    ExpertFactory(user__username="demo-x", is_demo=True, specialties=["warmth"])
    study = open_study(cases=2, experts=[fresh, passed], name="pilot-cal")  # never a demo
    services.pool_set_quality_policy(pool=study.pool, calibration=calibration_set(senior=senior))
    study.pool.refresh_from_db()
    while True:  # pat sits the calibration through the study's own claim and passes
        claim = services.assignment_claim_next(user=passed.user, pool=study.pool)
        if claim is None or claim.kind != "calibration":
            break
        services.assignment_submit(assignment=claim, labels=reference_labels(claim))
    assert selectors.calibration_state(expert=passed, pool=study.pool) == selectors.PASSED
    assert selectors.calibration_state(expert=fresh, pool=study.pool) == selectors.PENDING
    services.expert_require_recalibration(expert=passed, pool=study.pool, actor=None)
    assert selectors.calibration_state(expert=passed, pool=study.pool) == selectors.REQUIRED_AGAIN

    html = staff.get(LIST, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = dict(re.findall(r'<tr data-expert="([^"]+)"[^>]*>(.*?)</tr>', html, re.S))
    assert set(rows) == {"sam", "fay", "pat", "demo-x"}
    assert "senior expert" in rows["sam"] and "not enrolled in a study" in rows["sam"]
    assert "pilot-cal" in rows["fay"] and "calibration pending" in rows["fay"]
    assert "calibration required again" in rows["pat"] and "passed" in rows["pat"]
    assert "demo login" in rows["demo-x"] and "Warmth" in rows["demo-x"]
    assert "demo login" not in rows["fay"]
    assert passed.pseudonym in rows["pat"]
    # The calibration set's own pool is not listed as a study.
    assert "calibration-a ·" not in html
    zh = staff.get(LIST, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "温暖" in zh


def test_the_empty_list_says_so_and_how_to_add(staff):
    html = staff.get(LIST, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="experts-empty"' in html and "No experts yet" in html
    assert 'href="/admin/manage/experts/new/"' in html


def test_the_dashboard_links_to_the_experts(staff):
    assert b'href="/admin/manage/experts/"' in staff.get("/admin/dashboard/").content


def test_non_staff_get_nothing_of_these_pages():
    expert = ExpertFactory(user__username="nosy")
    other = ExpertFactory(user__username="victim")
    client = Client()
    client.force_login(expert.user)
    pages = [LIST, NEW, f"/admin/manage/experts/{other.pk}/"]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url
    for url, body in [
        (NEW, {"username": "mallory", "tier": "senior"}),
        (f"/admin/manage/experts/{other.pk}/", {"tier": "senior"}),
        (f"/admin/manage/experts/{other.pk}/active/", {"active": "no"}),
        (f"/admin/manage/experts/{other.pk}/invite/", {}),
    ]:
        response = client.post(url, body)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url
        assert b"victim" not in response.content
    other.refresh_from_db()
    assert other.is_active and other.tier == "expert"
    assert not get_user_model().objects.filter(username="mallory").exists()
    assert Client().get(LIST).status_code == 302  # anonymous too


def test_every_write_needs_the_csrf_token(admin_user):
    expert = ExpertFactory(user__username="gil")
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    for url, body in [
        (NEW, {"username": "hank", "tier": "expert"}),
        (f"/admin/manage/experts/{expert.pk}/", {"tier": "senior"}),
        (f"/admin/manage/experts/{expert.pk}/active/", {"active": "no"}),
        (f"/admin/manage/experts/{expert.pk}/invite/", {}),
    ]:
        assert client.post(url, body).status_code == 403, url
    expert.refresh_from_db()
    assert expert.is_active and expert.tier == "expert"
    assert not get_user_model().objects.filter(username="hank").exists()


def test_the_invitation_form_needs_the_csrf_token(staff):
    link = link_of(add(staff))
    client = Client(enforce_csrf_checks=True)
    assert set_password(link, client=client).status_code == 403
    assert not get_user_model().objects.get(username="alice").has_usable_password()


def test_an_unknown_expert_is_a_404(staff):
    assert staff.get("/admin/manage/experts/999999/").status_code == 404
    assert staff.post("/admin/manage/experts/999999/active/", {"active": "no"}).status_code == 404


@pytest.mark.parametrize("which", ["list", "new", "expert", "link", "invite", "refused"])
def test_the_pages_are_chinese_when_chinese_is_asked_for(staff, which):
    ExpertFactory(user__username="ivy", is_demo=True, specialties=["warmth", "个人成长"])
    study = open_study(cases=1, experts=[ExpertFactory(user__username="kim")], name="zh-a")
    page = add(staff, username="jo", HTTP_ACCEPT_LANGUAGE="zh-hans")
    link = link_of(page)
    jo = Expert.objects.get(user__username="jo")
    urls = {
        "list": (staff, LIST),
        "new": (staff, NEW),
        "expert": (staff, f"/admin/manage/experts/{jo.pk}/"),
        "invite": (Client(), link),
        "refused": (Client(), "/invite/AAAA/x-y/"),
    }
    if which == "link":
        html = page.content.decode()
    else:
        client, url = urls[which]
        html = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    data = ("admin-experts", "ivy", "jo", "kim", study.name, "calibration-a", "HeartBench")
    found = untranslated(html, data=data, skip_ids=("nav-sidebar", "invitation-link"))
    assert not found, "\n".join(found)
