"""Staff review a draft's seed dialogue beside its LLM rewrite in the admin, in Chromium, in
both languages; screenshots ``draft-review-<width>-<language>.png`` at 1920, 1366 and 390 px."""

import pytest
from django.contrib.auth import get_user_model

from benchmark.models import ConstructionProject, DraftCase

WIDTHS = (1920, 1366, 390)
HEADER = {"en": "Seed and rewrite", "zh-hans": "种子与改写"}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_staff_read_the_seed_beside_the_rewrite(live_server, page_in, artifacts):
    from tests.e2e.conftest import shoot

    project = ConstructionProject.objects.create(name="pilot", dataset_name="heartbench-pilot")
    seed = [
        {"role": "A", "content": "我在上海的公司做了三年，最近老板张总总是当众批评我。"},
        {"role": "B", "content": "被当众批评一定很难受。那时你心里是什么感觉？"},
        {"role": "A", "content": "我觉得很丢脸，晚上睡不着，想辞职又不敢。"},
    ]
    rewrite = [
        {"role": "A", "content": "我在一家公司做了三年，最近上司总是在会上批评我。"},
        {"role": "B", "content": "在大家面前被批评，一定不好受。那一刻你心里是什么感觉？"},
        {"role": "A", "content": "很丢脸，晚上睡不好，想走又不敢走。"},
    ]
    draft = DraftCase.objects.create(
        project=project, question_id="s-01", position=0, dialogue=seed, rewrite=rewrite,
        rewrite_model="rewriter", primary_scene="职场",
    )  # fmt: skip
    get_user_model().objects.create_superuser("admin-draft", "a@example.org", "pw-draft-e2e-1")
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/benchmark/draftcase/{draft.pk}/change/")
    page.fill("#id_username", "admin-draft")
    page.fill("#id_password", "pw-draft-e2e-1")
    page.click("input[type=submit]")
    page.wait_for_selector("table.draft-comparison")
    rows = page.locator("table.draft-comparison tbody tr")
    assert rows.count() == 3
    assert "张总" in rows.nth(0).inner_text() and "上司" in rows.nth(0).inner_text()
    assert HEADER[page.language] in page.inner_text("body")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shoot(page, artifacts, f"draft-review-{width}")
