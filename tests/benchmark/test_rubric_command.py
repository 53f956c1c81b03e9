"""`heartbench rubric edit` and `heartbench rubric history`."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from benchmark.models import RubricItem, RubricItemVersion
from tests.builders.accounts import UserFactory
from tests.builders.datasets import DatasetFactory, case_with_rubric

pytestmark = pytest.mark.django_db


def _run(*args) -> str:
    out = io.StringIO()
    call_command("rubric", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def case():
    dataset = DatasetFactory(name="hb", version=1)
    case = case_with_rubric(dataset=dataset, question_id="c8nGp1")
    item = case.rubric.get(position=0)
    item.text = "回应中使用温暖的语气。"
    item.save()
    UserFactory(username="curator")
    return case


def test_edit_then_history(case):
    out = _run(
        "edit", "--dataset", "hb@1", "--case", "c8nGp1", "--position", "0",
        "--text", "回应中使用温和的语气。", "--points", "4",
        "--reason", "更准确", "--author", "curator",
    )  # fmt: skip
    assert "version 2" in out and "+4" in out
    item = RubricItem.objects.get(case=case, position=0)
    assert (item.text, item.points, item.version) == ("回应中使用温和的语气。", 4, 2)

    text = _run("history", "--dataset", "hb", "--case", "c8nGp1", "--position", "0")
    assert "v1" in text and "imported" in text
    assert "v2" in text and "curator" in text and "更准确" in text
    assert "温[-暖-]{+和+}" in text and "points +3 → +4" in text

    data = json.loads(_run("history", "--dataset", "hb", "--case", "c8nGp1", "--format", "json"))
    assert [entry["position"] for entry in data] == [0, 1, 2, 3]
    first = data[0]
    assert first["version"] == 2 and [v["number"] for v in first["versions"]] == [1, 2]
    assert first["versions"][1]["diff"]["points_before"] == 3
    assert [v["number"] for v in data[1]["versions"]] == [1]


def test_catastrophic_points_set_to_null_from_the_command_line(case):
    item = RubricItem.objects.get(case=case, ability="catastrophic")
    _run(
        "edit", "--dataset", "hb", "--case", "c8nGp1", "--position", str(item.position),
        "--points", "-4", "--reason", "r", "--author", "curator",
    )  # fmt: skip
    _run(
        "edit", "--dataset", "hb", "--case", "c8nGp1", "--position", str(item.position),
        "--points", "null", "--reason", "r2", "--author", "curator",
    )  # fmt: skip
    item.refresh_from_db()
    assert (item.points, item.version) == (None, 3)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--position", "0", "--text", "x", "--reason", "r", "--author", "nobody"], "no user"),
        (["--position", "9", "--text", "x", "--reason", "r", "--author", "curator"], "no crit"),
        (["--position", "0", "--reason", "r", "--author", "curator"], "--text and/or"),
        (["--position", "0", "--points", "x", "--reason", "r", "--author", "curator"], "whole"),
        (["--position", "0", "--points", "0", "--reason", "r", "--author", "curator"], "zero"),
        (["--position", "0", "--text", "x", "--reason", " ", "--author", "curator"], "reason"),
    ],
)
def test_refused_edits_exit_with_the_reason(case, args, message):
    with pytest.raises(CommandError, match=message):
        _run("edit", "--dataset", "hb", "--case", "c8nGp1", *args)
    assert not RubricItemVersion.objects.exists()


def test_unknown_dataset_is_an_error(case):
    with pytest.raises(CommandError, match="no dataset"):
        _run("history", "--dataset", "nope@1", "--case", "c8nGp1")
