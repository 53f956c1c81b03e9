"""What a rater of a running study sees off the unit, and what the admin is told of a flag
nobody may read yet, in Chromium at three widths and both languages (axe-clean)."""

import pytest
from django.contrib.auth import get_user_model

from annotation import services
from annotation.models import Assignment
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.adjudication import split_study
from tests.builders.leaderboards import judged_dataset
from tests.builders.studies import open_study
from tests.e2e.conftest import login
from tests.e2e.widths import readable_at_every_width
from validation.models import Study

ADMIN_PASSWORD = "pw-admin-blind-1"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_rater_sees_why_the_board_is_hidden_and_no_running_figure(
    live_server, page_in, artifacts
):
    dataset, names = judged_dataset(models=3)
    rater = ExpertFactory()
    # A study still running on the board's dataset, the rater enrolled in it.
    running = open_study(cases=2, experts=[rater], name="running")
    Study.objects.filter(pk=running.pk).update(dataset=dataset)
    page = page_in
    login(page, live_server, rater.user.username, PASSWORD, next_path="/leaderboard/")
    notice = page.locator("#blind-dataset")
    notice.wait_for()
    body = page.locator("body").inner_text()
    assert not [name for name in names if name in body]
    assert readable_at_every_width(page, artifacts, "leaderboard-blind") == []
    page.goto(f"{live_server.url}/profile/")
    page.locator("#peer").wait_for()
    assert "%" not in page.locator("#peer").inner_text()
    assert readable_at_every_width(page, artifacts, "profile-running-study") == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_admin_sees_a_flag_waiting_for_the_units_decision(live_server, page_in, artifacts):
    _, raters, _ = split_study(splits=["catastrophic"], name="flag-e2e")
    rated = Assignment.objects.get(expert=raters[0], kind=Assignment.Kind.RATING)
    services.submission_flag(user=raters[0].user, assignment=rated, reason="look again")
    get_user_model().objects.create_superuser("admin-blind", "b@example.org", ADMIN_PASSWORD)
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/")
    page.fill("#id_username", "admin-blind")
    page.fill("#id_password", ADMIN_PASSWORD)
    page.click("input[type=submit]")
    alert = page.locator("li[data-alert='unread-flag'][data-reason='decision']")
    alert.wait_for()
    assert rated.unit.token in alert.inner_text()
    assert readable_at_every_width(page, artifacts, "dashboard-unread-flag") == []


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_board_names_each_rows_judge_settings_when_they_differ(live_server, page_in, artifacts):
    from benchmark.models import JudgeRun

    _, names = judged_dataset(models=3)
    JudgeRun.objects.filter(model__name=names[0]).update(source="engine", temperature=0.7, seed=3)
    page = page_in
    login(page, live_server, ExpertFactory().user.username, PASSWORD, next_path="/leaderboard/")
    note = page.locator("#settings-note")
    note.wait_for()
    assert "0.7" in note.inner_text() and names[0] in note.inner_text()
    assert readable_at_every_width(page, artifacts, "leaderboard-settings") == []
