"""The study report pages under /admin/ (staff only: experts never see study-level figures)."""

import io

from django.contrib.admin.views.decorators import staff_member_required
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _

from frontend.views.staff import staff_context
from validation import export
from validation.downloads import study_file_response
from validation.report import FORMATS, report_render
from validation.report.html import report_context
from validation.selectors import study_export_rows, study_get
from validation.services.stored import study_report_keep


@staff_member_required
def study_report(request, name: str):
    """The study report (kept while its data holds); ``?format=`` downloads it as a file."""
    study = study_get(name=name)
    if study is None:
        raise Http404("no such study")
    fmt = request.GET.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise Http404("unknown format")
    report = study_report_keep(study=study)
    if fmt is None:
        title = _("Study report: %(name)s") % {"name": study.name}
        # The admin's header (the platform's name, not Django's), as the dashboard's pages.
        context = staff_context(request, title, study=study) | report_context(report)
        return render(request, "frontend/study_report_page.html", context)
    return study_file_response(
        study=study, what="report", fmt=fmt, text=report_render(report, fmt=fmt)
    )


@staff_member_required
def study_export(request, name: str):
    """The per-criterion export (what `heartbench study export` writes) as a download."""
    study = study_get(name=name)
    if study is None:
        raise Http404("no such study")
    fmt = request.GET.get("format", "csv")
    if fmt not in export.FORMATS:
        raise Http404("unknown format")
    out = io.StringIO()
    export.rows_write(rows=study_export_rows(study=study), fmt=fmt, out=out)
    return study_file_response(study=study, what="export", fmt=fmt, text=out.getvalue())
