"""A draft's criteria in the admin: listed under the draft, each revised on its own page only
through the criteria service (a new version with the editor and a reason, audited), its
provenance and version history read only, a removed one not editable."""

import pytest
from django.urls import reverse

from benchmark.models import AuditEvent, DraftCriterion
from benchmark.services.construction import project_create, seeds_import
from benchmark.services.criteria import draft_criterion_add, draft_criterion_remove
from tests.builders.construction import BASE_SEEDS

pytestmark = pytest.mark.django_db
RAW = '{"criteria": [{"ability": "warmth", "text": "<b>AI肯定了用户</b>"}]}'


@pytest.fixture
def criterion():
    project = project_create(name="pilot", dataset_name="heartbench-pilot")
    draft = seeds_import(path=BASE_SEEDS, project=project).drafts[0]
    return draft_criterion_add(
        draft=draft, ability="warmth", points=3, text="AI肯定了用户的努力", origin="synthesised",
        provenance={"template_version": "heartbench-rubric-zh-v1", "model_name": "synth",
                    "raw_reply": RAW},
    )  # fmt: skip


def change_url(criterion) -> str:
    return reverse("admin:benchmark_draftcriterion_change", args=[criterion.pk])


def form(**changes) -> dict:
    return {"ability": "warmth", "points": "3", "text": "AI肯定了用户的努力", "reason": "",
            "versions-TOTAL_FORMS": "0", "versions-INITIAL_FORMS": "1",
            **changes}  # fmt: skip


def test_the_draft_lists_its_criteria_with_a_link_to_each(admin_client, criterion):
    page = admin_client.get(reverse("admin:benchmark_draftcase_change", args=[criterion.draft_id]))
    html = page.content.decode()
    assert page.status_code == 200 and "AI肯定了用户的努力" in html
    assert change_url(criterion) in html


def test_the_criterion_page_shows_provenance_escaped_and_read_only(admin_client, criterion):
    html = admin_client.get(change_url(criterion)).content.decode()
    assert 'class="raw-reply"' in html and "&lt;b&gt;AI肯定了用户&lt;/b&gt;" in html
    assert "<b>AI肯定了用户</b>" not in html
    assert "heartbench-rubric-zh-v1" in html and "draft-criteria.css" in html
    assert 'name="raw_reply"' not in html and 'name="model_name"' not in html
    assert 'name="text"' in html and 'name="reason"' in html


def test_a_revision_is_a_new_version_by_the_editor_with_the_reason(admin_client, criterion):
    page = admin_client.post(
        change_url(criterion), form(text="AI明确肯定了用户的努力", points="4", reason="clearer")
    )
    assert page.status_code == 302
    criterion.refresh_from_db()
    assert (criterion.version, criterion.points, criterion.text) == (2, 4, "AI明确肯定了用户的努力")
    latest = criterion.versions.get(number=2)
    assert latest.author.username == "admin" and latest.reason == "clearer"
    assert criterion.raw_reply == RAW and criterion.origin == "synthesised"
    assert AuditEvent.objects.filter(action="draft_criterion.revise").count() == 1
    html = admin_client.get(change_url(criterion)).content.decode()
    assert "clearer" in html and html.index("AI明确肯定了用户的努力") < html.rindex(
        "AI肯定了用户的努力"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"text": "AI是否肯定了用户？", "reason": "r"}, "asks a question"),
        ({"points": "0", "reason": "r"}, "zero"),
        ({"ability": "catastrophic", "reason": "r"}, "never positive"),
        ({"text": "AI肯定了用户"}, "This field is required"),
        ({"reason": "r"}, "Nothing changed"),
    ],
)
def test_a_refused_revision_names_the_reason_and_changes_nothing(
    admin_client, criterion, changes, message
):
    page = admin_client.post(change_url(criterion), form(**changes))
    assert page.status_code == 200 and message in page.content.decode()
    criterion.refresh_from_db()
    assert criterion.version == 1 and criterion.versions.count() == 1


def test_a_removed_criterion_cannot_be_edited_added_or_deleted(admin_client, criterion):
    draft_criterion_remove(criterion=criterion, stage="saturation", reason="every model hit it")
    page = admin_client.post(change_url(criterion), form(text="AI安慰了用户", reason="r"))
    assert page.status_code == 403
    assert DraftCriterion.objects.get().text == "AI肯定了用户的努力"
    assert admin_client.get(reverse("admin:benchmark_draftcriterion_add")).status_code == 403
    delete = reverse("admin:benchmark_draftcriterion_delete", args=[criterion.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert "every model hit it" in admin_client.get(change_url(criterion)).content.decode()
