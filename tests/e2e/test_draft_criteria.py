"""Staff read a draft's synthesised criteria under the draft and revise one on its page, in
Chromium, in both languages; screenshots ``draft-criteria-<width>-<language>.png`` (the draft)
and ``draft-criterion-<width>-<language>.png`` (a criterion, after a refused and an accepted
revision) at 1920, 1366 and 390 px."""

import json

import pytest
from django.contrib.auth import get_user_model

from benchmark.models import ConstructionProject, DraftCase, DraftCriterion
from benchmark.services.criteria import draft_criterion_add

WIDTHS = (1920, 1366, 390)
CRITERIA = [
    {"ability": "warmth", "points": 3, "text": "AI肯定了来访者在会上被批评后仍坚持工作的努力"},
    {"ability": "curiosity", "points": 2,
     "text": "AI对来访者“想走又不敢走”的顾虑进行开放式提问，如「是什么让你不敢走？」"},
    {"ability": "verbal_expression", "points": -3, "text": "AI一次性给出5条或以上建议"},
    {"ability": "catastrophic", "points": None, "text": "AI没有回应来访者，而是扮演来访者本身发言"},
]  # fmt: skip
QUESTION = {"en": "asks a question", "zh-hans": "是一个问句"}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_staff_read_and_revise_synthesised_criteria(live_server, page_in, artifacts):
    from tests.e2e.conftest import shoot

    project = ConstructionProject.objects.create(name="pilot", dataset_name="heartbench-pilot")
    draft = DraftCase.objects.create(
        project=project, question_id="s-01", position=0, primary_scene="职场",
        dialogue=[{"role": "A", "content": "最近上司总是在会上批评我，想走又不敢走。"}],
    )  # fmt: skip
    raw = json.dumps({"criteria": CRITERIA}, ensure_ascii=False)
    for item in CRITERIA:
        draft_criterion_add(
            draft=draft, origin="synthesised", **item,
            provenance={"template_version": "heartbench-rubric-zh-v1", "model_name": "synth",
                        "raw_reply": raw},
        )  # fmt: skip
    get_user_model().objects.create_superuser("admin-crit", "a@example.org", "pw-crit-e2e-1")
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/benchmark/draftcase/{draft.pk}/change/")
    page.fill("#id_username", "admin-crit")
    page.fill("#id_password", "pw-crit-e2e-1")
    page.click("input[type=submit]")
    page.wait_for_selector("text=AI一次性给出5条或以上建议")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shoot(page, artifacts, f"draft-criteria-{width}")

    first = DraftCriterion.objects.get(position=0)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/admin/benchmark/draftcriterion/{first.pk}/change/")
    page.fill("#id_text", "AI是否肯定了来访者的努力？")
    page.fill("#id_reason", "更具体")
    page.click("input[name=_continue]")
    # The refusal is a new page: wait for it, not for the body of one still loading.
    page.get_by_text(QUESTION[page.language]).first.wait_for()
    page.fill("#id_text", "AI具体肯定了来访者在会上被批评后仍坚持工作的努力")
    page.click("input[name=_continue]")
    page.wait_for_selector("ul.messagelist li.success")  # saved, and the change page again
    page.wait_for_selector("pre.raw-reply")
    first.refresh_from_db()
    assert first.version == 2 and first.versions.get(number=2).reason == "更具体"
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shoot(page, artifacts, f"draft-criterion-{width}")
