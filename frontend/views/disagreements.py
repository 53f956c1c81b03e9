"""The disagreement viewer (staff only): a study's gold labels beside the judge's verdicts,
filtered and paginated, with a CSV of the filtered view. Reads through
``validation.selectors.disagreements``; this module parses, checks and renders."""

import io

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import Http404, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from validation import export
from validation.downloads import study_file_response
from validation.selectors import study_get
from validation.selectors.disagreements import (
    FilterError,
    disagreement_filters_parse,
    disagreement_options,
    disagreements_columns,
    disagreements_page,
    disagreements_rows,
)


class _Pairwise(Exception):
    """A pairwise study has no items: its judge and experts are compared in its report."""

    def __init__(self, study) -> None:
        self.study = study


def _study_and_filters(request, name: str):
    study = study_get(name=name)
    if study is None:
        raise Http404("no such study")
    if study.is_pairwise:
        raise _Pairwise(study)
    options = disagreement_options(study=study)
    return study, options, disagreement_filters_parse(query=request.GET, options=options)


def _to_report(request, study) -> HttpResponseRedirect:
    messages.info(
        request,
        _(
            "A pairwise study has no criteria to compare item by item: the judge against the "
            "experts' choices is in its report."
        ),
    )
    return redirect("validation:study-report", study.name)


def _refused(exc: FilterError) -> HttpResponseBadRequest:
    return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")


@staff_member_required
def study_disagreements(request, name: str):
    """One page of the study's items; the query keeps the filters and the page number."""
    try:
        study, options, filters = _study_and_filters(request, name)
    except FilterError as exc:
        return _refused(exc)
    except _Pairwise as pairwise:
        return _to_report(request, pairwise.study)
    page = disagreements_page(study=study, filters=filters, number=request.GET.get("page"))
    query = filters.as_query()
    for item in page.object_list:
        # The rubric edit records this item as the edit's prompt (benchmark.admin_rubric).
        edit = reverse("admin:benchmark_rubricitem_change", args=[item.criterion_id])
        item.edit_url = f"{edit}?{urlencode({'study': study.name, 'unit': item.unit})}"
    context = admin.site.each_context(request) | {
        # The items need the width more than the admin's model list.
        "is_nav_sidebar_enabled": False,
        "title": _("Disagreements: %(name)s") % {"name": study.name},
        "study": study,
        "options": options,
        "filters": filters,
        "page": page,
        "query": urlencode(query),
        "page_query": "&".join(filter(None, [urlencode(query), "page="])),
    }
    return render(request, "frontend/disagreements.html", context)


@staff_member_required
def study_disagreements_csv(request, name: str):
    """The filtered view as CSV (spreadsheet formulas neutralised)."""
    try:
        study, _options, filters = _study_and_filters(request, name)
    except FilterError as exc:
        return _refused(exc)
    except _Pairwise as pairwise:
        return _to_report(request, pairwise.study)
    out = io.StringIO()
    rows = disagreements_rows(study=study, filters=filters)
    export.rows_write(rows=rows, fmt="csv", out=out, columns=disagreements_columns(study=study))
    return study_file_response(study=study, what="disagreements", fmt="csv", text=out.getvalue())
