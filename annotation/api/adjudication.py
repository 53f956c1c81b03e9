"""The senior queue's REST API: claim the next unit to adjudicate, read it, decide it.

Blind like the rest of the expert API: the payload is built only from the
``BlindAdjudication`` the selector assembled (what is to be decided, never a rater's label,
choice or note, not even counted). The lease is
renewed through the ordinary ``assignments/<id>/renew/`` endpoint.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from annotation import services
from annotation.api import (
    ASSIGNMENT_ID,
    LEASE_CONFLICT,
    NO_STUDY,
    STUDY_PARAMETER,
    ExpertAPIView,
)
from annotation.models import Assignment, Pool
from annotation.selectors import adjudication as queue
from annotation.serializers import SubmissionOutSerializer, TurnSerializer
from config.openapi import bad_request, json_body, refusal

NOT_YOURS = refusal("no adjudication of yours has this id")


class CriterionToDecideSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="opaque, valid for this adjudication only")
    text = serializers.CharField()
    ability = serializers.CharField(required=False, help_text="only when the study shows it")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if instance.ability is None:
            data.pop("ability")
        return data


class BlindAdjudicationSerializer(serializers.Serializer):
    token = serializers.CharField()
    question_type = serializers.ChoiceField(choices=["rubric", "pairwise"])
    dialogue = TurnSerializer(many=True)
    response = serializers.CharField(help_text="empty for pairwise")
    responses = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="pairwise only: the two responses, A (shown first) then B",
    )
    whole_unit = serializers.BooleanField(help_text="the unit never got three ratings")
    criteria = CriterionToDecideSerializer(many=True, help_text="empty for pairwise")

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if instance.responses is None:
            data.pop("responses")
        return data


class AdjudicationSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="assignment.public_id")
    status = serializers.CharField(source="assignment.status")
    lease_expires_at = serializers.DateTimeField(source="assignment.lease_expires_at")
    unit = BlindAdjudicationSerializer()


class DecisionInSerializer(serializers.Serializer):
    criterion = serializers.CharField()
    hit = serializers.BooleanField(help_text="true: met, false: not met")
    reason = serializers.CharField(help_text="required")


class DecisionsInSerializer(serializers.Serializer):
    """Only documents the body: a rubric unit's decisions
    (``annotation.decisions.decisions_parse`` checks them), or a pair's choice and reason."""

    decisions = DecisionInSerializer(many=True, required=False)
    choice = serializers.ChoiceField(
        choices=["a", "b", "tie"],
        required=False,
        help_text="a pair's: a is the response shown first, b the second",
    )
    reason = serializers.CharField(required=False, help_text="a pair's: required")


class SeniorAPIView(ExpertAPIView):
    def handle_exception(self, exc):
        if isinstance(exc, queue.NotASenior):
            exc = PermissionDenied("only senior experts adjudicate")
        return super().handle_exception(exc)

    def adjudication(self, assignment_id) -> Assignment:
        queue.senior_for_user(user=self.request.user)
        return self.assignment(assignment_id)

    def payload(self, assignment: Assignment) -> dict:
        unit = queue.adjudication_get_for_senior(user=self.request.user, assignment=assignment)
        return AdjudicationSerializer({"assignment": assignment, "unit": unit}).data


class NextAdjudicationView(SeniorAPIView):
    @extend_schema(
        request=None,
        parameters=[STUDY_PARAMETER],
        responses={
            201: AdjudicationSerializer,
            204: OpenApiResponse(description="nothing waits for you"),
            400: NO_STUDY,
            404: refusal("no study of that name for you"),
            409: refusal("you hold a unit to rate in this study; submit it in the workbench first"),
        },
    )
    def post(self, request):
        pool = queue.pool_get_for_senior(user=request.user, name=self.study_query())
        assignment = services.adjudication_claim_next(user=request.user, pool=pool)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(self.payload(assignment), status=status.HTTP_201_CREATED)


class AdjudicationDetailView(SeniorAPIView):
    @extend_schema(
        parameters=[ASSIGNMENT_ID], responses={200: AdjudicationSerializer, 404: NOT_YOURS}
    )
    def get(self, request, assignment_id):
        return Response(self.payload(self.adjudication(assignment_id)))


class AdjudicationSubmitView(SeniorAPIView):
    @extend_schema(
        request=json_body(DecisionsInSerializer),
        parameters=[ASSIGNMENT_ID],
        responses={
            201: SubmissionOutSerializer,
            200: SubmissionOutSerializer,
            400: bad_request(
                "the body is not JSON or not a JSON object, or its decisions are malformed or "
                "incomplete; `detail` (or the field's list) says which"
            ),
            404: NOT_YOURS,
            409: LEASE_CONFLICT,
        },
    )
    def post(self, request, assignment_id):
        assignment = self.adjudication(assignment_id)
        if assignment.pool.question_type == Pool.QuestionType.PAIRWISE:
            submission, created = services.pairwise_choice_submit(
                assignment=assignment,
                choice=self.body_field("choice"),
                reason=self.body_field("reason"),
                decision=True,
            )
        else:
            submission, created = services.adjudication_submit(
                assignment=assignment, decisions=self.body_field("decisions")
            )
        return Response(
            SubmissionOutSerializer(submission).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )
