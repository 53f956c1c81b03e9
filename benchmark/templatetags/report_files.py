"""Tags for the self-contained HTML files (the leaderboard file, the study report).

`{% inline_css "benchmark/report.css" %}` writes a static CSS file's contents into the document,
so the file loads nothing when it is mailed, archived or printed, and the web page that links
the same file looks the same. `{{ value|number:3 }}` writes a figure as the charts do: fixed
digits, "—" for none.
"""

from django import template
from django.contrib.staticfiles import finders
from django.utils.safestring import SafeString, mark_safe

from benchmark import charts

register = template.Library()


@register.simple_tag
def inline_css(path: str) -> SafeString:
    found = finders.find(path)
    if found is None:
        raise template.TemplateSyntaxError(f"no static file {path!r}")
    with open(found, encoding="utf-8") as css:
        # The project's own stylesheet, not data: there is nothing in it to escape.
        return mark_safe(css.read())


@register.filter
def number(value: float | None, digits: int = 2) -> str:
    return charts.number(value, int(digits))
