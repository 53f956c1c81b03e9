"""The senior's page on a pairwise study, in headless Chromium against the live server: three
raters split three ways on a pair (a, b and tie once each), and the senior sees the dialogue,
responses A and B in the senior's own order (side by side on a laptop, one under the other on
a phone) and none of the raters' choices, nor any model, rater or id anywhere in the page; a
decision without a reason is refused with the server's words and stores nothing; decisions
made with the mouse (a double click sending one), the keyboard and a finger are stored in the
pair's own order as "adjudicated"; a pair that never got three choices says so.
Screenshots: ``pairwise_adjudicate-<1920|1366|390>-<language>.png`` (and ``-refused``).
"""

import io

import pytest
from django.core.management import call_command

from annotation.models import Assignment, Submission
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import AXE, LONG_RESPONSE
from tests.builders.pairwise import answered_by, choose_all, draw, pairwise_study
from tests.conftest import require
from tests.e2e.conftest import login
from tests.e2e.pairs import (
    MODELS,
    OPENINGS,
    assert_pair_shown_blind,
    pressed,
    stored,
    wait_for_pair,
)
from tests.e2e.widths import readable_at_every_width
from validation.models import PairwiseGold, StudyUnit

# Every attribute of the page whose value may be a small number of its own.
NUMERIC = {"tabindex", "rows", "maxlength"}
REFUSED = {"en": "a reason is required for a decision", "zh-hans": "裁定需要填写理由"}


def split_three_ways(rater_index_choice=("a", "b", "tie")):
    """The raters' choices by rater: one each of a, b and tie, whatever the pair."""
    return lambda pair, index: rater_index_choice[index]


def split_pairs(name: str, *, models: int = 3, language: str = "en"):
    """An open pairwise study over one case answered by ``models`` models, each pair split three
    ways by three raters; a senior (named for ``language``) to decide them."""
    raters = ExpertFactory.create_batch(3)
    senior = ExpertFactory(tier="senior", user__username=f"{name}-senior-{language}")
    names = list(MODELS[:models])
    answered_by(
        names=names,
        cases=1,
        texts=lambda i, model: f"{OPENINGS[model]}{LONG_RESPONSE[: 200 + 90 * names.index(model)]}",
        name=f"{name}-data",
    )
    draw("set", "--dataset", f"{name}-data", "--models", ",".join(names))
    study = pairwise_study(name)
    choose_all(raters, split_three_ways(), study=name)
    return study, raters, senior


def held(senior) -> Assignment:
    """The pair the senior holds for adjudication now, from the database."""
    return Assignment.objects.select_related(
        "unit__pair__response_a", "unit__pair__response_b"
    ).get(expert=senior, kind=Assignment.Kind.ADJUDICATION, status=Assignment.Status.LEASED)


def assert_shown_blind(page, assignment: Assignment, raters) -> None:
    """The pair shown blind, no rater's choice on it (not even counted) and no rater named
    anywhere in the page."""
    assert_pair_shown_blind(page, assignment, root="#adjudicate", numeric=NUMERIC)
    shown = page.inner_text("#unit")
    assert not [c for c in ("A: ", "B: ", "A：", "B：", "tie: ", "平局：") if c in shown], shown
    html = page.content()
    for rater in raters:
        assert rater.user.username not in html and rater.pseudonym not in html


def assert_decided(assignment: Assignment, shown: str, reason: str) -> None:
    gold = PairwiseGold.objects.get(study_unit__unit_id=assignment.unit_id)
    assert (gold.winner, gold.provenance) == (stored(assignment, shown), "adjudicated")
    decision = Submission.objects.get(assignment=assignment)
    assert decision.kind == "adjudication" and decision.choice.reason == reason
    assert StudyUnit.objects.get(unit_id=assignment.unit_id).state == StudyUnit.State.ADJUDICATED


def assert_refused_blank(page, assignment: Assignment, language: str) -> None:
    """Submit with a choice and no reason: the server's words, in the page's language, under
    the reason box; nothing stored, the pair still on screen."""
    page.wait_for_selector("#reason-error", state="visible")
    assert page.inner_text("#reason-error") == REFUSED[language]
    assert page.get_attribute("#reason", "aria-invalid") == "true"
    assert not PairwiseGold.objects.filter(study_unit__unit_id=assignment.unit_id).exists()
    assert not Submission.objects.filter(assignment=assignment).exists()
    assert page.locator("#response-a").is_visible()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_senior_decides_split_pairs_by_mouse_keyboard_and_finger(live_server, chromium):
    study, raters, senior = split_pairs("pair-adj")
    assert StudyUnit.objects.filter(study=study, state=StudyUnit.State.AWAITING).count() == 3
    desk = chromium.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    page = desk.new_page()
    login(page, live_server, senior.user.username, PASSWORD, next_path=f"/adjudicate/{study.name}/")

    # The mouse: a blank reason is refused; then B with a reason, a double click sends it once.
    token = wait_for_pair(page)
    unit = held(senior)
    assert_shown_blind(page, unit, raters)
    assert "最近工作压力很大" in page.inner_text("#dialogue")
    assert "split three ways" in page.inner_text("#scope")
    a, b = (page.locator(f".pair-{side}").bounding_box() for side in "ab")
    assert a["y"] == b["y"] and a["x"] + a["width"] <= b["x"], (a, b)  # side by side
    for choice in ("a", "tie", "b"):
        box = page.locator(f"[data-choice={choice}]").bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (choice, box)
    assert pressed(page) == []
    page.click("#submit")  # no choice yet: says so, sends nothing
    assert "Choose A, B or a tie first" in page.inner_text("#status")
    page.click("[data-choice=a]")
    page.click("#submit")
    assert_refused_blank(page, unit, "en")
    page.click("[data-choice=b]")
    assert pressed(page) == ["b"]
    page.click("#reason")
    page.keyboard.type("B 更共情")
    assert page.locator("#reason-error").is_hidden()  # typing clears the refusal
    page.dblclick("#submit")
    token = wait_for_pair(page, after=token)
    assert_decided(unit, "b", "B 更共情")
    assert Submission.objects.filter(expert=senior).count() == 1
    assert "recorded" in page.inner_text("#confirmation")
    assert pressed(page) == [] and page.input_value("#reason") == ""

    # The keyboard: every choice key, then A; n goes to the reason, Esc leaves it, Enter sends.
    unit = held(senior)
    assert_shown_blind(page, unit, raters)
    for key, choice in (
        ("t", "tie"),
        ("3", "b"),
        ("a", "a"),
        ("=", "tie"),
        ("B", "b"),
        ("2", "tie"),
    ):
        page.keyboard.press(key)
        assert pressed(page) == [choice], key
    page.keyboard.press("1")
    page.keyboard.press("Enter")  # no reason yet: refused, nothing stored
    assert_refused_blank(page, unit, "en")
    page.keyboard.press("Escape")
    page.keyboard.press("n")
    page.keyboard.type("A 接住了情绪，也没有说教")
    page.keyboard.press("Escape")
    assert pressed(page) == ["a"]  # the letters typed in the reason chose nothing
    page.keyboard.press("Enter")
    wait_for_pair(page, after=token)
    assert_decided(unit, "a", "A 接住了情绪，也没有说教")
    desk.close()

    # A finger on a phone, in Chinese: the pair one under the other, taps on Tie and Submit.
    phone = chromium.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="zh-CN"
    )
    page = phone.new_page()
    login(page, live_server, senior.user.username, PASSWORD, next_path=f"/adjudicate/{study.name}/")
    wait_for_pair(page)
    unit = held(senior)
    assert_shown_blind(page, unit, raters)
    a, b = (page.locator(f".pair-{side}").bounding_box() for side in "ab")
    assert b["y"] >= a["y"] + a["height"], (a, b)  # stacked
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.tap("[data-choice=tie]")
    assert pressed(page) == ["tie"]
    page.tap("#submit")
    assert_refused_blank(page, unit, "zh-hans")
    page.tap("#reason")
    page.keyboard.type("两条都接住了情绪，难分高下")
    page.tap("#submit")
    page.wait_for_selector("#empty", state="visible")  # the three split pairs are decided
    assert_decided(unit, "tie", "两条都接住了情绪，难分高下")

    gold = PairwiseGold.objects.filter(study_unit__study=study)
    assert gold.count() == 3 and {g.provenance for g in gold} == {"adjudicated"}
    assert Submission.objects.filter(expert=senior).count() == 3


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_pair_that_never_got_three_choices_says_so(live_server, chromium):
    raters = ExpertFactory.create_batch(3)
    senior = ExpertFactory(tier="senior", user__username="pair-whole-senior")
    answered_by(
        names=list(MODELS[:2]),
        cases=1,
        texts=lambda i, model: OPENINGS[model],
        name="pair-whole-data",
    )
    draw("set", "--dataset", "pair-whole-data", "--models", ",".join(MODELS[:2]))
    study = pairwise_study("pair-whole")
    choose_all(raters[:2], split_three_ways(), study=study.name)
    call_command("study", "close", study.name, "--partial", "senior", "--unrated", "drop",
                 "--yes", stdout=io.StringIO())  # fmt: skip
    page = chromium.new_page(viewport={"width": 1366, "height": 768}, locale="en-US")
    login(page, live_server, senior.user.username, PASSWORD, next_path=f"/adjudicate/{study.name}/")
    wait_for_pair(page)
    assert "never got three choices" in page.inner_text("#scope")
    unit = held(senior)
    assert_shown_blind(page, unit, raters)
    page.keyboard.press("b")
    page.keyboard.press("n")
    page.keyboard.type("B 更具体")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    page.wait_for_selector("#empty", state="visible")
    assert_decided(unit, "b", "B 更具体")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_pairwise_adjudication_page_reads_well_at_every_width(live_server, page_in, artifacts):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    language = page_in.language
    study, _, senior = split_pairs(f"pair-looks-{language}", models=2, language=language)
    page = page_in
    login(page, live_server, senior.user.username, PASSWORD, next_path=f"/adjudicate/{study.name}/")
    wait_for_pair(page)
    page.keyboard.press("a")  # a pressed choice too: its colours
    problems = readable_at_every_width(page, artifacts, "pairwise_adjudicate")
    # The refusal of a blank reason: its colours and place, on a laptop and a phone.
    page.keyboard.press("Enter")
    page.wait_for_selector("#reason-error", state="visible")
    problems += readable_at_every_width(page, artifacts, "pairwise_adjudicate-refused", presses=0)
    assert not problems, "\n".join(problems)
