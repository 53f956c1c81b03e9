"""A study's report or export as a file to download, for the admin's pages and the admin API."""

from django.http import HttpResponse
from django.utils.text import slugify

from validation.models import Study

CONTENT_TYPES = {
    "json": "application/json; charset=utf-8",
    "jsonl": "application/jsonl; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "html": "text/html; charset=utf-8",
}


def study_file_response(*, study: Study, what: str, fmt: str, text: str) -> HttpResponse:
    """``text`` (the study's ``what``: report or export, in ``fmt``) as an attachment."""
    response = HttpResponse(text, content_type=CONTENT_TYPES[fmt])
    filename = f"study-{what}-{slugify(study.name) or study.pk}.{fmt}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
