"""The leaderboard page compares models under one judge, names it, shows each row's judge and
coverage, and leaves rows under the coverage threshold unranked below the ranked ones; in
English and in Chinese."""

import re

import pytest

from tests.builders.accounts import ExpertFactory
from tests.builders.leaderboards import two_judges_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def expert_client(client):
    client.force_login(ExpertFactory().user)
    return client


@pytest.fixture
def two_judges(db):
    return two_judges_dataset()


def table(page: str) -> list[tuple[str, str, str, str, str]]:
    """(row class, rank, model, coverage, judge) per row of the scores table."""
    body = re.search(r'<table id="leaderboard".*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    return re.findall(
        r'<tr(?: class="(unranked)")?>\s*<td[^>]*>([^<]*)</td>\s*<td class="name"[^>]*>([^<]*)</td>'
        r'.*?<td class="coverage"[^>]*>([^<]*)</td>\s*<td class="judge">([^<]*)</td>',
        body,
        re.S,
    )


def test_the_page_ranks_one_judges_models_and_says_which_judge(expert_client, two_judges):
    page = expert_client.get(f"/leaderboard/?dataset={two_judges.name}").content.decode()
    assert table(page) == [
        ("", "1", "m2", "10/10 (100%)", "beta"),
        ("", "2", "m1", "10/10 (100%)", "beta"),
        ("unranked", "—", "m3", "8/10 (80%)", "beta"),
    ]
    assert '<option value="beta" selected>' in page
    assert "judged by beta, the judge covering the most models" in page
    assert "Unranked (—): coverage below 90% of the 10 cases" in page
    not_shown = re.search(r'<div class="muted" id="not-shown">(.*?)</div>', page, re.S).group(1)
    assert "m4" in not_shown and "judge=alpha" in not_shown


def test_a_chosen_judge_and_a_lower_threshold(expert_client, two_judges):
    url = f"/leaderboard/?dataset={two_judges.name}&judge=alpha&min_coverage=0"
    page = expert_client.get(url).content.decode()
    assert [(r[1], r[2], r[4]) for r in table(page)] == [("1", "m4", "alpha"), ("2", "m1", "alpha")]
    assert "judged by alpha, the judge chosen above" in page
    assert 'name="min_coverage" value="0"' in page  # carried by the compare form
    assert expert_client.get("/leaderboard/?min_coverage=2").status_code == 404
    assert expert_client.get("/leaderboard/?min_coverage=x").status_code == 404


def test_the_new_words_are_chinese_on_the_chinese_page(expert_client, two_judges):
    page = expert_client.get(
        f"/leaderboard/?dataset={two_judges.name}", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    for english in ("judged by", "Unranked", "Not on this board", "no rank"):
        assert english not in page
    assert "未排名" in page and "评判模型 beta" in page
