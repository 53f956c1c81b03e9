"""A pairwise study from the admin's browser page: the sets offered with their dataset and
pairs, created through the admin API's checks as a draft over the set's pairs on the sampled
cases, every refusal said at its field with nothing created, the page for staff only."""

import pytest
from django.test import Client

from benchmark.models import PairwisePair
from tests.builders.accounts import ExpertFactory
from tests.builders.pairwise import answered_by, draw
from validation import selectors
from validation.models import Study

pytestmark = pytest.mark.django_db
NEW = "/admin/manage/studies/new-pairwise/"


@pytest.fixture
def pair_set():
    dataset, _ = answered_by(names=["m-a", "m-b", "m-c"], cases=6)
    draw("trio", "--dataset", dataset.name, "--models", "m-a,m-b,m-c")
    return dataset


def form(**extra) -> dict:
    return {
        "name": "pairs-pilot",
        "pair_set": "trio",
        "fraction": "0.5",
        "stratify_by": ["difficulty"],
        "seed": "7",
        "lease_minutes": "20",
    } | extra


def test_the_form_offers_each_set_with_its_dataset_and_pairs(admin_client, pair_set):
    page = admin_client.get(NEW).content.decode()
    # 6 cases × 3 pairs of 3 models.
    assert f"trio — {pair_set.name} v{pair_set.version}, 18 pairs" in page
    assert '<option value="trio"' in page and 'name="csrfmiddlewaretoken"' in page
    assert 'value="difficulty" checked' in page and 'value="0.3"' in page  # the defaults


def test_with_no_set_the_page_says_how_to_draw_one(admin_client):
    page = admin_client.get(NEW).content.decode()
    assert "No pairwise set exists yet" in page and "heartbench pairwise draw" in page
    assert 'name="pair_set"' not in page  # no form to fill in vain


def test_a_draft_over_the_sets_pairs_on_the_sampled_cases_is_created(admin_client, pair_set):
    done = admin_client.post(NEW, form())
    assert done.status_code == 302 and done.url == "/admin/dashboard/studies/pairs-pilot/"
    study = selectors.study_get(name="pairs-pilot")
    assert study.pair_set.name == "trio" and study.pool.status == "draft"
    assert study.seed == 7 and study.stratify_by == ["difficulty"] and study.fraction == 0.5
    assert study.pool.lease_seconds == 20 * 60
    cases = set(study.units.values_list("case_id", flat=True))
    assert len(cases) == 3
    pairs = PairwisePair.objects.filter(pair_set=study.pair_set, case_id__in=cases)
    assert set(study.units.values_list("unit__pair_id", flat=True)) == set(
        pairs.values_list("pk", flat=True)
    )
    assert study.units.count() == 9
    shown = admin_client.get(done.url).content.decode()
    assert "Study pairs-pilot created as a draft" in shown


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"pair_set": "no-such-set"}, "pair_set", "no pairwise set named 'no-such-set'"),
        ({"fraction": "2"}, "fraction", "2"),
        ({"name": "a/b"}, "name", "letters"),
        ({"seed": "-1"}, "seed", "-1 is negative"),
    ],
)
def test_a_refused_choice_is_said_at_its_field_and_nothing_is_created(
    admin_client, pair_set, change, field, words
):
    page = admin_client.post(NEW, form(**change))
    assert page.status_code == 400
    text = page.content.decode()
    assert "The study was not created" in text and words in page.context["errors"][field]
    assert not Study.objects.exists()
    assert page.context["values"]["name"] == change.get("name", "pairs-pilot")  # kept


def test_a_taken_name_is_said_at_the_name(admin_client, pair_set):
    assert admin_client.post(NEW, form()).status_code == 302
    page = admin_client.post(NEW, form(seed="8"))
    assert page.status_code == 400 and "pairs-pilot" in page.context["errors"]["name"]
    assert Study.objects.count() == 1


def test_no_pairs_on_the_sampled_cases_is_said_at_the_set(admin_client):
    # One pair on one of four cases: a quarter of them often misses it (the service says so
    # at ``models``; this form's field for it is the set).
    dataset, _ = answered_by(names=["m-a", "m-b"], cases=4)
    draw("one", "--dataset", dataset.name, "--models", "m-a,m-b", "--sample", "1", "--seed", "1")
    refused = None
    for seed in range(20):
        page = admin_client.post(
            NEW, form(name=f"s{seed}", pair_set="one", fraction="0.25", seed=str(seed))
        )
        if page.status_code == 400:
            refused = page
            break
    assert refused is not None
    assert "the set has no pairs on the sampled cases" in refused.context["errors"]["pair_set"]
    assert 'id="study-pair-set"' in refused.content.decode()


def test_the_rubric_page_and_the_dashboard_link_here(admin_client):
    for page in ("/admin/manage/studies/new/", "/admin/dashboard/"):
        assert f'href="{NEW}"' in admin_client.get(page).content.decode()


def test_only_staff_reach_the_page(pair_set):
    expert = Client()
    expert.force_login(ExpertFactory().user)
    for answer in (expert.get(NEW), expert.post(NEW, form())):
        assert answer.status_code == 302 and answer.url.startswith("/admin/login/?next=")
    assert not Study.objects.exists()


def test_the_page_speaks_chinese(admin_client, pair_set):
    page = admin_client.get(NEW, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    # The form's words come from the catalogue (config/locale), not as English.
    assert "案例比例" in page and "分层依据" in page
