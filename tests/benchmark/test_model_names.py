"""The admin names models, fields and choices in the interface language.

The Chinese text itself is checked by tests/frontend/test_i18n.py (catalogue complete, admin
index in Chinese); here: every name is marked for translation, and marking them changed no
table.
"""

import pytest
from django.apps import apps
from django.core.management import call_command
from django.utils import translation
from django.utils.functional import Promise

APPS = ("benchmark", "annotation", "validation", "webhooks")
# Language names are written in their own language on purpose (as Django's switch does).
OWN_NAMES = {("annotation", "faqentry", "language")}


def _models():
    for label in APPS:
        yield from apps.get_app_config(label).get_models()


def test_every_model_and_app_name_is_marked_for_translation():
    unmarked = [
        f"{model._meta.label}.{attribute}"
        for model in _models()
        for attribute in ("verbose_name", "verbose_name_plural")
        if not isinstance(getattr(model._meta, attribute), Promise)
    ]
    unmarked += [
        label for label in APPS if not isinstance(apps.get_app_config(label).verbose_name, Promise)
    ]
    assert unmarked == []


def test_every_field_name_help_text_and_choice_is_marked_for_translation():
    unmarked = []
    for model in _models():
        for field in model._meta.get_fields(include_hidden=False):
            if field.auto_created or (not field.concrete and not field.many_to_many):
                continue  # reverse relations and the primary key are named by Django
            where = f"{model._meta.label}.{field.name}"
            if not isinstance(field.verbose_name, Promise):
                unmarked.append(f"{where} verbose_name")
            if field.help_text and not isinstance(field.help_text, Promise):
                unmarked.append(f"{where} help_text")
            key = (model._meta.app_label, model._meta.model_name, field.name)
            if field.choices and key not in OWN_NAMES:
                unmarked += [
                    f"{where} choice {value!r}"
                    for value, label in field.flatchoices
                    if not isinstance(label, Promise)
                ]
    assert unmarked == []


def test_ability_choices_follow_the_interface_language():
    from benchmark.models import RubricItem

    choices = RubricItem._meta.get_field("ability").flatchoices
    with translation.override("zh-hans"):
        assert str(dict(choices)["warmth"]) == "温暖"
    with translation.override("en"):
        assert str(dict(choices)["warmth"]) == "Warmth"


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_translated_names_need_no_new_migration(language):
    # The lazy labels must compare equal to the English ones the migrations hold, whatever
    # language is active when the command starts.
    with translation.override(language):
        try:
            call_command("makemigrations", *APPS, check=True, dry_run=True, verbosity=0)
        except SystemExit as exc:
            pytest.fail(f"makemigrations found changes (exit {exc.code})")
