"""The API's schema as a contract: every status an operation answers, with its body.

Refusals all have DRF's shape, in the request's language: ``{"detail": "..."}``, or for a 400
about fields one list of messages per field (``{"study": ["..."]}``). The statuses every
authenticated operation may answer (401, 403, and 503 from ``config.busy``), and the 400 any
operation may answer (``config.request_text``), are added here, once, by the schema class;
each view documents the ones of its own (400, 404, 409, 429) with ``refusal`` and
``bad_request``. ``add_links`` says where an answer leads, so a client (and
Schemathesis's stateful phase) can go from a claim to its draft and its submit.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from config.busy import RETRY_AFTER_SECONDS


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="why, in the request's language")
    code = serializers.CharField(
        required=False, help_text="`busy` when the database was too busy to answer"
    )


class BadRequestSerializer(serializers.Serializer):
    """``detail`` when the request as a whole is wrong; otherwise one list of messages per
    field at fault, named by the field (``{"labels": ["..."]}``)."""

    detail = serializers.CharField(required=False, help_text="why, in the request's language")


def refusal(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


def bad_request(description: str) -> OpenApiResponse:
    return OpenApiResponse(BadRequestSerializer, description=description)


def json_body(serializer: type[serializers.Serializer]) -> dict:
    """A request body only JSON can carry (lists of objects): a form's fields are strings."""
    return {"application/json": serializer}


BUSY = (
    "the database was too busy to answer in time; nothing was changed. Try again after "
    "`Retry-After` seconds"
)
# Answered by any operation that needs a user: who asks, may they, and is the database free.
AUTHENTICATED = {
    "401": "no credentials, or a token or session that is not valid; `WWW-Authenticate` says "
    "how to authenticate",
    "403": "this user may not do this: not an expert (the senior queue: not a senior), or an "
    "expert's session without its CSRF token",
    "503": BUSY,
}
# Answered by any operation, before its view reads the request (config.request_text).
HOSTILE = (
    "a query parameter or a field of the body holds a character that cannot be stored (a NUL, "
    "half of a surrogate pair), or the body is nested too deep or too big: `{field: [reason]}` "
    "or `detail`"
)
HEADERS = {
    "401": {
        "WWW-Authenticate": {
            "schema": {"type": "string"},
            "description": "`Token`: send `Authorization: Token <key>`",
        },
    },
    "429": {
        "Retry-After": {
            "schema": {"type": "integer"},
            "description": "seconds until the login window has passed",
        }
    },
    "503": {
        "Retry-After": {
            "schema": {"type": "integer", "example": RETRY_AFTER_SECONDS},
            "description": "seconds to wait before trying again",
        }
    },
}


class Schema(AutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation["responses"]
        auth = self.get_auth()
        # An operation open to anyone has no requirement, or the empty one ({}) among them.
        if auth and {} not in auth:
            error = self.resolve_serializer(ErrorSerializer, "response").ref
            for code, description in AUTHENTICATED.items():
                responses.setdefault(
                    code,
                    {
                        "description": description,
                        "content": {"application/json": {"schema": error}},
                    },
                )
        responses.setdefault(
            "400",
            {
                "description": HOSTILE,
                "content": {
                    "application/json": {
                        "schema": self.resolve_serializer(BadRequestSerializer, "response").ref
                    }
                },
            },
        )
        for code, headers in HEADERS.items():
            if code in responses:
                responses[code].setdefault("headers", {}).update(headers)
        return operation


# A response's `id` is the {assignment_id} of what is done with it next.
LINKS = {
    ("/api/v1/work/rating/next/", "post", "201"): [
        ("/api/v1/work/rating/{assignment_id}/", "get"),
        ("/api/v1/work/rating/{assignment_id}/draft/", "put"),
        ("/api/v1/work/rating/{assignment_id}/renew/", "post"),
        ("/api/v1/work/rating/{assignment_id}/submit/", "post"),
    ],
    ("/api/v1/work/rating/{assignment_id}/submit/", "post", "201"): [
        ("/api/v1/work/rating/{assignment_id}/revise/", "post"),
        ("/api/v1/work/rating/{assignment_id}/flag/", "post"),
    ],
    ("/api/v1/work/adjudication/next/", "post", "201"): [
        ("/api/v1/work/adjudication/{assignment_id}/", "get"),
        ("/api/v1/work/adjudication/{assignment_id}/renew/", "post"),
        ("/api/v1/work/adjudication/{assignment_id}/submit/", "post"),
    ],
    # The construction tiers' work (annotation.api.work), one shape for every kind.
    **{
        (f"/api/v1/work/{kind}/next/", "post", "201"): [
            (f"/api/v1/work/{kind}/{{task_id}}/", "get"),
            (f"/api/v1/work/{kind}/{{task_id}}/renew/", "post"),
            (f"/api/v1/work/{kind}/{{task_id}}/submit/", "post"),
        ]
        for kind in ("difficulty", "criterion_review", "panel")
    },
}


# The first clients' paths of study work, served as they were but documented once, under
# /api/v1/work/ (annotation/urls.py).
ALIASES = ("/api/v1/assignments/", "/api/v1/adjudications/")


def without_aliases(endpoints):
    """drf-spectacular preprocessing hook: the aliases of ``ALIASES`` left out."""
    return [endpoint for endpoint in endpoints if not endpoint[0].startswith(ALIASES)]


def add_links(result, generator, request, public):
    """drf-spectacular postprocessing hook: the OpenAPI links of ``LINKS``."""
    paths = result["paths"]
    for (path, method, code), targets in LINKS.items():
        links = paths[path][method]["responses"][code].setdefault("links", {})
        for target, target_method in targets:
            operation_id = paths[target][target_method]["operationId"]
            parameter = target[target.index("{") + 1 : target.index("}")]
            links[operation_id] = {
                "operationId": operation_id,
                "parameters": {parameter: "$response.body#/id"},
            }
    return result
