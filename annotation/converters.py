"""URL converters shared by the apps' URLconfs. Importing this module registers them (once:
Python imports a module once, and Django refuses a second registration of a name).

``study``: a study (pool) name as one path segment, whatever the name holds. New names follow
``validation.naming``, but names stored before that rule may hold '/', '%', spaces or be dots
alone; every page links to them and every link leads back to the same study.
"""

from urllib.parse import unquote

from django.urls import register_converter

from annotation.models import could_name_a_study


class StudyNameConverter:
    """Escapes what a path segment cannot carry as itself: '%' (so unescaping is exact), '/'
    (it would end the segment) and a name of dots alone (browsers resolve '.' and '..' as
    path steps). Django then quotes the result once more for the URL, and the server unquotes
    it once before matching, so ``to_python`` sees exactly what ``to_url`` returned."""

    regex = "[^/]*"

    def to_python(self, value: str) -> str:
        name = unquote(value)
        if not could_name_a_study(name):
            raise ValueError("no study has this name")  # the resolver answers 404
        return name

    def to_url(self, value: str) -> str:
        text = str(value).replace("%", "%25").replace("/", "%2F")
        if text and not text.strip("."):
            text = text.replace(".", "%2E")
        return text


register_converter(StudyNameConverter, "study")
