"""The admin API (/api/v1/admin/): studies, their progress, report and export for staff, by
token as a script would, or by session. Thin views over the services and selectors the
`heartbench study` command uses, with its checks and its messages."""

import io

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAdminUser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api import Conflict
from annotation.services import AnnotationError
from config.openapi import bad_request, refusal
from validation import export, report, selectors, services
from validation.dashboard.selectors import studies_progress
from validation.downloads import CONTENT_TYPES, study_file_response
from validation.models import Study
from validation.serializers import (
    AdminExportQuerySerializer,
    AdminReportQuerySerializer,
    AdminStudyClosedSerializer,
    AdminStudyCloseSerializer,
    AdminStudyCreateSerializer,
    AdminStudyProgressSerializer,
    AdminStudySerializer,
)
from validation.services.stored import study_report_keep

# The error answers of the admin's operations, each documented once (401 and 503 are added to
# every authenticated operation by config.openapi.Schema). A 400 names the field at fault.
ERRORS = {
    400: bad_request(
        "a field is missing or refused: `{field: [reason]}`, with the reason `heartbench study` "
        "gives"
    ),
    403: refusal("signed in, but not staff"),
    404: refusal("no study of that name"),
    409: refusal("the study's state refuses it (only a draft opens, only an open study closes)"),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in codes}


class AdminAPIView(APIView):
    # Token first, so an anonymous request gets 401 with a WWW-Authenticate challenge.
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    # Staff, as the admin's pages require (an inactive user's token is refused already).
    permission_classes = [IsAdminUser]

    def handle_exception(self, exc):
        if isinstance(exc, services.StudyError | selectors.UnknownName) and exc.field:
            exc = ValidationError({exc.field: [str(exc)]})
        elif isinstance(exc, services.StudyError | AnnotationError):
            exc = Conflict(str(exc))
        return super().handle_exception(exc)

    def study(self, name: str) -> Study:
        study = selectors.study_for_admin(name=name)
        if study is None:
            raise NotFound(f"no study named {name!r}")
        return study


class StudyListView(AdminAPIView, ListAPIView):
    """Every study, newest first (in pages); POST creates a draft study."""

    serializer_class = AdminStudySerializer

    def get_queryset(self):
        return selectors.studies_for_admin()

    @extend_schema(responses={200: AdminStudySerializer(many=True), **errors(403)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request=AdminStudyCreateSerializer,
        responses={201: AdminStudySerializer, **errors(400, 403)},
    )
    def post(self, request):
        """Draw the stratified sample into a draft study, as `heartbench study create`."""
        body = AdminStudyCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study = services.study_create_named(**body.validated_data, actor=request.user)
        return Response(
            AdminStudySerializer(self.study(study.name)).data, status=status.HTTP_201_CREATED
        )


class StudyDetailView(AdminAPIView):
    @extend_schema(responses={200: AdminStudySerializer, **errors(403, 404)})
    def get(self, request, study: str):
        return Response(AdminStudySerializer(self.study(study)).data)


class StudyOpenView(AdminAPIView):
    @extend_schema(request=None, responses={200: AdminStudySerializer, **errors(403, 404, 409)})
    def post(self, request, study: str):
        """Let experts claim the study's units, as `heartbench study open`."""
        opened = services.study_open(study=self.study(study), actor=request.user)
        return Response(AdminStudySerializer(self.study(opened.name)).data)


class StudyCloseView(AdminAPIView):
    @extend_schema(
        request=AdminStudyCloseSerializer,
        responses={200: AdminStudyClosedSerializer, **errors(400, 403, 404, 409)},
    )
    def post(self, request, study: str):
        """Stop rating, as `heartbench study close --yes`: units short of three ratings go to
        a senior expert or are dropped, as `partial` and `unrated` say."""
        body = AdminStudyCloseSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        counts = services.study_close(
            study=self.study(study), actor=request.user, **body.validated_data
        )
        closed = {"study": self.study(study), **counts}
        return Response(AdminStudyClosedSerializer(closed).data)


class StudyProgressView(AdminAPIView):
    @extend_schema(responses={200: AdminStudyProgressSerializer, **errors(403, 404)})
    def get(self, request, study: str):
        """Units by state, ratings done and the pace against the due date (the dashboard's)."""
        [progress] = studies_progress(studies=[self.study(study)])
        return Response(AdminStudyProgressSerializer(progress).data)


class StudyFileView(AdminAPIView):
    # ``?format=`` names the file asked for, as on the admin's pages and on the command line,
    # not a renderer: whatever it says, answers that are not the file (errors) are JSON.
    renderer_classes = [JSONRenderer]

    def perform_content_negotiation(self, request, force=False):
        return super().perform_content_negotiation(request, force=True)


def file_responses(formats) -> dict:
    """The 200 answer as each format's file."""
    return {(200, CONTENT_TYPES[fmt].split(";")[0]): OpenApiTypes.STR for fmt in formats}


def format_parameter(formats, default: str) -> OpenApiParameter:
    return OpenApiParameter("format", str, enum=list(formats), default=default)


class StudyReportView(StudyFileView):
    @extend_schema(
        parameters=[format_parameter(report.FORMATS, "json")],
        responses={
            **file_responses(report.FORMATS),
            (200, "application/json"): OpenApiTypes.OBJECT,
            **errors(400, 403, 404),
        },
    )
    def get(self, request, study: str):
        """The agreement report (as `heartbench study report`; kept while its data holds):
        JSON in the body, or `?format=csv|html` as a file."""
        query = AdminReportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        fmt = query.validated_data["format"]
        found = self.study(study)
        computed = study_report_keep(study=found)
        if fmt == "json":
            return Response(computed)
        text = report.report_render(computed, fmt=fmt)
        return study_file_response(study=found, what="report", fmt=fmt, text=text)


class StudyExportView(StudyFileView):
    @extend_schema(
        parameters=[format_parameter(export.FORMATS, "csv")],
        responses={**file_responses(export.FORMATS), **errors(400, 403, 404)},
    )
    def get(self, request, study: str):
        """One row per unit × criterion with each rater's pseudonym, label and note, the
        adjudicator's, the gold and the judges' verdicts (as `heartbench study export`)."""
        query = AdminExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        fmt = query.validated_data["format"]
        found = self.study(study)
        out = io.StringIO()
        export.rows_write(rows=selectors.study_export_rows(study=found), fmt=fmt, out=out)
        return study_file_response(study=found, what="export", fmt=fmt, text=out.getvalue())
