"""Time on task on the study dashboard: the too-fast rule on hand-made numbers, and the
section's figures, flags and empty state in both languages."""

import re

import pytest

from annotation import services
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from validation.dashboard import rules
from validation.dashboard.time_on_task import study_time_on_task


def test_too_fast_is_a_quarter_of_the_studys_median():
    seconds = [100, 120, 80, 90, 110, 95, 105, 20, 130, 85]  # median 97.5
    assert rules.too_fast_threshold(seconds) == pytest.approx(97.5 * 0.25)
    # A few fast ratings barely move the median, so they do not hide themselves.
    assert rules.too_fast_threshold([*seconds, 5, 6, 7]) == pytest.approx(90 * 0.25)


def test_too_few_measured_ratings_flag_nothing():
    assert rules.too_fast_threshold([100] * 9) is None
    assert rules.too_fast_threshold([100] * 10) == 25
    assert rules.time_figures([1, 2, 3], threshold=None).too_fast == 0


def test_an_experts_figures_median_p10_and_ratings_under_the_threshold():
    f = rules.time_figures([50, 10, 40, 30, 20, 60, 70, 80, 90, 100, 24], threshold=25.0)
    assert (f.measured, f.median, f.too_fast) == (11, 50, 3)  # 10, 20 and 24: under, not at
    assert f.p10 == pytest.approx(20.0)  # inclusive quantile of the sorted list
    single = rules.time_figures([42], threshold=None)
    assert (single.median, single.p10) == (42, 42)
    with pytest.raises(ValueError):
        rules.time_figures([], threshold=None)


def page(name: str) -> str:
    return f"/admin/dashboard/studies/{name}/"


def section_of(client, name: str, *, language: str, accept: str) -> str:
    """The time-on-task section of the study's page, as HTML."""
    client.cookies["django_language"] = language
    html = client.get(page(name), HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    found = re.search(r'<section id="time-on-task">.*?</section>', html, re.S)
    assert found, "no time-on-task section"
    return found.group(0)


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


def rows_of(section: str) -> dict[str, list[str]]:
    """Expert id → the texts of the row's cells."""
    return {
        expert: [text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for expert, row in re.findall(r'<tr data-expert="(\d+)"[^>]*>(.*?)</tr>', section, re.S)
    }


def rate(study, expert, seconds):
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment), active_seconds=seconds
    )


@pytest.fixture
def timed_study():
    """Twelve measured ratings (median 100 s) and one unmeasured: ``quick`` has two under 25 s."""
    steady = ExpertFactory(user__username="steady")
    quick = ExpertFactory(user__username="quick")
    untimed = ExpertFactory(user__username="untimed")
    study = open_study(cases=8, experts=[steady, quick, untimed], name="timed")
    for seconds in [90, 100, 110, 120, 95, 105, 100, 130]:
        rate(study, steady, seconds)
    for seconds in [10, 100, 20, 140]:
        rate(study, quick, seconds)
    rate(study, untimed, None)
    return study, steady, quick, untimed


@pytest.mark.django_db
def test_the_section_per_expert_with_the_too_fast_flag(timed_study, admin_client):
    study, steady, quick, untimed = timed_study
    figures = study_time_on_task(study=study)
    assert figures.measured == 12 and figures.median == 100 and figures.threshold == 25
    assert figures.too_fast == 2

    section = section_of(admin_client, study.name, language="en", accept="en")
    assert "<h2>Time on task</h2>" in section
    rows = rows_of(section)
    assert rows[str(steady.pk)] == ["steady", "8", "103", "94", "0"]
    assert rows[str(quick.pk)] == ["quick", "4", "60", "13", "⚠ 2"]
    assert str(untimed.pk) not in rows  # no measured rating: not listed
    assert section.count('class="has-too-fast"') == 1 and section.count('class="too-fast"') == 1
    assert "under 25 s" in text(section)


@pytest.mark.django_db
def test_the_section_in_chinese(timed_study, admin_client):
    study, *_ = timed_study
    section = text(section_of(admin_client, study.name, language="zh-hans", accept="zh-CN"))
    assert "用时" in section and "25" in section
    assert "Too fast" not in section and "measured" not in section


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "accept", "message"), [
    ("en", "en", "No measured submissions yet."), ("zh-hans", "zh-CN", "尚无"),
])  # fmt: skip
def test_the_empty_state_says_nothing_is_measured_yet(admin_client, language, accept, message):
    expert = ExpertFactory()
    study = open_study(cases=2, experts=[expert], name="untimed")
    rate(study, expert, None)  # an API client that does not measure
    section = section_of(admin_client, study.name, language=language, accept=accept)
    assert 'id="time-empty"' in section and message in text(section)
    assert 'id="time-table"' not in section


@pytest.mark.django_db
def test_below_the_minimum_the_table_shows_no_flags_and_says_why(admin_client):
    expert = ExpertFactory()
    study = open_study(cases=3, experts=[expert], name="few")
    for seconds in [100, 2, 110]:
        rate(study, expert, seconds)
    section = section_of(admin_client, study.name, language="en", accept="en")
    assert "once the study has 10 measured ratings (3 so far)" in text(section)
    assert rows_of(section)[str(expert.pk)][-1] == "—" and 'class="too-fast"' not in section
