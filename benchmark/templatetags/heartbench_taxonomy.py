"""Ability and category names in the active interface language, for any app's templates.

`{% load heartbench_taxonomy %}{{ code|ability_name }}` / `{{ code|category_name }}`; the
pure lookup lives in benchmark.taxonomy, which knows nothing of Django's active language.
"""

from django import template
from django.utils.translation import get_language

from benchmark import taxonomy

register = template.Library()


@register.filter
def ability_name(code: str) -> str:
    return taxonomy.ability_name(code, language=get_language())


@register.filter
def category_name(code: str) -> str:
    return taxonomy.category_name(code, language=get_language())
