"""The pairwise study form in Chromium, in both languages: the empty state before any set is
drawn, the form, a refused choice said beside its field, the draft's dashboard after a good
submit. No page scrolls sideways at 1920, 1366 or 390 px; axe-core finds nothing of any impact
and every control shows its focus. Screenshots ``new_pairwise_<state>-<width>-<language>.png``."""

import pytest
from django.contrib.auth import get_user_model

from tests.builders.browser import AXE
from tests.builders.pairwise import answered_by, draw
from tests.conftest import require
from tests.e2e.widths import readable_at_every_width
from validation import selectors

PASSWORD = "pw-admin-pairwise-1"
WORDS = {
    "refused": {"en": "The study was not created", "zh-hans": "研究未创建"},
    "sample": {
        "en": "18 pairs; 3 raters a pair make 54 choices",
        "zh-hans": "18 个配对；每个配对 3 位标注员，共 54 次选择",
    },
}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_admin_creates_a_pairwise_study_in_the_browser(live_server, page_in, artifacts):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    dataset, _ = answered_by(names=["m-a", "m-b", "m-c"], cases=6)
    get_user_model().objects.create_superuser("admin-pairwise", "p@example.org", PASSWORD)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/")
    page.fill("#id_username", "admin-pairwise")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.click("#new-pairwise-study-link")
    page.wait_for_selector("#no-pair-sets")
    assert "heartbench pairwise draw" in page.inner_text("#no-pair-sets")
    problems = readable_at_every_width(page, artifacts, "new_pairwise_empty", every_impact=True)

    draw("trio", "--dataset", dataset.name, "--models", "m-a,m-b,m-c")
    page.reload()
    assert "18" in page.inner_text("#study-pair-set")
    problems += readable_at_every_width(page, artifacts, "new_pairwise_form", every_impact=True)

    page.fill("#study-name", "bad/name")
    page.click("#study-new-pairwise button[type=submit]")
    assert WORDS["refused"][lang] in page.inner_text(".errornote")
    assert page.locator("#study-new-pairwise .error").count() == 1
    problems += readable_at_every_width(page, artifacts, "new_pairwise_refused", every_impact=True)

    page.fill("#study-name", f"pairs-{lang}")
    page.select_option("#study-pair-set", "trio")
    page.fill("#study-fraction", "1")
    page.fill("#study-seed", "3")
    page.click("#study-new-pairwise button[type=submit]")
    page.wait_for_selector("#draft")
    assert page.url.endswith(f"/admin/dashboard/studies/pairs-{lang}/")
    assert WORDS["sample"][lang] in page.inner_text("#draft")
    study = selectors.study_get(name=f"pairs-{lang}")
    assert study.pair_set.name == "trio" and study.pool.status == "draft"
    problems += readable_at_every_width(page, artifacts, "new_pairwise_draft", every_impact=True)
    assert not problems, "\n".join(problems)
