"""A new expert's first day, in headless Chromium and in both interface languages.

The admin creates the expert and gates the study with a calibration set (through the services
the admin's tools call). The expert logs in, is sent through the calibration set in the normal
workbench — its units look exactly like study units — and either passes at the threshold,
sees the result on the profile and gets real study work, rated with the keyboard, or falls
below it, is told so and gets no study work. Every step is checked in the database, not only
on the page, and photographed as ``journey-<step>-<language>.png``.
"""

import pytest
from django.contrib.auth import get_user_model

from annotation import selectors, services
from annotation.models import Assignment, CalibrationAttempt, Label, ReferenceLabel, Submission
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import wait_for_unit
from tests.builders.calibration import calibration_set
from tests.builders.studies import open_study
from tests.e2e.conftest import login, shoot

STUDY = "journey"
THRESHOLD = 0.75  # 2 units × 4 criteria: 6 right is exactly the pass mark, 5 is below it
# Words that would give a calibration unit away, in either language.
TELLTALE = ("calibration", "reference", "校准", "参考", "标定", "定标")
# Every element the expert can see in the workbench, by tag, id and classes (the criterion
# being pointed at moves, so "current" is left out): the page's shape, not its words. The
# confirmation of the previous submit (shown after any kind of unit alike) is left out too.
SHAPE = """() => Array.from(document.querySelectorAll('body *'))
  .filter((e) => e.getClientRects().length > 0 && !e.closest('#confirmation'))
  .map((e) => [e.tagName, e.id, Array.from(e.classList).filter((c) => c !== 'current').sort()
    .join('.')].join('|'))"""


def gated_study(*, language: str):
    """What the admin sets up: a new expert, a study, and a calibration the study requires."""
    admin = get_user_model().objects.create_superuser(f"admin-{language}", "", PASSWORD)
    senior = ExpertFactory(tier="senior")
    expert = services.expert_create(
        username=f"new-{language}", password=PASSWORD, specialties=["职场心理"], actor=admin
    )
    study = open_study(cases=2, experts=[expert], name=STUDY, show_ability=True)
    calibration = calibration_set(
        senior=senior, units=2, threshold=THRESHOLD, name=f"{STUDY}-calibration"
    )
    services.pool_set_quality_policy(pool=study.pool, calibration=calibration, actor=admin)
    return expert, study, calibration


def leased(expert) -> Assignment:
    """The unit the expert holds right now, from the database."""
    return Assignment.objects.select_related("unit", "pool").get(
        expert=expert, status=Assignment.Status.LEASED
    )


def rate(page, hits: list[bool]) -> None:
    """Mark the criteria top to bottom with 1/0 and submit with Enter, keyboard only."""
    for hit in hits:
        page.keyboard.press("1" if hit else "0")
    page.wait_for_function("() => !document.getElementById('submit').disabled")
    page.keyboard.press("Enter")


def answers_on_screen(page, assignment: Assignment, truth: dict[int, bool], *, wrong: int):
    """The hits to type for the criteria in the order shown, ``wrong`` of them flipped."""
    tokens = selectors.criterion_tokens(assignment=assignment)
    shown = page.eval_on_selector_all("#criteria li", "(items) => items.map((li) => li.dataset.id)")
    return [truth[tokens[token]] != (index < wrong) for index, token in enumerate(shown)]


def figures(banner) -> tuple:
    """What the calibration result banner reports: passed, criteria agreed, criteria."""
    return tuple(banner.get_attribute(f"data-{key}") for key in ("passed", "agreed", "criteria"))


def references(assignment: Assignment) -> dict[int, bool]:
    return dict(
        ReferenceLabel.objects.filter(unit=assignment.unit).values_list("rubric_item_id", "hit")
    )


def assert_looks_like_study_work(page) -> set[str]:
    text = page.inner_text("body").lower()
    assert not [word for word in TELLTALE if word in text], "the page gives calibration away"
    assert page.locator("#criteria li .ability").count() > 0  # the study shows abilities
    return set(page.evaluate(SHAPE))


def sit_calibration(page, base_url, expert, calibration, *, wrong: list[int], shots) -> tuple:
    """Rate every calibration unit as it comes, ``wrong[i]`` criteria off on the i-th unit."""
    shapes, token = [], ""
    for index, flips in enumerate(wrong):
        token = wait_for_unit(page, after=token)
        assignment = leased(expert)
        # The database says this is calibration work; the page must not.
        assert assignment.kind == Assignment.Kind.CALIBRATION
        assert assignment.pool_id == calibration.pool_id and assignment.unit.token == token
        shapes.append(assert_looks_like_study_work(page))
        # Nor does what the browser is sent about it.
        sent = page.request.get(f"{base_url}/api/v1/assignments/{assignment.public_id}/").text()
        assert not [word for word in TELLTALE if word in sent.lower()], sent
        shoot(page, shots, f"journey-calibration-{index + 1}")
        rate(page, answers_on_screen(page, assignment, references(assignment), wrong=flips))
    return shapes, token


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_new_expert_passes_calibration_at_the_threshold_then_rates_study_work(
    live_server, page_in, artifacts, language
):
    expert, study, calibration = gated_study(language=language)
    page = page_in
    login(page, live_server, expert.user.username, PASSWORD, next_path=f"/rate/{STUDY}/")
    assert f"/rate/{STUDY}/" in page.url

    # 6 of 8 criteria as the senior expert set them: exactly the pass mark.
    calibration_shapes, last = sit_calibration(
        page, live_server.url, expert, calibration, wrong=[2, 0], shots=artifacts
    )
    token = wait_for_unit(page, after=last)
    result = page.locator("#calibration-result")
    assert result.is_visible() and result.get_attribute("data-passed") == "true"
    assert (result.get_attribute("data-agreed"), result.get_attribute("data-criteria")) == (
        "6",
        "8",
    )
    assert "75 %" in result.inner_text()
    shoot(page, artifacts, "journey-passed")
    attempt = CalibrationAttempt.objects.get(expert=expert)
    assert (attempt.agreed, attempt.criteria, attempt.passed) == (6, 8, True)
    assert attempt.agreement == pytest.approx(THRESHOLD)

    # The result and its history on the profile.
    page.goto(f"{live_server.url}/profile/")
    row = page.locator("#calibration-history tbody tr")
    assert row.count() == 1
    assert "6/8" in row.inner_text() and "75" in row.inner_text()
    assert calibration.pool.name in row.inner_text()
    shoot(page, artifacts, "journey-profile")

    # Real study work: the unit now held is a rating slot of the study, says the database.
    page.goto(f"{live_server.url}/rate/{STUDY}/")
    assert wait_for_unit(page) == token
    work = leased(expert)
    assert work.kind == Assignment.Kind.RATING and work.pool_id == study.pool_id
    assert work.unit.pool_id == study.pool_id and work.unit.token == token
    assert work.slot is not None
    assert not page.locator("#calibration-result").is_visible()
    # Calibration units looked exactly like this study unit.
    study_shape = assert_looks_like_study_work(page)
    for shape in calibration_shapes:
        assert shape == study_shape
    shoot(page, artifacts, "journey-study-unit")

    count = page.locator("#criteria li").count()
    rate(page, [index % 3 == 0 for index in range(count)])
    page.wait_for_function(
        "(t) => document.getElementById('unit-token').textContent !== t", arg=token
    )
    shoot(page, artifacts, "journey-study-submitted")
    submission = Submission.objects.get(expert=expert, kind=Assignment.Kind.RATING)
    assert submission.unit_id == work.unit_id and submission.assignment_id == work.pk
    labels = Label.objects.filter(submission=submission)
    assert labels.count() == count
    assert labels.filter(hit=True).count() == len(range(0, count, 3))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_expert_below_the_threshold_is_told_so_and_gets_no_study_work(
    live_server, page_in, artifacts, language
):
    expert, study, calibration = gated_study(language=language)
    page = page_in
    login(page, live_server, expert.user.username, PASSWORD, next_path=f"/rate/{STUDY}/")

    # 5 of 8: one criterion short of the pass mark.
    _shapes, last = sit_calibration(
        page, live_server.url, expert, calibration, wrong=[2, 1], shots=artifacts
    )
    result = page.locator("#calibration-result")
    result.wait_for(state="visible")
    assert result.get_attribute("data-passed") == "false"
    assert (result.get_attribute("data-agreed"), result.get_attribute("data-criteria")) == (
        "5",
        "8",
    )
    assert "62.5 %" in result.inner_text() and "75 %" in result.inner_text()
    shoot(page, artifacts, "journey-not-passed")
    attempt = CalibrationAttempt.objects.get(expert=expert, finished_at__isnull=False)
    assert (attempt.agreed, attempt.criteria, attempt.passed) == (5, 8, False)

    # What comes next is a new sitting, never the study's units.
    wait_for_unit(page, after=last)
    again = leased(expert)
    assert again.kind == Assignment.Kind.CALIBRATION and again.attempt_id != attempt.pk
    assert (attempt.reason, again.attempt.reason) == ("first", "retake")
    assert not Assignment.objects.filter(expert=expert, pool=study.pool).exists()
    assert not Submission.objects.filter(expert=expert, kind=Assignment.Kind.RATING).exists()

    page.goto(f"{live_server.url}/profile/")
    finished = page.locator("#calibration-history tbody tr", has_text="5/8")
    assert finished.count() == 1 and "75" in finished.inner_text()  # the pass mark
    shoot(page, artifacts, "journey-profile-not-passed")
