"""Expert labels record the rubric version the workbench showed; an edit during a lease keeps
the label on the text that was read."""

import pytest
from rest_framework.test import APIClient

from annotation.labels import InvalidLabels, LabelValue, label_versions, labels_parse
from annotation.models import Label
from benchmark.models import RubricItem
from benchmark.services.rubric import rubric_item_edit
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _claim(client):
    response = client.post("/api/v1/assignments/next/?study=study-a")
    assert response.status_code == 201
    return response.json()


def _submit(client, body, *, with_versions: bool):
    labels = [
        {"criterion": c["id"], "hit": True, **({"version": c["version"]} if with_versions else {})}
        for c in body["unit"]["criteria"]
    ]
    return client.post(f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels}, "json")


def _item_of(body, text: str) -> RubricItem:
    return RubricItem.objects.get(
        case__responses__annotation_units__token=body["unit"]["token"], text=text
    )


def test_api_shows_each_criterion_version_and_the_submit_records_what_was_shown():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    client = _client(expert.user)
    body = _claim(client)
    assert {c["version"] for c in body["unit"]["criteria"]} == {1}
    shown = body["unit"]["criteria"][0]
    item = _item_of(body, shown["text"])
    # The criterion is edited while the expert holds the unit with the old text on screen.
    new_text = item.text + "（修订）"
    rubric_item_edit(item=item, text=new_text, author=UserFactory(), reason="r")
    assert _submit(client, body, with_versions=True).status_code == 201
    versions = dict(
        Label.objects.filter(submission__expert=expert).values_list(
            "rubric_item_id", "rubric_version"
        )
    )
    assert versions[item.pk] == 1 and set(versions.values()) == {1}
    # Reloading the unit shows the new text under the new version.
    reloaded = client.get(f"/api/v1/assignments/{body['id']}/").json()
    now = {c["text"]: c["version"] for c in reloaded["unit"]["criteria"]}
    assert now[new_text] == 2


def test_submit_without_versions_records_the_current_ones_and_repeats_stay_idempotent():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    client = _client(expert.user)
    body = _claim(client)
    item = RubricItem.objects.get(
        case__responses__annotation_units__token=body["unit"]["token"], ability="warmth"
    )
    rubric_item_edit(item=item, points=7, author=UserFactory(), reason="r")
    assert _submit(client, body, with_versions=False).status_code == 201
    label = Label.objects.get(submission__expert=expert, rubric_item=item)
    assert label.rubric_version == 2
    # The same labels again, now naming versions, are the same submission.
    assert _submit(client, body, with_versions=True).status_code == 200


def test_a_version_the_criterion_never_had_is_refused():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    client = _client(expert.user)
    body = _claim(client)
    labels = [{"criterion": c["id"], "hit": False, "version": 5} for c in body["unit"]["criteria"]]
    refused = client.post(f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels}, "json")
    assert refused.status_code == 400
    assert not Label.objects.exists()


@pytest.mark.parametrize("bad", [0, -1, "2", True, 1.5])
def test_labels_parse_refuses_a_malformed_version(bad):
    with pytest.raises(InvalidLabels, match="version"):
        labels_parse(
            [{"criterion": "a", "hit": True, "version": bad}], criteria={"a"}, complete=True
        )


def test_label_versions_pure_rules():
    labels = {1: LabelValue(True, "", version=1), 2: LabelValue(False, "")}
    assert label_versions(labels, current={1: 3, 2: 2}) == {1: 1, 2: 2}
    with pytest.raises(InvalidLabels):
        label_versions({1: LabelValue(True, "", version=4)}, current={1: 3})
    # The version is not part of the label's value.
    assert LabelValue(True, "n", version=1) == LabelValue(True, "n", version=2)
