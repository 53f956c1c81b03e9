"""The construction tiers' work over the REST API, in the shape of the assignments' API:
``/api/v1/work/<kind>/next/?project=NAME`` leases the next draft (the one held comes back
first), ``/api/v1/work/<kind>/<id>/`` reads it, ``renew/`` keeps the lease, ``submit/``
answers it. The kinds are ``difficulty``, ``criterion_review`` and ``panel`` (seniors only:
``annotation.work``). The payload shows what the task's page shows: the draft's dialogue, its
criteria for a review, the unnamed reviews and the panel's earlier returns for the panel;
never who else worked on the draft.
"""

import uuid

from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response

from annotation import selectors
from annotation.api import LEASE_CONFLICT, ExpertAPIView
from annotation.models import ConstructionTask, CriterionReview, DifficultyMark, TaskKind
from annotation.selectors import construction as reads
from annotation.serializers import LeaseSerializer, TurnSerializer
from annotation.services import construction as work
from annotation.work import kind_permitted
from benchmark.selectors.construction import ProjectNotFound, project_get
from config.openapi import bad_request, json_body, refusal

TASK_ID = OpenApiParameter(
    "task_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="the task's id"
)
PROJECT = OpenApiParameter(
    "project", str, required=True, allow_blank=False, description="the project's name"
)
NOT_YOURS = refusal("no task of yours of this kind has this id, or it is submitted")


class ReviewSerializer(serializers.Serializer):
    verdict = serializers.CharField()
    comment = serializers.CharField(allow_blank=True)
    version = serializers.IntegerField(source="criterion_version", help_text="version reviewed")


class DraftCriterionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="criterion.pk")
    text = serializers.CharField(source="criterion.text")
    ability = serializers.CharField(source="criterion.ability")
    points = serializers.IntegerField(source="criterion.points", allow_null=True)
    version = serializers.IntegerField(source="criterion.version")
    reviews = ReviewSerializer(many=True, required=False, help_text="the panel only, unnamed")


class ReturnSerializer(serializers.Serializer):
    round = serializers.IntegerField(source="round.number")
    reasons = serializers.ListField(child=serializers.CharField())


class WorkDraftSerializer(serializers.Serializer):
    question_id = serializers.CharField()
    scene = serializers.CharField(source="primary_scene", allow_blank=True)
    dialogue = TurnSerializer(many=True)
    criteria = DraftCriterionSerializer(many=True, help_text="empty for difficulty")
    returns = ReturnSerializer(many=True, help_text="the panel only: earlier rounds returned")


class WorkTaskSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="task.public_id")
    kind = serializers.CharField(source="task.kind")
    status = serializers.CharField(source="task.status")
    lease_expires_at = serializers.DateTimeField(source="task.lease_expires_at")
    project = serializers.CharField(source="task.work.project.name")
    draft = WorkDraftSerializer()


class DifficultyInSerializer(serializers.Serializer):
    difficulty = serializers.ChoiceField(choices=["normal", "hard"])
    reason = serializers.ChoiceField(
        choices=DifficultyMark.Reason.values, required=False, help_text="needed when hard"
    )
    comment = serializers.CharField(required=False, help_text="needed when the reason is other")


class VerdictInSerializer(serializers.Serializer):
    criterion = serializers.IntegerField()
    verdict = serializers.ChoiceField(choices=CriterionReview.Verdict.values)
    comment = serializers.CharField(required=False, help_text="needed unless clear")
    version = serializers.IntegerField(help_text="the criterion's version you read")


class ReviewInSerializer(serializers.Serializer):
    verdicts = VerdictInSerializer(many=True, help_text="one per criterion of the draft")


class VoteInSerializer(serializers.Serializer):
    vote = serializers.ChoiceField(choices=["accept", "return"])
    reason = serializers.CharField(required=False, help_text="needed for a return")


class SubmittedSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="public_id")
    status = serializers.CharField()
    submitted_at = serializers.DateTimeField()


BAD_ANSWER = bad_request("the answer is malformed or incomplete; `detail` says why")


class WorkAPIView(ExpertAPIView):
    """One view of one construction kind (``kind`` is set by the URLconf)."""

    kind: str = ""

    def handle_exception(self, exc):
        if isinstance(exc, reads.TaskNotFound):
            exc = NotFound(gettext("no task of yours has this id"))
        elif isinstance(exc, ProjectNotFound):
            exc = NotFound(gettext("no construction project of that name"))
        return super().handle_exception(exc)

    def task(self, task_id) -> ConstructionTask:
        try:
            public_id = uuid.UUID(str(task_id))
        except ValueError as exc:
            raise reads.TaskNotFound(task_id) from exc
        return reads.task_get_for_expert(
            user=self.request.user, public_id=public_id, kind=self.kind
        )

    def payload(self, task: ConstructionTask) -> dict:
        draft = task.draft
        criteria, returns = [], []
        if task.kind == TaskKind.REVIEW:
            criteria = [{"criterion": c} for c in reads.criteria_active(draft=draft)]
        elif task.kind == TaskKind.PANEL:
            criteria = reads.criteria_with_reviews(draft=draft)
            returns = reads.panel_returns(draft=draft)
        shown = {
            "question_id": draft.question_id,
            "primary_scene": draft.primary_scene,
            "dialogue": reads.draft_dialogue(draft=draft),
            "criteria": criteria,
            "returns": returns,
        }
        return WorkTaskSerializer({"task": task, "draft": shown}).data

    def answer(self, serializer_class) -> dict:
        body = serializer_class(data=self.request.data)
        if not body.is_valid():
            raise ValidationError(body.errors)
        return body.validated_data


class WorkNextView(WorkAPIView):
    @extend_schema(
        request=None,
        parameters=[PROJECT],
        responses={
            201: WorkTaskSerializer,
            204: OpenApiResponse(description="nothing is left for you in this work"),
            400: bad_request("no `?project=`, or an empty one"),
            404: refusal("no project of that name, or this work is not open on it"),
        },
    )
    def post(self, request):
        name = request.query_params.get("project", "")
        if not name:
            raise ValidationError({"project": [gettext("give ?project=NAME")]})
        expert = selectors.expert_for_user(user=request.user)
        if not kind_permitted(kind=self.kind, expert=expert):
            raise PermissionDenied(gettext("Only senior experts sit on the panel."))
        project = project_get(name=name)
        if reads.work_open(project=project, kind=self.kind) is None:
            raise NotFound(gettext("This work is not open on the project."))
        task = work.construction_task_claim_next(user=request.user, project=project, kind=self.kind)
        if task is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        task = self.task(task.public_id)
        return Response(self.payload(task), status=status.HTTP_201_CREATED)


class WorkTaskView(WorkAPIView):
    @extend_schema(parameters=[TASK_ID], responses={200: WorkTaskSerializer, 404: NOT_YOURS})
    def get(self, request, task_id):
        return Response(self.payload(self.task(task_id)))


class WorkRenewView(WorkAPIView):
    @extend_schema(
        request=None,
        parameters=[TASK_ID],
        responses={200: LeaseSerializer, 404: NOT_YOURS, 409: LEASE_CONFLICT},
    )
    def post(self, request, task_id):
        task = work.construction_task_renew(
            user=request.user, task_id=self.task(task_id).pk, kind=self.kind
        )
        return Response(LeaseSerializer(task).data)


SUBMIT_RESPONSES = {201: SubmittedSerializer, 400: BAD_ANSWER, 404: NOT_YOURS, 409: LEASE_CONFLICT}


def _submitted(task: ConstructionTask) -> Response:
    task.refresh_from_db(fields=["status", "submitted_at"])
    return Response(SubmittedSerializer(task).data, status=status.HTTP_201_CREATED)


class DifficultySubmitView(WorkAPIView):
    kind = TaskKind.DIFFICULTY

    @extend_schema(
        request=json_body(DifficultyInSerializer), parameters=[TASK_ID], responses=SUBMIT_RESPONSES
    )
    def post(self, request, task_id):
        task, answer = self.task(task_id), self.answer(DifficultyInSerializer)
        work.difficulty_mark_submit(user=request.user, task_id=task.pk, **answer)
        return _submitted(task)


class ReviewSubmitView(WorkAPIView):
    kind = TaskKind.REVIEW

    @extend_schema(
        request=json_body(ReviewInSerializer), parameters=[TASK_ID], responses=SUBMIT_RESPONSES
    )
    def post(self, request, task_id):
        task, answer = self.task(task_id), self.answer(ReviewInSerializer)
        rows = answer["verdicts"]
        work.criterion_review_submit(
            user=request.user,
            task_id=task.pk,
            verdicts={row["criterion"]: (row["verdict"], row.get("comment", "")) for row in rows},
            versions={row["criterion"]: row["version"] for row in rows},
        )
        return _submitted(task)


class PanelSubmitView(WorkAPIView):
    kind = TaskKind.PANEL

    @extend_schema(
        request=json_body(VoteInSerializer), parameters=[TASK_ID], responses=SUBMIT_RESPONSES
    )
    def post(self, request, task_id):
        task, answer = self.task(task_id), self.answer(VoteInSerializer)
        work.panel_vote_submit(user=request.user, task_id=task.pk, **answer)
        return _submitted(task)


SUBMIT_VIEWS = {
    TaskKind.DIFFICULTY: DifficultySubmitView,
    TaskKind.REVIEW: ReviewSubmitView,
    TaskKind.PANEL: PanelSubmitView,
}
