"""The shapes of the expert-facing API. Everything here is blind by construction: the unit
serializer only ever sees the ``BlindUnit`` the selector built."""

from rest_framework import serializers

from annotation.active_time import MAX_ACTIVE_SECONDS
from annotation.labels import MAX_NOTE_CHARS
from annotation.selectors.work import LEFT_FOR_ME_CAP, WorkState

ACTIVE_SECONDS_DOC = (
    "seconds the unit was on a visible tab while the expert was active (input within the last "
    "minute); idle and hidden time excluded. Optional: without it the time is not measured"
)


class TurnSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "counsellor"])
    content = serializers.CharField()


class CriterionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="opaque, valid for this assignment only")
    text = serializers.CharField()
    ability = serializers.CharField(required=False, help_text="only when the study shows it")
    version = serializers.IntegerField(help_text="the criterion's rubric version; send it back")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if instance.ability is None:
            data.pop("ability")
        return data


class UnitSerializer(serializers.Serializer):
    token = serializers.CharField()
    question_type = serializers.ChoiceField(
        choices=["rubric", "pairwise"],
        help_text="rubric: label each criterion of the response; pairwise: choose between the "
        "two responses (a, b or tie), submitted as {choice, reason}",
    )
    dialogue = TurnSerializer(many=True)
    response = serializers.CharField(help_text="empty for pairwise")
    responses = serializers.ListField(
        child=serializers.CharField(),
        min_length=2,
        max_length=2,
        required=False,
        help_text="pairwise only: the two responses, A (shown first) then B",
    )
    criteria = CriterionSerializer(many=True, help_text="empty for pairwise")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if instance.responses is None:
            data.pop("responses")
        return data


class AssignmentSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="assignment.public_id")
    status = serializers.CharField(source="assignment.status")
    kind = serializers.SerializerMethodField()
    lease_expires_at = serializers.DateTimeField(source="assignment.lease_expires_at")
    unit = UnitSerializer()
    draft = serializers.DictField(required=False)
    active_seconds = serializers.IntegerField(
        help_text="active time on the unit so far, from the draft (0 without one); a client "
        "that measures counts on from it"
    )

    def get_kind(self, data) -> str:
        # Calibration work must look exactly like rating work to the expert doing it.
        kind = data["assignment"].kind
        return "rating" if kind == "calibration" else kind

    def to_representation(self, instance) -> dict:
        """The fields above, written out: next-unit's payload without DRF's walk of nested
        fields (the declared fields stay the schema; a test holds the two equal)."""
        assignment, unit, draft = instance["assignment"], instance["unit"], instance["draft"]
        active_seconds = instance["active_seconds"]
        return {
            "id": str(assignment.public_id),
            "status": str(assignment.status),
            "kind": self.get_kind(instance),
            "lease_expires_at": _DATETIME.to_representation(assignment.lease_expires_at),
            "unit": _unit(unit),
            "draft": None if draft is None else {str(key): value for key, value in draft.items()},
            "active_seconds": None if active_seconds is None else int(active_seconds),
        }


_DATETIME = serializers.DateTimeField()


def _unit(unit) -> dict:
    """``UnitSerializer``'s representation, written out."""
    shown = {
        "token": str(unit.token),
        "question_type": str(unit.question_type),
        "dialogue": [
            {"role": str(turn["role"]), "content": str(turn["content"])} for turn in unit.dialogue
        ],
        "response": str(unit.response),
        "criteria": [_criterion(criterion) for criterion in unit.criteria],
    }
    if unit.responses is not None:
        shown["responses"] = [str(text) for text in unit.responses]
    return shown


def _criterion(criterion) -> dict:
    """``CriterionSerializer``'s representation, written out."""
    shown = {"id": str(criterion.id), "text": str(criterion.text)}
    if criterion.ability is not None:
        shown["ability"] = str(criterion.ability)
    shown["version"] = int(criterion.version)
    return shown


class LabelInSerializer(serializers.Serializer):
    criterion = serializers.CharField()
    hit = serializers.BooleanField(allow_null=True, required=False)
    note = serializers.CharField(required=False, allow_blank=True)
    version = serializers.IntegerField(
        required=False, help_text="the rubric version shown (default: the current one)"
    )


class RevisedLabelsInSerializer(serializers.Serializer):
    """Only documents the body; ``annotation.labels.labels_parse`` does the checking."""

    labels = LabelInSerializer(many=True)


class LabelsInSerializer(RevisedLabelsInSerializer):
    active_seconds = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=MAX_ACTIVE_SECONDS,
        help_text=ACTIVE_SECONDS_DOC,
    )


class AnswerInSerializer(LabelsInSerializer):
    """Only documents the body: a rubric unit's labels, or a pairwise unit's choice."""

    labels = LabelInSerializer(many=True, required=False, help_text="a rubric unit's")
    choice = serializers.ChoiceField(
        choices=["a", "b", "tie"],
        required=False,
        help_text="a pairwise unit's: a is the response shown first, b the second",
    )
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=MAX_NOTE_CHARS, help_text="optional"
    )


class LeaseSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="public_id")
    status = serializers.CharField()
    lease_expires_at = serializers.DateTimeField()

    def to_representation(self, instance) -> dict:
        """The fields above, written out (every autosave answers with them); a test holds
        this equal to DRF's walk of the declared fields."""
        return {
            "id": str(instance.public_id),
            "status": str(instance.status),
            "lease_expires_at": _DATETIME.to_representation(instance.lease_expires_at),
        }


class SubmissionOutSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="assignment.public_id")
    status = serializers.CharField(source="assignment.status")
    submitted_at = serializers.DateTimeField(source="assignment.submitted_at")

    def to_representation(self, instance) -> dict:
        """The fields above, written out (every submit answers with them); a test holds this
        equal to DRF's walk of the declared fields."""
        assignment = instance.assignment
        return {
            "id": str(assignment.public_id),
            "status": str(assignment.status),
            "submitted_at": _DATETIME.to_representation(assignment.submitted_at),
        }


class RevisionOutSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="submission.assignment.public_id")
    version = serializers.IntegerField(source="submission.version")
    changed = serializers.BooleanField(help_text="false: the labels were already these")


class FlagInSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=MAX_NOTE_CHARS, help_text="why a senior should look again"
    )


class FlagOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField(help_text="`open` until a senior answers")
    created_at = serializers.DateTimeField()


class CompletedSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="public_id")
    study = serializers.CharField(source="pool.name")
    unit = serializers.CharField(source="unit.token")
    kind = serializers.CharField()
    submitted_at = serializers.DateTimeField()


class StudyForExpertSerializer(serializers.Serializer):
    name = serializers.CharField()
    status = serializers.CharField()
    work_state = serializers.ChoiceField(
        choices=[state.value for state in WorkState if state != WorkState.NOT_ENROLLED],
        help_text="what POST assignments/next/ would find now (`ready`: a unit to rate; the "
        "others as its HeartBench-Work-State header)",
    )


class StudyProgressSerializer(serializers.Serializer):
    mine = serializers.IntegerField(help_text="units you rated in this study")
    left_for_me = serializers.IntegerField(
        help_text="units you could still be handed now (the one you hold not counted), "
        f"counted up to {LEFT_FOR_ME_CAP}"
    )
    left_for_me_more = serializers.BooleanField(
        help_text="true when more than `left_for_me` units are left for you (the count stops "
        f"at {LEFT_FOR_ME_CAP}; the workbench shows {LEFT_FOR_ME_CAP}+)"
    )
    capacity_left = serializers.IntegerField(
        help_text="units you may still submit today, over all your studies"
    )
    team_complete = serializers.IntegerField(help_text="units with all their ratings")
    team_total = serializers.IntegerField(help_text="units in the study")


class ClaimSerializer(AssignmentSerializer):
    """Next-unit's answer: the unit handed out and the study's progress line read after the
    claim, so the workbench needs no second request per unit."""

    progress = StudyProgressSerializer(
        help_text="the study's progress as `GET studies/{name}/progress/` gives it, read "
        "after this claim (the unit handed out is not among `left_for_me`)"
    )

    def to_representation(self, instance) -> dict:
        progress = StudyProgressSerializer(instance["progress"]).data
        return {**super().to_representation(instance), "progress": progress}


class AssignmentDetailSerializer(AssignmentSerializer):
    """One assignment read again; once submitted, with what was submitted."""

    submitted = serializers.DictField(
        allow_null=True,
        help_text="null until submitted; then the submitted labels by criterion id "
        "({hit, note}), so another tab on the unit can show its marks beside them",
    )

    def to_representation(self, instance) -> dict:
        return {**super().to_representation(instance), "submitted": instance["submitted"]}


class NotEnrolledSerializer(serializers.Serializer):
    detail = serializers.CharField()
    state = serializers.CharField(help_text="always `not_enrolled`")


class TokenInSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"})


class TokenOutSerializer(serializers.Serializer):
    token = serializers.CharField()
