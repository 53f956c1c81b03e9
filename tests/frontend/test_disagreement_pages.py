"""The disagreement viewer's page and CSV, and the rubric edit it opens: staff only, filters
kept in every link, hostile text escaped and neutralised, the edit records the item."""

import csv
import io
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from annotation.models import Expert
from benchmark.models import AuditEvent, RubricItem, RubricItemVersion
from tests.builders.accounts import ExpertFactory
from tests.builders.studies import FORMULA, XSS, rated_study

pytestmark = pytest.mark.django_db
URL = "/admin/studies/viewer/disagreements/"


@pytest.fixture
def study():
    return rated_study(name="viewer", cases=4)


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(ExpertFactory(user__is_staff=True, user__is_superuser=True).user)
    return client


def test_experts_are_sent_to_the_login_and_unknown_studies_are_404(study, staff):
    expert = Client()
    expert.force_login(Expert.objects.filter(user__is_staff=False).first().user)
    for url in (URL, "/admin/studies/viewer/disagreements.csv"):
        response = expert.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert staff.get("/admin/studies/nope/disagreements/").status_code == 404


def test_the_page_filters_paginates_and_keeps_the_filters_in_its_links(study, staff):
    response = staff.get(URL, {"judge": "judge-a", "agreement": "disagree"})
    assert response.status_code == 200
    page = response.context["page"]
    assert page.object_list and {i.agreement for i in page.object_list} == {"disagree"}
    html = response.content.decode()
    assert XSS not in html and "&lt;script&gt;" in html
    every = staff.get(URL).context["page"]
    assert every.paginator.count == 96 and every.paginator.num_pages == 4
    html = staff.get(URL, {"judge": "judge-b", "page": "2"}).content.decode()
    assert 'rel="prev" href="?judge=judge-b&amp;page=1"' in html and 'rel="next"' not in html
    assert 'disagreements.csv?judge=judge-b"' in html
    # Pseudonyms only: no rater's username reaches the page.
    for expert in Expert.objects.filter(user__is_staff=False):
        assert expert.user.username not in html
    assert 'class="button edit"' in html


def test_a_value_the_study_does_not_offer_is_a_400_naming_it(study, staff):
    response = staff.get(URL, {"provenance": "4/0"})
    assert response.status_code == 400 and b"provenance" in response.content
    assert staff.get(URL, {"criterion": "x"}).status_code == 400


def test_the_csv_holds_the_filtered_rows_with_formulas_neutralised(study, staff):
    response = staff.get("/admin/studies/viewer/disagreements.csv", {"judge": "judge-a"})
    assert response["Content-Type"].startswith("text/csv")
    assert "study-disagreements-viewer.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 48 and {r["judge"] for r in rows} == {"judge-a"}
    assert "'" + FORMULA in {r["model"] for r in rows} and FORMULA not in {r["model"] for r in rows}
    assert {r["agreement"] for r in rows} == {"agree", "disagree", "error"}
    assert all(r["rater_1"].startswith("R-") for r in rows)
    disagree = staff.get(
        "/admin/studies/viewer/disagreements.csv", {"judge": "judge-a", "agreement": "disagree"}
    )
    assert len(list(csv.DictReader(io.StringIO(disagree.content.decode())))) == sum(
        r["agreement"] == "disagree" for r in rows
    )


def test_the_edit_link_records_the_item_and_the_history_links_back(study, staff):
    item = staff.get(URL, {"agreement": "disagree"}).context["page"].object_list[0]
    edit = urlsplit(item.edit_url)
    assert parse_qs(edit.query) == {"study": ["viewer"], "unit": [item.unit]}
    form = staff.get(item.edit_url).content.decode()
    assert "records the disagreement it answers" in form and item.unit in form
    criterion = RubricItem.objects.get(pk=item.criterion_id)
    response = staff.post(
        item.edit_url,
        {"text": criterion.text + "（更具体）", "points": criterion.points or "",
         "reason": "judge and experts read it differently", "_save": "Save"},
    )  # fmt: skip
    assert response.status_code == 302
    version = RubricItemVersion.objects.get(item=criterion, number=2)
    assert version.disagreement == {"study": "viewer", "unit": item.unit}
    audit = AuditEvent.objects.filter(action="rubric.edit").latest("at")
    assert audit.data["disagreement"] == {"study": "viewer", "unit": item.unit}
    history = staff.get(f"/admin/benchmark/rubricitem/{criterion.pk}/versions/").content.decode()
    back = f"{URL}?unit={item.unit}&amp;criterion={criterion.pk}"
    assert back in history and "prompted by a disagreement" in history
    pinned = staff.get(f"{URL}?unit={item.unit}&criterion={criterion.pk}").context["page"]
    assert {(i.unit, i.criterion_id) for i in pinned.object_list} == {(item.unit, criterion.pk)}


def test_an_edit_link_naming_half_a_disagreement_is_refused(study, staff):
    criterion = RubricItem.objects.filter(ability="warmth").first()
    response = staff.post(
        f"/admin/benchmark/rubricitem/{criterion.pk}/change/?study=viewer",
        {"text": criterion.text + "!", "points": criterion.points, "reason": "r", "_save": "1"},
    )
    assert response.status_code == 200 and "names its study and unit" in response.content.decode()
    assert criterion.versions.count() == 0


def test_the_empty_page_says_why_it_is_empty(staff):
    """Before any gold the page says the viewer waits for settled units; under filters that
    match nothing it says so instead."""
    rated_study(name="viewer", cases=2, rate=False)
    html = staff.get(URL).content.decode()
    assert "No item of this study has both a gold label and a judge verdict yet" in html
    assert "No items match these filters." not in html
    html = staff.get(URL, {"judge": "judge-a"}).content.decode()
    assert "No items match these filters." in html
    # The CSV of nothing still names its columns, the same as a full one's.
    empty = staff.get("/admin/studies/viewer/disagreements.csv").content.decode()
    assert empty.splitlines()[0].startswith("study,unit,case,model,criterion,")
    assert len(empty.splitlines()) == 1 and "rater_3_note" in empty
