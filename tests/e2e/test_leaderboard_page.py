"""The leaderboard page in headless Chromium, in both languages: an expert picks models for the
radar (a sixth is refused in the browser), compares them, sorts the table; screenshots."""

import pytest

from benchmark.llm.fake_server import FakeLLM
from benchmark.taxonomy import BY_CODE, SCORED_CODES
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import axe_problems, out_of_view
from tests.builders.leaderboards import judged_dataset
from tests.builders.pairwise import TRIO, answered_by, draw, judge_pairwise
from tests.e2e.conftest import login, shoot

CHARTS = """() => [...document.querySelectorAll('figure svg')].map(s => ({
  title: (s.querySelector('title') || {}).textContent || '',
  desc: (s.querySelector('desc') || {}).textContent || '',
  labelledby: s.getAttribute('aria-labelledby') || '',
  spokes: [...s.querySelectorAll('text.spoke')].map(t => t.textContent),
  legend: [...s.querySelectorAll('text.legend')].map(t => t.textContent),
  width: s.getBoundingClientRect().width}))"""


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_expert_compares_models_on_the_radar(live_server, page_in, artifacts):
    _, names = judged_dataset(models=7)
    expert = ExpertFactory()
    page = page_in
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    login(page, live_server, expert.user.username, PASSWORD, next_path="/leaderboard/")
    page.wait_for_selector("#leaderboard")
    assert page.locator("html").get_attribute("lang") == page.language
    assert page.locator("#leaderboard tbody tr").count() == 7
    shoot(page, artifacts, "leaderboard-table")

    boxes = page.locator("#compare-form input[name=models]")
    for i in range(boxes.count()):
        boxes.nth(i).uncheck()
    for i in range(5):
        boxes.nth(i).check()
    assert page.locator("#compare-limit").is_hidden()
    boxes.nth(5).click()  # a sixth: unticked again, with the reason shown
    assert not boxes.nth(5).is_checked()
    assert page.locator("#compare-limit").is_visible()
    assert page.locator("#compare-form input[name=models]:checked").count() == 5
    boxes.nth(4).uncheck()  # make room, then pick the sixth model instead of the fifth
    boxes.nth(5).check()
    assert page.locator("#compare-limit").is_hidden()
    chosen = [boxes.nth(i).get_attribute("value") for i in (0, 1, 2, 3, 5)]
    page.click("#compare-form button[type=submit]")
    page.wait_for_selector("#compared-abilities")

    charts = page.evaluate(CHARTS)
    assert len(charts) == 2  # the radar and the normal/hard bars
    radar = next(c for c in charts if c["spokes"])
    assert sorted(radar["legend"]) == sorted(chosen)
    assert radar["title"] and radar["labelledby"] and radar["width"] > 300
    name = (lambda a: a.zh) if page.language.startswith("zh") else (lambda a: a.en)
    assert radar["spokes"] == [name(BY_CODE[c]) for c in SCORED_CODES]
    for model in chosen:
        assert model in radar["desc"]
    bars = next(c for c in charts if not c["spokes"])
    assert bars["title"] and all(n in bars["desc"] for n in names)
    shoot(page, artifacts, "leaderboard-compare")

    header = page.locator("#leaderboard th[data-sort=text]")
    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    first = page.locator("#leaderboard tbody tr td.name").first.inner_text()
    assert first == sorted(names)[0]
    assert all(r.startswith(live_server.url) for r in requests), "an external request was made"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_badge_shows_the_gates_decision_and_conditions(live_server, page_in, artifacts):
    from tests.builders.studies import rated_study

    study = rated_study(name="e2e-badge")
    expert = ExpertFactory()
    page = page_in
    login(page, live_server, expert.user.username, PASSWORD,
          next_path=f"/leaderboard/?dataset={study.dataset.name}&judge=judge-a")  # fmt: skip
    page.wait_for_selector("#validation .badge")
    badge = page.locator('#validation .badge[data-judge="judge-a"]')
    assert badge.get_attribute("data-decision") in ("passed", "failed", "not_enough_data")
    assert badge.locator("ul.conditions li").count() == 3 + 3  # three conditions, three models
    for width in (1920, 1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#validation").screenshot(
            path=str(artifacts / f"leaderboard-badge-{width}-{page.language}.png")
        )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_pairwise_board_reads_at_every_width_and_passes_axe(live_server, page_in, artifacts):
    answered_by(names=list(TRIO), cases=3, texts=lambda i, n: f"{TRIO[n]}{i}", name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    with FakeLLM() as fake:
        judge_pairwise(fake, "set")
    expert = ExpertFactory()
    page = page_in
    login(page, live_server, expert.user.username, PASSWORD, next_path="/leaderboard/?dataset=pw")
    section = page.locator("section.pairwise")
    assert section.locator(".pairwise-strengths tbody tr").count() == 3
    assert axe_problems(page, "leaderboard with a pairwise board") == []
    for width in (1920, 1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        # Wide tables scroll in their box.
        assert out_of_view(page, "section.pairwise", scrolling=".scroll") == [], width
        section.screenshot(
            path=str(artifacts / f"leaderboard-pairwise-{width}-{page.language}.png")
        )
