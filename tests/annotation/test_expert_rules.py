"""`heartbench expert add` and expert_create apply the configured password validators and the
User model's user-name rules (one line, non-zero exit, nothing written); a pool's lease lasts
at least a minute, whoever creates it."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation import services
from annotation.models import Expert, Pool
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.studies import dataset_with_responses
from validation import services as validation_services
from validation.models import Study

pytestmark = pytest.mark.django_db

STRICT = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]


def add(username: str, password: str, *extra: str) -> str:
    out = io.StringIO()
    stdin = io.StringIO(password + "\n")
    import sys

    saved, sys.stdin = sys.stdin, stdin
    try:
        call_command("expert", "add", username, "--password-stdin", *extra, stdout=out)
    finally:
        sys.stdin = saved
    return out.getvalue()


def written() -> tuple[int, int, int]:
    return get_user_model().objects.count(), Expert.objects.count(), AuditEvent.objects.count()


@pytest.mark.parametrize(
    ("username", "reason"),
    [
        ("alice smith", "user name"),
        ("<b>alice</b>", "user name"),
        ("alice\tb", "user name"),
        ("a" * 151, "at most 150 characters"),
    ],
)
def test_user_names_follow_the_user_model_rules(username, reason):
    before = written()
    with pytest.raises(CommandError) as error:
        add(username, "a-long-enough-password")
    assert reason in str(error.value) and "\n" not in str(error.value)
    assert written() == before


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("short", "too short"),
        ("1234567890123", "entirely numeric"),
        ("password1234", "too common"),
        ("carol-the-expert", "too similar to the username"),
    ],
)
def test_the_configured_password_validators_apply(settings, password, reason):
    settings.AUTH_PASSWORD_VALIDATORS = STRICT
    before = written()
    with pytest.raises(CommandError) as error:
        add("carol-the-expert", password)
    message = str(error.value)
    assert reason in message and "\n" not in message
    assert written() == before


def test_every_failed_rule_is_named_on_the_one_line(settings):
    settings.AUTH_PASSWORD_VALIDATORS = STRICT
    with pytest.raises(CommandError) as error:
        add("dave", "12345")
    message = str(error.value)
    assert "too short" in message and "entirely numeric" in message and "\n" not in message


def test_a_good_name_and_password_make_an_expert(settings, production_hasher):
    settings.AUTH_PASSWORD_VALIDATORS = STRICT
    out = add("李医生", "a-long-enough-passphrase", "--specialty", "职场心理")
    assert "expert 李医生 (expert, rater id" in out
    user = get_user_model().objects.get(username="李医生")
    assert user.check_password("a-long-enough-passphrase")
    assert user.password.startswith("pbkdf2_sha256$")


def test_other_tests_hash_passwords_fast():
    # tests/conftest.py: the product's PBKDF2 is most of a scenario builder's set-up.
    user = UserFactory(username="quick")
    assert user.password.startswith("md5$")


def test_an_existing_login_gets_a_profile_only_with_a_valid_password():
    user = UserFactory(username="erin")
    before = written()
    with pytest.raises(services.AnnotationError, match="too short"):
        services.expert_create(username="erin", password="short")
    assert written() == before
    user.refresh_from_db()
    assert not user.check_password("short")
    expert = services.expert_create(username="erin", password="a-long-enough-password")
    assert expert.user == user


def test_an_existing_expert_is_refused_before_the_password_is_checked():
    ExpertFactory(user=UserFactory(username="frank"))
    with pytest.raises(services.AnnotationError, match="frank is already an expert"):
        services.expert_create(username="frank", password="x")


def test_daily_capacity_must_be_positive():
    before = written()
    with pytest.raises(services.AnnotationError, match="daily capacity"):
        services.expert_create(username="gina", password="a-long-password", daily_capacity=0)
    assert written() == before


@pytest.mark.parametrize("minutes", [0, -5])
def test_a_lease_shorter_than_a_minute_is_refused_and_nothing_is_written(minutes):
    dataset, models = dataset_with_responses(cases=2, models=1)
    with pytest.raises(services.AnnotationError, match="at least a minute"):
        validation_services.study_create(
            name="short-lease", dataset=dataset, models=models, fraction=1.0, seed=1,
            lease_minutes=minutes,
        )  # fmt: skip
    assert not Pool.objects.exists() and not Study.objects.exists()


def test_the_study_command_says_so_in_one_line():
    dataset, models = dataset_with_responses(cases=2, models=1)
    with pytest.raises(CommandError) as error:
        call_command(
            "study", "create", "s", "--dataset", dataset.name, "--models", models[0].name,
            "--lease-minutes", "0",
        )  # fmt: skip
    assert "--lease-minutes: 0 is not a positive whole number" in str(error.value)
    assert not Pool.objects.exists()
