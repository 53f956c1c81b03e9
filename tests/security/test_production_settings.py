"""Production refuses unsafe settings; every entry point (manage, gunicorn, worker) imports them.

Settings are read once per process, so each case starts a fresh interpreter.
"""

import os
import subprocess
import sys

import pytest

from config.checks import production_problems

GOOD_KEY = "k" * 50
PRODUCTION = {
    "HEARTBENCH_ENV": "production",
    "DJANGO_SECRET_KEY": GOOD_KEY,
    "DJANGO_DEBUG": "false",
    "DJANGO_ALLOWED_HOSTS": "heartbench.example.org",
}
PROBE = (
    "import django; django.setup(); from django.conf import settings as s; "
    "print(s.PRODUCTION, s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
    "s.SECURE_HSTS_SECONDS, s.STORAGES['staticfiles']['BACKEND'])"
)


def settings_probe(**overrides: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HEARTBENCH_"))}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    for name, value in {**PRODUCTION, **overrides}.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60
    )


def test_production_with_safe_settings_turns_on_the_secure_defaults():
    done = settings_probe()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "True",
        "False",
        "True",
        "True",
        "31536000",
        "whitenoise.storage.CompressedManifestStaticFilesStorage",
    ]


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"DJANGO_SECRET_KEY": None}, "DJANGO_SECRET_KEY is not set"),
        ({"DJANGO_SECRET_KEY": "short"}, "shorter than 32"),
        ({"DJANGO_DEBUG": "true"}, "DJANGO_DEBUG is on"),
        ({"DJANGO_ALLOWED_HOSTS": None}, "DJANGO_ALLOWED_HOSTS is not set"),
        ({"DJANGO_ALLOWED_HOSTS": "*"}, "not '*'"),
        ({"HEARTBENCH_ENV": "prod"}, "HEARTBENCH_ENV='prod' is not one of"),
    ],
)
def test_production_refuses_to_start(overrides, reason):
    done = settings_probe(**overrides)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("config.env.ConfigurationError: ") and reason in last, done.stderr


def test_development_default_runs_without_any_environment():
    done = settings_probe(
        HEARTBENCH_ENV=None, DJANGO_SECRET_KEY=None, DJANGO_DEBUG=None, DJANGO_ALLOWED_HOSTS=None
    )
    assert done.returncode == 0, done.stderr
    # DEBUG is off unless asked for: a local pilot's experts never see a traceback.
    assert done.stdout.split()[:5] == ["False", "False", "False", "False", "0"]


def test_production_accepts_debug_left_unset():
    done = settings_probe(DJANGO_DEBUG=None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["True", "False"]


def test_all_problems_are_named_at_once():
    problems = production_problems(
        debug=True, secret_key="", allowed_hosts=["localhost"], hosts_from_env=False
    )
    assert len(problems) == 3


def test_console_script_reports_a_refusal_in_one_line_and_exits_2():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HEARTBENCH_"))}
    env.update({**PRODUCTION, "DJANGO_SECRET_KEY": "short"})
    done = subprocess.run(
        [sys.executable, "-m", "config.cli", "check"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert (
        done.stderr.startswith("heartbench: configuration error: ")
        and "Traceback" not in done.stderr
    )
    assert "shorter than 32" in done.stderr
