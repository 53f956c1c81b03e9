"""Payloads written out by hand (next-unit's ``ClaimSerializer``, the autosave's
``LeaseSerializer``, the submit's ``SubmissionOutSerializer``) must stay what DRF's walk of the
declared fields (the API's schema) gives."""

import uuid
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from rest_framework import serializers

from annotation.selectors import BlindCriterion, BlindUnit
from annotation.selectors.work import Progress
from annotation.serializers import (
    AssignmentSerializer,
    ClaimSerializer,
    LeaseSerializer,
    SubmissionOutSerializer,
)


def payload(*, kind: str, ability: str | None, draft: dict | None) -> dict:
    assignment = SimpleNamespace(
        public_id=uuid.uuid4(),
        status="leased",
        kind=kind,
        lease_expires_at=datetime(2026, 11, 25, 11, 30, 5, 123456, tzinfo=UTC),
    )
    criteria = [
        BlindCriterion(id="c-1", text="Names the feeling", ability=ability, version=3),
        BlindCriterion(id="c-2", text="Asks, not tells", ability=ability, version=1),
    ]
    unit = BlindUnit(
        token="u-7",
        dialogue=[
            {"role": "user", "content": "I can't sleep"},
            {"role": "counsellor", "content": "Tell me"},
        ],
        response="That sounds hard.",
        criteria=criteria,
    )
    return {"assignment": assignment, "unit": unit, "draft": draft, "active_seconds": 42}


@pytest.mark.parametrize("kind", ["rating", "calibration"])
@pytest.mark.parametrize("ability", ["empathy", None])
@pytest.mark.parametrize("draft", [None, {"labels": [{"criterion": "c-1", "hit": True}]}])
def test_the_written_out_payload_is_the_declared_fields_representation(kind, ability, draft):
    data = payload(kind=kind, ability=ability, draft=draft)
    declared = serializers.Serializer.to_representation(AssignmentSerializer(data), data)
    written = AssignmentSerializer(data).data
    assert written == declared
    assert list(written) == list(declared)
    assert [list(c) for c in written["unit"]["criteria"]] == [
        list(c) for c in declared["unit"]["criteria"]
    ]
    assert written["kind"] == "rating"  # calibration looks exactly like rating work
    progress = Progress(
        mine=3, left_for_me=100, left_for_me_more=True, capacity_left=7, team_complete=2,
        team_total=9,
    )  # fmt: skip
    claim = {**data, "progress": progress}
    declared = serializers.Serializer.to_representation(ClaimSerializer(claim), claim)
    assert ClaimSerializer(claim).data == declared
    assert list(ClaimSerializer(claim).data) == list(declared)


@pytest.mark.parametrize("status", ["leased", "submitted"])
@pytest.mark.parametrize("moment", [datetime(2026, 11, 25, 11, 30, 5, 123456, tzinfo=UTC), None])
def test_the_written_out_lease_and_submission_are_the_declared_fields(status, moment):
    assignment = SimpleNamespace(
        public_id=uuid.uuid4(), status=status, lease_expires_at=moment, submitted_at=moment
    )
    for serializer in (
        LeaseSerializer(assignment),
        SubmissionOutSerializer(SimpleNamespace(assignment=assignment)),
    ):
        declared = serializers.Serializer.to_representation(serializer, serializer.instance)
        assert serializer.data == declared
        assert list(serializer.data) == list(declared)
