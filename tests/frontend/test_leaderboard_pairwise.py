"""The leaderboard page's pairwise board: per judged pairwise set, the judge's Bradley–Terry
ranking and the win-rate matrix, the same figures as `heartbench leaderboard --pairwise`;
hidden, with the rest of the dataset's board, from the raters of a study still open on it."""

import io
import json
import re

import pytest
from django.core.management import call_command

from benchmark.llm.fake_server import FakeLLM
from tests.builders.accounts import ExpertFactory
from tests.builders.pairwise import TRIO, answered_by, draw, judge_pairwise
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def section(page: str) -> str:
    match = re.search(r'<section class="card pairwise".*?</section>', page, re.S)
    return match.group(0) if match else ""


def cells(html: str, table: str) -> list[list[str]]:
    body = re.search(rf'<table class="board {table}">.*?<tbody>(.*?)</tbody>', html, re.S)
    rows = re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)
    return [
        [
            " ".join(re.sub(r"<[^>]+>", " ", c).split())
            for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, re.S)
        ]
        for r in rows
    ]


def test_the_page_shows_the_commands_ranking_and_the_win_rates(client):
    answered_by(names=list(TRIO), cases=4, texts=lambda i, n: f"{TRIO[n]}{i}", name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    client.force_login(ExpertFactory().user)
    page = client.get("/leaderboard/?dataset=pw").content.decode()
    assert section(page) == ""  # no judge has chosen yet: no section
    with FakeLLM() as fake:
        judge_pairwise(fake, "set")
    out = io.StringIO()
    call_command("leaderboard", "--pairwise", "set", "--format", "json", stdout=out)
    board = json.loads(out.getvalue())
    for language, usable in (("en", "12 of 12 pairs usable"), ("zh-hans", "12 对中有 12 对可用")):
        page = client.get("/leaderboard/?dataset=pw", HTTP_ACCEPT_LANGUAGE=language)
        html = section(page.content.decode())
        assert usable in html, language
    strengths = cells(html, "pairwise-strengths")
    assert [row[1] for row in strengths] == board["models"] == ["ann", "cat", "bob"]
    for row in strengths:
        assert row[2] == f"{board['bradley_terry']['strength'][row[1]]:.3f}"
        assert row[3] == "—"  # every case chose alike: no interval
    assert [row[4] for row in strengths] == ["75 %", "75 %", "0 %"]  # a tie is half a win
    matrix = cells(html, "pairwise-matrix")
    assert matrix[0] == ["ann", "·", "50 % (4)", "100 % (4)"]
    assert matrix[2] == ["bob", "0 % (4)", "0 % (4)", "·"]
    assert "half a win each way was added" in section(
        client.get("/leaderboard/?dataset=pw").content.decode()
    )


def test_a_rater_of_an_open_study_on_the_dataset_sees_no_pairwise_board(client):
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert], models=2, judge=False, name="blind-pairs")
    models = list(study.models_under_test.values_list("name", flat=True))
    draw("set", "--dataset", study.dataset.name, "--models", ",".join(models))
    with FakeLLM() as fake:
        judge_pairwise(fake, "set")
    url = f"/leaderboard/?dataset={study.dataset.name}"
    client.force_login(expert.user)
    page = client.get(url).content.decode()
    assert 'id="blind-dataset"' in page and section(page) == ""
    assert not [name for name in [*models, "fake-judge"] if name in page.replace(url, "")]
    client.force_login(ExpertFactory().user)
    assert all(name in section(client.get(url).content.decode()) for name in models)
