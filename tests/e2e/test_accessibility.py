"""axe-core on the expert's pages, in both interface languages (issue 15, accessibility).

The login page, the workbench with a unit and with nothing left, the senior queue and a unit in
it must have no serious or critical violation; every control reached with Tab must show where
the focus is. axe-core is a test dependency from npm (package.json; `make test` runs `npm ci`).
"""

import pytest

from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.adjudication import split_study
from tests.builders.browser import AXE, axe_problems, focus_problems
from tests.conftest import require
from tests.e2e.conftest import LOCALES, login
from validation import services as study_services


@pytest.fixture(scope="module")
def browser(chromium):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    return chromium


@pytest.mark.browser
@pytest.mark.parametrize("language", list(LOCALES))
@pytest.mark.django_db(transaction=True)
def test_the_expert_pages_pass_axe(live_server, browser, language):
    senior = ExpertFactory(tier="senior", user__username=f"a11y-{language}")
    split = split_study(splits=["*"], senior=senior, name="a11y-split")[0]
    # The same case and response again, in a study where the senior rates it.
    rate = study_services.study_create(
        name="a11y-rate", dataset=split.dataset, models=list(split.models_under_test.all()),
        fraction=1.0, seed=1, experts=[senior],
    )  # fmt: skip
    study_services.study_open(study=rate)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=LOCALES[language])
    page = context.new_page()
    page.language = language
    problems = []

    page.goto(f"{live_server.url}/login/")
    assert page.get_attribute("html", "lang") == language
    problems += axe_problems(page, "login") + focus_problems(page, "login", presses=8)

    login(page, live_server, senior.user.username, PASSWORD, next_path="/rate/a11y-rate/")
    page.wait_for_selector("#criteria li")
    page.keyboard.press("1")  # a marked criterion too: the pressed buttons' colours
    problems += axe_problems(page, "workbench")
    problems += focus_problems(page, "workbench")
    page.keyboard.press("?")
    page.wait_for_selector("#help[open]")
    problems += axe_problems(page, "workbench-help")
    page.keyboard.press("Escape")

    # The three raters took the split study's only unit: nothing is left for the senior.
    page.goto(f"{live_server.url}/rate/{split.name}/")
    assert page.locator("#empty .state-message[data-state=nothing_left]").is_visible()
    problems += axe_problems(page, "nothing-left")
    problems += focus_problems(page, "nothing-left", presses=20)

    page.goto(f"{live_server.url}/adjudicate/")
    assert split.name in page.inner_text("ul.studies")
    problems += axe_problems(page, "senior-queue")
    problems += focus_problems(page, "senior-queue", presses=20)

    page.goto(f"{live_server.url}/adjudicate/{split.name}/")
    page.wait_for_selector("#criteria li")
    page.keyboard.press("1")
    page.keyboard.press("Escape")
    problems += axe_problems(page, "senior-unit")
    problems += focus_problems(page, "senior-unit")
    context.close()

    assert not problems, "\n".join(problems)
