"""The expert-facing REST API: thin views over annotation services and selectors."""

from collections.abc import Mapping

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import (
    APIException,
    NotFound,
    ParseError,
    PermissionDenied,
    ValidationError,
)
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import selectors, services
from annotation.active_time import MAX_ACTIVE_SECONDS, InvalidActiveSeconds
from annotation.labels import InvalidLabels
from annotation.models import Assignment, Pool
from annotation.selectors import quality as selectors_quality
from annotation.selectors import work as selectors_work
from annotation.selectors.work import NOTHING_TO_HAND_OUT, WorkState
from annotation.serializers import (
    AnswerInSerializer,
    AssignmentDetailSerializer,
    ClaimSerializer,
    CompletedSerializer,
    FlagInSerializer,
    FlagOutSerializer,
    LabelsInSerializer,
    LeaseSerializer,
    NotEnrolledSerializer,
    RevisedLabelsInSerializer,
    RevisionOutSerializer,
    StudyForExpertSerializer,
    StudyProgressSerializer,
    SubmissionOutSerializer,
    TokenInSerializer,
    TokenOutSerializer,
)
from config.auth import TokenWithExpertAuthentication
from config.busy import RETRY_AFTER_SECONDS
from config.openapi import BUSY, bad_request, json_body, refusal


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


class InvalidBody(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid_body"


class Busy(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "busy"
    # Seconds; DRF's exception handler sends it as Retry-After, like config.busy's 503.
    wait = RETRY_AFTER_SECONDS


def _translate(exc: Exception) -> APIException:
    if isinstance(exc, InvalidLabels):
        return ValidationError({exc.field: [str(exc)]})
    if isinstance(exc, InvalidActiveSeconds):
        return ValidationError({"active_seconds": [str(exc)]})
    if isinstance(exc, selectors.NotAnExpert):
        return PermissionDenied(gettext("only experts can do this"))
    if isinstance(exc, services.LeaseLost):
        return Conflict(str(exc), code="lease_lost")
    if isinstance(exc, services.PoolBusy):
        return Busy(str(exc))
    return Conflict(str(exc))


BAD_BODY = bad_request(
    "the body is not JSON, not a JSON object, its labels are malformed or incomplete, or its "
    f"`active_seconds` is not a whole number from 0 to {MAX_ACTIVE_SECONDS}; "
    "`detail` (or the field's list) says which, in the request's language"
)
NO_STUDY = bad_request("no `?study=`, or an empty one")
NOT_YOURS = refusal("no assignment of yours has this id")
LEASE_CONFLICT = refusal(
    "the lease was lost (it expired and the unit went to someone else) or the assignment is "
    "already submitted; `detail` says which"
)
PAGES = {
    400: bad_request("`page_size` is not a whole number from 1"),
    404: refusal("no such page"),
}
# Assignment ids are UUIDs; config.openapi.LINKS fills them in from a claim's answer.
ASSIGNMENT_ID = OpenApiParameter("assignment_id", OpenApiTypes.UUID, OpenApiParameter.PATH)
# Any name a study has (names stored before validation.naming's rule still work), not blank.
STUDY_PARAMETER = OpenApiParameter(
    "study", OpenApiTypes.STR, required=True, allow_blank=False, description="the study's name"
)


class ExpertAPIView(APIView):
    # Token first, so an anonymous request gets 401 with a WWW-Authenticate challenge.
    authentication_classes = [TokenWithExpertAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]

    def handle_exception(self, exc):
        if isinstance(exc, Http404):
            exc = NotFound(str(exc) or gettext("not found"))
        elif isinstance(exc, ParseError):
            # DRF's own text quotes the parser's English error; say what to send instead.
            exc = ParseError(gettext("the request body could not be parsed; send a JSON object"))
        elif isinstance(
            exc,
            (services.AnnotationError, InvalidLabels, InvalidActiveSeconds, selectors.NotAnExpert),
        ):
            exc = _translate(exc)
        return super().handle_exception(exc)

    def body_field(self, name: str) -> object:
        """One field of the request's JSON object. A body that parsed to something else (a
        list, a string, a number, null) is the client's mistake: 400, never a crash."""
        data = self.request.data
        if not isinstance(data, Mapping):
            raise InvalidBody(
                gettext(
                    'the request body must be a JSON object with "%(field)s", '
                    'for example {"%(field)s": [...]}'
                )
                % {"field": name}
            )
        return data.get(name)

    def study_query(self) -> str:
        """The ``?study=`` name; 400 when missing."""
        name = self.request.query_params.get("study", "")
        if not name:
            raise ValidationError({"study": [gettext("give ?study=NAME")]})
        return name

    def assignment(self, assignment_id, *, pay_rate: bool = False) -> Assignment:
        return selectors.assignment_get_for_expert(
            user=self.request.user, public_id=assignment_id, pay_rate=pay_rate
        )

    def assignment_fields(self, assignment: Assignment) -> dict:
        """What ``AssignmentSerializer`` shows of the expert's assignment."""
        return {
            "assignment": assignment,
            "unit": selectors.unit_get_for_expert(user=self.request.user, assignment=assignment),
            "draft": selectors.draft_for_assignment(assignment=assignment),
            "active_seconds": selectors.draft_active_seconds(assignment=assignment),
        }


class TokenView(ObtainAuthToken):
    @extend_schema(
        request=TokenInSerializer,
        responses={
            200: TokenOutSerializer,
            400: bad_request("no user name or password, or they do not match an active user"),
            429: refusal("too many failed logins from this address or for this user name"),
            503: refusal(BUSY),
        },
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


class StudyListView(ExpertAPIView, ListAPIView):
    """The studies open to me, with whether there is work for me in each (in pages)."""

    serializer_class = StudyForExpertSerializer

    @extend_schema(responses={200: StudyForExpertSerializer(many=True), **PAGES})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return [
            {"name": pool.name, "status": pool.status, "work_state": state}
            for pool, state in selectors_work.studies_with_work_state(user=self.request.user)
        ]


class StudyProgressView(ExpertAPIView):
    @extend_schema(
        responses={200: StudyProgressSerializer, 404: refusal("no study of yours has this name")}
    )
    def get(self, request, study: str):
        pool = selectors.pool_get_for_expert(user=request.user, name=study)
        progress = selectors_work.study_progress(
            expert=selectors.expert_for_user(user=request.user), pool=pool
        )
        return Response(StudyProgressSerializer(progress).data)


# Why a claim handed out nothing. A 204 has no body, so the state travels in a header; the
# status codes stay what clients already know (204 nothing to hand out, 404 not your study).
WORK_STATE_HEADER = "HeartBench-Work-State"
WORK_STATE_DOC = (
    "Why nothing was handed out: `capacity_reached` (the expert's daily capacity is used up; "
    "more tomorrow), `study_closed`, `not_open_yet` (the study is still a draft), "
    "`nothing_left` (every unit this expert could rate has its raters, or is leased to "
    "someone who may still give it back). Calibration work is handed out like any other "
    "unit (201), so it is no state of its own."
)


class NextAssignmentView(ExpertAPIView):
    @extend_schema(
        request=None,
        parameters=[
            STUDY_PARAMETER,
            OpenApiParameter(
                WORK_STATE_HEADER,
                str,
                location=OpenApiParameter.HEADER,
                response=[204],
                enum=[state.value for state in NOTHING_TO_HAND_OUT],
                description=WORK_STATE_DOC,
            ),
        ],
        responses={
            201: ClaimSerializer,
            204: OpenApiResponse(
                description=f"nothing to hand out now; the {WORK_STATE_HEADER} header says why"
            ),
            404: OpenApiResponse(
                NotEnrolledSerializer,
                description=f"the expert is not part of a study of that name ({WORK_STATE_HEADER}"
                " and `state`: `not_enrolled`)",
            ),
            400: NO_STUDY,
            409: refusal("you hold a unit in the senior queue; decide it there first"),
        },
    )
    def post(self, request):
        pool, claim = services.assignment_claim_next_in_study(
            user=request.user, name=self.study_query()
        )
        if pool is None:
            state = WorkState.NOT_ENROLLED
            return Response(
                {"detail": gettext("no such study for you"), "state": state.value},
                status=status.HTTP_404_NOT_FOUND,
                headers={WORK_STATE_HEADER: state.value},
            )
        if claim.assignment is None:
            return Response(
                status=status.HTTP_204_NO_CONTENT, headers={WORK_STATE_HEADER: claim.state.value}
            )
        progress = selectors_work.study_progress(
            expert=selectors.expert_for_user(user=request.user),
            pool=pool,
            submitted_today=pool.submitted_today,  # the claim's study read counted them
            hard=claim.hard,  # and the claim applied the hard-case policy
        )
        fields = {**self.assignment_fields(claim.assignment), "progress": progress}
        return Response(ClaimSerializer(fields).data, status=status.HTTP_201_CREATED)


class AssignmentDetailView(ExpertAPIView):
    @extend_schema(
        parameters=[ASSIGNMENT_ID], responses={200: AssignmentDetailSerializer, 404: NOT_YOURS}
    )
    def get(self, request, assignment_id):
        assignment = self.assignment(assignment_id)
        fields = self.assignment_fields(assignment)
        fields["submitted"] = selectors.submitted_for_assignment(assignment=assignment)
        return Response(AssignmentDetailSerializer(fields).data)


class DraftView(ExpertAPIView):
    @extend_schema(
        request=json_body(LabelsInSerializer),
        parameters=[ASSIGNMENT_ID],
        responses={200: LeaseSerializer, 400: BAD_BODY, 404: NOT_YOURS, 409: LEASE_CONFLICT},
    )
    def put(self, request, assignment_id):
        assignment = services.assignment_autosave(
            assignment=self.assignment(assignment_id),
            labels=self.body_field("labels"),
            active_seconds=self.body_field("active_seconds"),
        )
        return Response(LeaseSerializer(assignment).data)


class RenewView(ExpertAPIView):
    @extend_schema(
        request=None,
        parameters=[ASSIGNMENT_ID],
        responses={200: LeaseSerializer, 404: NOT_YOURS, 409: LEASE_CONFLICT},
    )
    def post(self, request, assignment_id):
        assignment = services.assignment_renew(assignment=self.assignment(assignment_id))
        return Response(LeaseSerializer(assignment).data)


class SubmitView(ExpertAPIView):
    @extend_schema(
        request=json_body(AnswerInSerializer),
        parameters=[ASSIGNMENT_ID],
        responses={
            201: SubmissionOutSerializer,
            200: SubmissionOutSerializer,
            400: BAD_BODY,
            404: NOT_YOURS,
            409: LEASE_CONFLICT,
        },
    )
    def post(self, request, assignment_id):
        assignment = self.assignment(assignment_id, pay_rate=True)
        if assignment.pool.question_type == Pool.QuestionType.PAIRWISE:
            submission, created = services.pairwise_choice_submit(
                assignment=assignment,
                choice=self.body_field("choice"),
                reason=self.body_field("reason"),
                active_seconds=self.body_field("active_seconds"),
            )
        else:
            submission, created = services.assignment_submit(
                assignment=assignment,
                labels=self.body_field("labels"),
                active_seconds=self.body_field("active_seconds"),
            )
        data = SubmissionOutSerializer(submission).data
        # The submission that finished a calibration sitting tells the expert how it went.
        outcome = selectors_quality.calibration_outcome(assignment=assignment)
        if outcome is not None:
            data["calibration"] = outcome
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ReviseView(ExpertAPIView):
    @extend_schema(
        request=json_body(RevisedLabelsInSerializer),
        parameters=[ASSIGNMENT_ID],
        responses={
            200: RevisionOutSerializer,
            400: BAD_BODY,
            404: NOT_YOURS,
            409: refusal(
                "not revisable: the unit has all its ratings, is with a senior, "
                "or the study is closed (flag it for review instead); or not submitted yet"
            ),
        },
    )
    def post(self, request, assignment_id):
        """Replace the labels of a submitted rating while its unit still waits for ratings;
        the earlier version is kept. The same labels again change nothing."""
        submission, changed = services.submission_revise(
            user=request.user,
            assignment=self.assignment(assignment_id),
            labels=self.body_field("labels"),
        )
        return Response(RevisionOutSerializer({"submission": submission, "changed": changed}).data)


class FlagView(ExpertAPIView):
    @extend_schema(
        request=FlagInSerializer,
        parameters=[ASSIGNMENT_ID],
        responses={
            201: FlagOutSerializer,
            400: bad_request("the body is not JSON or not a JSON object"),
            404: NOT_YOURS,
            409: refusal(
                "no reason given, the unit still waits for ratings (revise it "
                "instead), or a flag of yours on it is still open"
            ),
        },
    )
    def post(self, request, assignment_id):
        """Ask a senior to look again at a rating whose unit has all its ratings."""
        flag = services.submission_flag(
            user=request.user,
            assignment=self.assignment(assignment_id),
            reason=self.body_field("reason"),
        )
        return Response(FlagOutSerializer(flag).data, status=status.HTTP_201_CREATED)


class CompletedView(ExpertAPIView, ListAPIView):
    """My submitted work, newest first (in pages)."""

    serializer_class = CompletedSerializer

    @extend_schema(responses={200: CompletedSerializer(many=True), **PAGES})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return selectors.assignments_completed_for_expert(user=self.request.user)
