"""The study report: gathered from the database, computed by the statistics package, rendered
as JSON, CSV and one self-contained HTML file.

Importing this package stays light: computing a report needs numpy and scipy, and every import
of a submodule (the admin's status labels in ``validation.report.html``, say) runs this file
first, so the names below load their modules on first use (PEP 562) instead of at start-up.
"""

import importlib
import json
from typing import TYPE_CHECKING

FORMATS = ("json", "csv", "html")
_LAZY = {
    "report_compute": "validation.report.compute",
    "report_csv": "validation.report.csv_render",
    "report_html": "validation.report.html",
}

if TYPE_CHECKING:
    from validation.report.compute import report_compute
    from validation.report.csv_render import report_csv
    from validation.report.html import report_html


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)


def report_render(report: dict, *, fmt: str) -> str:
    """The report as text in one of ``FORMATS``."""
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    if fmt == "csv":
        from validation.report.csv_render import report_csv  # deferred: see the docstring

        return report_csv(report)
    if fmt == "html":
        from validation.report.html import report_html

        return report_html(report)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "report_compute", "report_csv", "report_html", "report_render"]
