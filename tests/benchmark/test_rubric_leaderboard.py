"""The leaderboard notes verdicts made on an older version of their criterion (JSON, table,
HTML file)."""

import csv
import io
import json

import pytest
from django.core.management import call_command

from benchmark.leaderboard_html import render_html
from benchmark.leaderboard_render import render_csv, render_table
from benchmark.models import Verdict
from benchmark.selectors.leaderboard import leaderboard_compute
from benchmark.services.rubric import rubric_item_edit
from tests.builders.accounts import UserFactory
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)

pytestmark = pytest.mark.django_db
RUBRIC = [("warmth", 3), ("curiosity", 6), ("catastrophic", None)]


def _judged(run, case, *, version_of=None):
    response = ResponseFactory(model=run.model, case=case)
    for item in case.rubric.order_by("position"):
        version = (version_of or {}).get(item.pk, item.version)
        Verdict.objects.create(run=run, response=response, rubric_item=item, state="met",
                               rubric_version=version)  # fmt: skip


def test_verdicts_on_an_older_version_are_counted_per_model(capsys):
    dataset = DatasetFactory(name="rc-board")
    cases = [case_with_rubric(dataset=dataset, rubric=RUBRIC) for _ in range(2)]
    judge = JudgeFactory(name="j")
    old = JudgeRunFactory(judge=judge, dataset=dataset, model=ModelUnderTestFactory(name="old"))
    for case in cases:
        _judged(old, case)
    editor = UserFactory()
    first, second = (case.rubric.get(position=0) for case in cases)
    rubric_item_edit(item=first, text="edited one", author=editor, reason="r")
    rubric_item_edit(item=second, points=5, author=editor, reason="r")
    rubric_item_edit(item=second, points=4, author=editor, reason="r")
    # A model judged after the edits: its verdicts are on the current versions.
    fresh = JudgeRunFactory(judge=judge, dataset=dataset, model=ModelUnderTestFactory(name="new"))
    for case in cases:
        _judged(fresh, case)
    # And one judged in between: on v2 of `second`, now v3.
    between = JudgeRunFactory(judge=judge, dataset=dataset, model=ModelUnderTestFactory(name="mid"))
    for case in cases:
        _judged(between, case, version_of={second.pk: 2})

    board = leaderboard_compute(dataset=dataset).as_dict()
    changes = {m["model"]: m["rubric_changes"] for m in board["models"]}
    assert changes == {
        "old": {"older_version_verdicts": 2, "criteria": 2},
        "new": {"older_version_verdicts": 0, "criteria": 0},
        "mid": {"older_version_verdicts": 1, "criteria": 1},
    }
    json.dumps(board)  # stays serialisable
    html = render_html(board)
    assert "Rubric changed" in html and "old: 2 verdicts on 2 criteria" in html
    note = html.split('<div class="rubric-changes">')[1].split("</div>")[0]
    assert "mid: 1 verdicts on 1 criteria" in note and "new:" not in note
    table = render_table(board)
    assert "rubric changed: old has 2 verdicts" in table and "rubric changed: new" not in table
    rows = {r["model"]: r for r in csv.DictReader(io.StringIO(render_csv(board)))}
    stale = {m: (r["older_version_verdicts"], r["older_version_criteria"]) for m, r in rows.items()}
    assert stale == {"old": ("2", "2"), "new": ("0", "0"), "mid": ("1", "1")}

    call_command("leaderboard", "--dataset", "rc-board", "--format", "json")
    printed = json.loads(capsys.readouterr().out)
    counted = {m["model"]: m["rubric_changes"]["older_version_verdicts"] for m in printed["models"]}
    assert counted == {"old": 2, "new": 0, "mid": 1}


def test_untouched_rubric_has_no_note():
    dataset = DatasetFactory(name="rc-clean")
    case = case_with_rubric(dataset=dataset, rubric=RUBRIC)
    _judged(JudgeRunFactory(dataset=dataset, model=ModelUnderTestFactory(name="m")), case)
    board = leaderboard_compute(dataset=dataset).as_dict()
    assert board["models"][0]["rubric_changes"] == {"older_version_verdicts": 0, "criteria": 0}
    assert "Rubric changed" not in render_html(board)
    assert "rubric changed" not in render_table(board)
