"""`heartbench construct-tasks`: opens a kind of work with its settings, assigns authors
round-robin, and refuses bad input with a clear message and nothing written."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import ConstructionWork
from benchmark.models import DraftCase
from tests.builders.construction import project_build

pytestmark = pytest.mark.django_db


def _run(*args):
    out = io.StringIO()
    call_command("construct_tasks", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def built():
    return project_build(experts=2, seniors=0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--project", "nope", "--kind", "review"], "no construction project named 'nope'"),
        (["--project", "pilot"], "say what to do"),
        (["--project", "pilot", "--kind", "review", "--panel-size", "3"], "for --kind panel"),
        (["--project", "pilot", "--kind", "panel", "--raters", "3"], "--panel-size"),
        (["--project", "pilot", "--assign-authors", "pilot-expert0,ghost"], "ghost"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(built, args, message):
    DraftCase.objects.update(author=None)
    with pytest.raises(CommandError, match=message):
        _run(*args)
    assert not ConstructionWork.objects.exists()
    assert not DraftCase.objects.filter(author__isnull=False).exists()


@pytest.mark.parametrize("value", ["0", "-2", "three"])
def test_a_count_must_be_a_positive_integer(built, value):
    with pytest.raises(CommandError, match="--raters"):
        _run("--project", "pilot", "--kind", "difficulty", "--raters", value)


def test_it_opens_each_kind_with_defaults_and_settings(built):
    assert "difficulty open, 3 per draft" in _run("--project", "pilot", "--kind", "difficulty")
    assert "review open, 2 per draft" in _run("--project", "pilot", "--kind", "review")
    assert "panel open, 4 per draft, unanimous" in _run("--project", "pilot", "--kind", "panel")
    out = _run(
        "--project", "pilot", "--kind", "panel", "--panel-size", "5", "--panel-rule", "majority"
    )
    assert "panel open, 5 per draft, majority" in out
    assert list(ConstructionWork.objects.values_list("kind", "raters", "panel_rule")) == [
        ("criterion_review", 2, "unanimous"),
        ("difficulty", 3, "unanimous"),
        ("panel", 5, "majority"),
    ]


def test_it_assigns_authors_round_robin(built):
    DraftCase.objects.update(author=None)
    out = _run("--project", "pilot", "--assign-authors", "pilot-expert0,pilot-expert1")
    assert "3 drafts got an author" in out
    authors = DraftCase.objects.order_by("position").values_list("author__username", flat=True)
    assert list(authors) == ["pilot-expert0", "pilot-expert1", "pilot-expert0"]
