"""Ability and category names in the active interface language, for any app's templates.

`{% load heartbench_taxonomy %}{{ code|ability_name }}` / `{{ code|category_name }}`; the
pure lookup lives in benchmark.taxonomy, which knows nothing of Django's active language.
"""

from django import template
from django.utils.html import json_script
from django.utils.translation import get_language

from benchmark import taxonomy

register = template.Library()


@register.filter
def ability_name(code: str) -> str:
    return taxonomy.ability_name(code, language=get_language())


@register.filter
def category_name(code: str) -> str:
    return taxonomy.category_name(code, language=get_language())


@register.simple_tag
def ability_names_script() -> str:
    """Every ability's name in the active language, as a JSON script element for page scripts
    (the expert API sends ability codes; the page shows names)."""
    language = get_language()
    names = {a.code: taxonomy.ability_name(a.code, language=language) for a in taxonomy.ABILITIES}
    return json_script(names, "ability-names")
