"""A study from the admin's browser pages: created as a draft through the admin API's checks,
previewed, opened, enrolled, closed with the command's choices and their cost to the seniors,
deleted while a draft; every refusal said on the page, nothing half-done."""

import pytest
from django.test import Client

from annotation import services as annotation_services
from annotation.models import Expert
from annotation.selectors.adjudication import adjudication_queue
from annotation.services.routing import unit_route_to_expert
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.datasets import JudgeFactory, JudgeRunFactory
from tests.builders.labels import all_labels
from tests.builders.studies import dataset_with_responses, open_study
from validation import selectors
from validation.models import Study, StudyUnit

pytestmark = pytest.mark.django_db
NEW = "/admin/manage/studies/new/"


@pytest.fixture
def answered():
    dataset, models = dataset_with_responses(cases=6, models=2)
    judge = JudgeFactory(name="judge-x")
    for model in models:
        JudgeRunFactory(judge=judge, model=model, dataset=dataset)
    return dataset, models


def form(dataset, chosen, **extra) -> dict:
    return {
        "name": "pilot",
        "dataset": dataset.name,
        "models": [m.name for m in chosen],
        "judge_runs": ["judge-x"],
        "fraction": "0.5",
        "seed": "7",
        "lease_minutes": "30",
        "agreement_min": "0.75",
    } | extra


def test_the_form_offers_the_datasets_models_and_judges(admin_client, answered):
    dataset, models = answered
    page = admin_client.get(NEW).content.decode()
    assert dataset.name in page and all(m.name in page for m in models) and "judge-x" in page
    assert 'name="csrfmiddlewaretoken"' in page


def test_a_draft_is_created_as_the_api_creates_it_and_its_sample_is_shown(admin_client, answered):
    dataset, models = answered
    ExpertFactory.create_batch(2)
    done = admin_client.post(NEW, form(dataset, models, adjudicate_splits=["catastrophic"]))
    assert done.status_code == 302 and done.url == "/admin/dashboard/studies/pilot/"
    study = selectors.study_get(name="pilot")
    assert study.pool.status == "draft" and study.seed == 7 and study.planned_cases == 3
    assert study.adjudicate_splits == ["catastrophic"] and study.judge_runs.count() == 2
    assert AuditEvent.objects.filter(action="study.create").count() == 1
    page = admin_client.get(done.url).content.decode()
    # 3 cases × 2 models = 6 units; 3 raters each = 18 ratings; 4 criteria a case.
    assert "3 cases, 6 units; 3 raters a unit make 18 ratings, 72 criterion judgements" in page
    assert 'id="strata"' in page and "No pay rate is set for this study yet" in page
    assert "2 experts are enrolled." in page and 'id="open-form"' in page
    assert 'id="close-form"' not in page  # a draft does not close


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"name": "a/b"}, "name", "letters"),
        ({"fraction": "0"}, "fraction", "is not above 0"),
        ({"fraction": "many"}, "fraction", "number"),
        ({"models": ["nobody"]}, "models", "unknown model(s): nobody"),
        ({"agreement_min": "2"}, "agreement_min", "2"),
        ({"seed": "-1"}, "seed", "-1 is negative"),
    ],
)
def test_a_refused_choice_is_said_beside_its_field_and_nothing_is_created(
    admin_client, answered, change, field, words
):
    dataset, models = answered
    page = admin_client.post(NEW, form(dataset, models, **change))
    assert page.status_code == 400
    text = page.content.decode()
    assert "The study was not created" in text and words in text
    assert page.context["errors"][field]
    assert not Study.objects.exists()
    assert page.context["values"]["name"] == change.get("name", "pilot")  # the form keeps it


def test_the_same_name_twice_is_refused(admin_client, answered):
    dataset, models = answered
    admin_client.post(NEW, form(dataset, models))
    page = admin_client.post(NEW, form(dataset, models))
    assert page.status_code == 400 and "pilot" in page.context["errors"]["name"]
    assert Study.objects.count() == 1


def test_open_enrol_and_close_with_the_default_choices(admin_client, answered):
    dataset, models = answered
    senior = ExpertFactory(tier="senior")
    admin_client.post(NEW, form(dataset, models))
    study = selectors.study_get(name="pilot")
    page = "/admin/dashboard/studies/pilot/"
    assert admin_client.post("/admin/manage/studies/pilot/open/").url == page
    study.pool.refresh_from_db()
    assert study.pool.status == "open"
    late = ExpertFactory()
    shown = admin_client.get(page).content.decode()
    assert late.user.username in shown and 'id="enrol-form"' in shown
    admin_client.post("/admin/manage/studies/pilot/enrol/", {"experts": [late.user.username]})
    assert study.pool.experts.filter(pk=late.pk).exists()
    shown = admin_client.get(page).content.decode()
    assert "0 units complete, 0 partly rated, 6 never rated." in shown
    assert "the seniors get 6 units, up to 24 criteria" in shown  # if sent to a senior
    # Without the tick nothing closes.
    refused = admin_client.post("/admin/manage/studies/pilot/close/", follow=True)
    assert "Tick the box" in refused.content.decode()
    study.pool.refresh_from_db()
    assert study.pool.status == "open"
    closed = admin_client.post(
        "/admin/manage/studies/pilot/close/", {"confirm": "yes"}, follow=True
    )
    assert "6 never rated units; of the short ones 0 went to a senior expert, 6 dropped" in (
        closed.content.decode()
    )
    assert set(study.units.values_list("state", flat=True)) == {StudyUnit.State.DROPPED}
    study.pool.refresh_from_db()
    assert adjudication_queue(pool=study.pool, expert=senior).count() == 0  # nobody was handed them


def test_closing_can_still_send_never_rated_units_to_a_senior(admin_client):
    study = open_study(cases=2, experts=[ExpertFactory(tier="senior")], name="short")
    admin_client.post(
        f"/admin/manage/studies/{study.name}/close/", {"confirm": "yes", "unrated": "senior"}
    )
    assert set(study.units.values_list("state", flat=True)) == {StudyUnit.State.INCOMPLETE}


def test_a_draft_is_deleted_and_opening_twice_is_said(admin_client, answered):
    dataset, models = answered
    admin_client.post(NEW, form(dataset, models))
    assert admin_client.post("/admin/manage/studies/pilot/delete/").url == "/admin/dashboard/"
    assert not Study.objects.exists()
    admin_client.post(NEW, form(dataset, models))
    admin_client.post("/admin/manage/studies/pilot/open/")
    twice = admin_client.post("/admin/manage/studies/pilot/open/", follow=True)  # a double click
    assert "Study pilot is open: only a draft opens" in twice.content.decode()


def test_a_study_with_ratings_is_not_deleted(admin_client):
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert], name="rated")
    assignment = unit_route_to_expert(unit=study.units.get().unit, expert=expert, actor=None)
    annotation_services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    refused = admin_client.post("/admin/manage/studies/rated/delete/", follow=True)
    assert "close the study instead" in refused.content.decode() and Study.objects.count() == 1


def test_only_staff_reach_the_pages_and_every_change_needs_its_token(answered):
    dataset, models = answered
    expert = Client()
    expert.force_login(ExpertFactory().user)
    assert expert.get(NEW).status_code == 302  # to the admin's login
    assert expert.post(NEW, form(dataset, models)).status_code == 302
    assert not Study.objects.exists()
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(UserFactory(is_staff=True))
    assert staff.post(NEW, form(dataset, models)).status_code == 403
    assert not Study.objects.exists() and Expert.objects.count() == 1


def test_the_enrolment_says_when_nobody_can_be_enrolled(admin_client, answered):
    dataset, models = answered
    admin_client.post(NEW, form(dataset, models))
    admin_client.post("/admin/manage/studies/pilot/open/")
    page = admin_client.get("/admin/dashboard/studies/pilot/").content.decode()
    assert "No expert can be enrolled: no active expert may rate this data yet" in page
    expert = ExpertFactory()
    admin_client.post("/admin/manage/studies/pilot/enrol/", {"all_active": "yes"})
    page = admin_client.get("/admin/dashboard/studies/pilot/").content.decode()
    assert "Every active expert who may rate this data is enrolled." in page
    assert selectors.study_get(name="pilot").pool.experts.filter(pk=expert.pk).exists()


def test_the_sample_is_stratified_as_chosen_and_the_planner_takes_a_pilot(admin_client, answered):
    dataset, models = answered
    assert 'value="difficulty" checked' in admin_client.get(NEW).content.decode()
    admin_client.post(NEW, form(dataset, models, stratify_by=["difficulty"]))
    assert selectors.study_get(name="pilot").stratify_by == ["difficulty"]
    refused = admin_client.post(
        NEW, form(dataset, models, name="planned", planned="on", pilot="no-such-study")
    )
    assert refused.status_code == 400 and "no-such-study" in refused.context["errors"]["plan"]
    # A pilot with no gold yet gives the planner nothing: its reason is shown.
    unrated = admin_client.post(
        NEW, form(dataset, models, name="planned", planned="on", pilot="pilot", half_width="0.3")
    )
    assert "gives no ICC" in unrated.context["errors"]["plan"]
    planned = admin_client.post(
        NEW, form(dataset, models, name="planned", planned="on", half_width="0.3")
    )
    assert planned.status_code == 302, planned.context and planned.context["errors"]
    study = selectors.study_get(name="planned")
    assert study.plan["icc_source"] == "default" and study.plan["half_width"] == 0.3
