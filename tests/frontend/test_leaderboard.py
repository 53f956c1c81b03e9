"""The leaderboard page at /leaderboard/: for every signed-in user, aggregates only.

Boards are built from factories with deterministic verdicts; the badge is checked against the
study report computed by the validation app, so the page can only pass by agreeing with it.
"""

import re

import pytest

from benchmark.models import JudgeRun, RubricItem, Verdict
from benchmark.services.rubric import rubric_item_edit
from benchmark.taxonomy import BY_CODE, CATEGORY_NAMES, SCORED_CODES
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.datasets import (
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
)
from tests.builders.leaderboards import REASONING, judged_dataset
from tests.builders.studies import open_study, rated_study
from validation import closing, services
from validation.models import GoldLabel
from validation.report import report_compute
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

pytestmark = pytest.mark.django_db


def radar(page: str) -> str:
    match = re.search(r'<div class="radar">(.*?)</div>', page, re.S)
    return match.group(1) if match else ""


def drawn_models(page: str) -> list[str]:
    return re.findall(r'<text[^>]*class="legend">([^<]*)</text>', radar(page))


@pytest.fixture
def expert_client(client):
    client.force_login(ExpertFactory().user)
    return client


@pytest.fixture
def staff_client(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_anonymous_is_sent_to_login(client):
    response = client.get("/leaderboard/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=/leaderboard/")


def test_expert_sees_the_table_with_intervals_coverage_categories_and_decay(expert_client):
    dataset, names = judged_dataset(models=3)
    response = expert_client.get("/leaderboard/")
    assert response.status_code == 200
    page = response.content.decode()
    assert f"{dataset.name} v1" in page
    for name in names:
        assert name in page
    rows = re.findall(r"<tr>\s*<td data-value=\"(\d+)\">", page)
    assert rows == ["1", "2", "3"]
    assert "4/4" in page  # coverage: every case scored
    assert re.search(r"\d+\.\d\d–\d+\.\d\d", page)  # a 95 % interval
    for english in ("Personality", "Emotion", "Social", "Motivation", "Morality"):
        assert f">{english}</th>" in page
    assert "hard_decay" not in page  # the decay columns are named in words (issue 15)
    assert "Not validated yet" in page


def test_empty_platform_and_unknown_choices(expert_client):
    assert (
        "No dataset has been imported yet." in expert_client.get("/leaderboard/").content.decode()
    )
    dataset, _ = judged_dataset(models=1)
    assert expert_client.get("/leaderboard/?split=nope").status_code == 404
    assert expert_client.get("/leaderboard/?scoring=nope").status_code == 404
    assert expert_client.get("/leaderboard/?dataset=missing").status_code == 404
    assert expert_client.get(f"/leaderboard/?dataset={dataset.name}&judge=ghost").status_code == 404
    named = expert_client.get(f"/leaderboard/?dataset={dataset.name}:v1&judge=judge-x")
    assert named.status_code == 200


def test_staff_get_the_same_page_from_the_admin_link(staff_client):
    judged_dataset(models=2)
    response = staff_client.get("/admin/leaderboard/?split=hard&scoring=upstream")
    assert response.status_code == 302
    assert response["Location"] == "/leaderboard/?split=hard&scoring=upstream"
    page = staff_client.get(response["Location"]).content.decode()
    assert "board-model-00" in page and "Upstream scoring" in page
    assert '<option value="hard" selected>' in page


def test_admin_link_stays_staff_only(expert_client):
    response = expert_client.get("/admin/leaderboard/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_radar_defaults_to_the_top_three_and_draws_the_chosen_models(expert_client):
    _, names = judged_dataset(models=6)
    page = expert_client.get("/leaderboard/").content.decode()
    ranked = re.findall(r'<td class="name" data-value="([^"]+)">', page)
    assert drawn_models(page) == ranked[:3]
    chosen = [names[5], names[1]]
    query = "&".join(f"models={n}" for n in chosen)
    page = expert_client.get(f"/leaderboard/?compare=1&{query}").content.decode()
    assert sorted(drawn_models(page)) == sorted(chosen)
    assert radar(page).count('fill-opacity=".10"') == 2
    # The table fallback has one column per compared model and one row per ability.
    table = re.search(r'<table class="board" id="compared-abilities">(.*?)</table>', page, re.S)
    assert table and table.group(1).count('<th scope="row"') == len(SCORED_CODES)
    for name in chosen:
        assert name in table.group(1)


def test_five_models_are_compared_and_a_sixth_is_refused(expert_client):
    _, names = judged_dataset(models=6)
    five = "&".join(f"models={n}" for n in names[:5])
    response = expert_client.get(f"/leaderboard/?compare=1&{five}")
    assert response.status_code == 200
    assert len(drawn_models(response.content.decode())) == 5
    six = "&".join(f"models={n}" for n in names)
    response = expert_client.get(f"/leaderboard/?compare=1&{six}")
    page = response.content.decode()
    assert response.status_code == 400
    assert "Compare at most 5 models at a time; you picked 6." in page
    assert radar(page) == "" and "<svg" in page  # no radar; the normal/hard chart stays
    assert page.count("checked>") == 6  # the choice is kept so one can be unticked


def test_no_model_ticked_draws_an_empty_radar(expert_client):
    judged_dataset(models=2)
    page = expert_client.get("/leaderboard/?compare=1").content.decode()
    assert drawn_models(page) == [] and "No model is picked for comparison." in page


def test_normal_against_hard_chart_is_labelled(expert_client):
    judged_dataset(models=2)
    page = expert_client.get("/leaderboard/").content.decode()
    section = re.search(r'<section class="card" id="difficulty">(.*?)</section>', page, re.S)
    assert section
    svg = section.group(1)
    assert "<title" in svg and "<desc" in svg
    assert "board-model-00: normal cases" in svg and "hard cases" in svg


@pytest.mark.parametrize(("language", "index"), [("en", 1), ("zh-hans", 0)], ids=["en", "zh-hans"])
def test_ability_and_category_names_follow_the_language(expert_client, language, index):
    judged_dataset(models=2)
    response = expert_client.get("/leaderboard/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    page = response.content.decode()
    chart = radar(page)
    for code in SCORED_CODES:
        ability = BY_CODE[code]
        shown, other = (ability.en, ability.zh) if index else (ability.zh, ability.en)
        assert f'class="spoke">{shown}</text>' in chart
        assert f'class="spoke">{other}</text>' not in chart
    for names in CATEGORY_NAMES.values():
        assert f">{names[index]}</th>" in page
    assert f'<html lang="{language}"' in page


def badge(page: str, judge: str) -> str:
    match = re.search(
        rf'<div class="badge [^"]*" data-judge="{judge}"[^>]*>(.*?)</div>', page, re.S
    )
    assert match, f"no badge for {judge}"
    return match.group(1)


def gate_of(study, judge: str) -> dict:
    report = report_compute(data=study_report_data(study=study), bootstrap=BootstrapSettings())
    return next(j for j in report["judges"] if j["judge"] == judge)["gate"]


@pytest.mark.usefixtures("few_resamples")
def test_badge_passes_and_fails_as_the_study_report_says(staff_client):
    study = rated_study()
    url = f"/leaderboard/?dataset={study.dataset.name}"
    for judge in ("judge-a", "judge-b"):
        gate = gate_of(study, judge)
        page = staff_client.get(f"{url}&judge={judge}").content.decode()
        shown = badge(page, judge)
        agreement = gate["agreement"]
        assert f"{agreement['value']:.3f}" in shown
        assert f"{agreement['low']:.3f}–{agreement['high']:.3f}" in shown
        verdict = {
            "passed": "passes the gate",
            "failed": "fails the gate",
            "not_enough_data": "gate: not enough data",
        }
        assert verdict[gate["decision"]] in shown
        for condition in gate["conditions"]:
            assert condition["status"].replace("_", " ") in shown
        assert f">{study.units.count()}" in shown  # units of the study
        assert study.closed_at.strftime("%Y-%m-%d") in shown
        assert f'href="/admin/studies/{study.name}/report/"' in shown
    # The two judges of the fixture disagree on every verdict: their agreement conditions differ.
    a, b = (gate_of(study, judge)["conditions"][0] for judge in ("judge-a", "judge-b"))
    assert a["value"] + b["value"] == pytest.approx(1.0) and a["status"] != b["status"]


def test_experts_see_the_badge_without_the_report_link(expert_client):
    study = rated_study()
    for judge in ("judge-a", "judge-b"):
        url = f"/leaderboard/?dataset={study.dataset.name}&judge={judge}"
        page = expert_client.get(url).content.decode()
        shown = badge(page, judge)
        assert "the gate" in shown and study.name in shown and "href=" not in shown
    assert "&lt;script&gt;" in page and '<script>alert("x")' not in page  # hostile model name


def test_badge_absent_while_the_study_is_open(expert_client):
    study = rated_study(rate=False)
    url = f"/leaderboard/?dataset={study.dataset.name}&judge=judge-a"
    assert "Not validated yet" in badge(expert_client.get(url).content.decode(), "judge-a")


def test_figures_wait_for_adjudication_for_experts_but_not_for_staff(client):
    study = rated_study(rate=False)
    # Nobody rated: every unit waits for a senior expert.
    services.study_close(study=study, unrated=closing.SENIOR)
    url = f"/leaderboard/?dataset={study.dataset.name}&judge=judge-a"
    client.force_login(ExpertFactory(tier="senior").user)
    shown = badge(client.get(url).content.decode(), "judge-a")
    assert "Validation being finished" in shown and "units still wait" in shown
    assert "agreement" not in shown.lower()
    client.force_login(UserFactory(is_staff=True))
    shown = badge(client.get(url).content.decode(), "judge-a")
    assert "gate: not enough data" in shown and "still wait for adjudication" in shown


def test_a_rater_of_a_study_not_yet_closed_sees_no_model_or_judge_of_its_dataset(client):
    """Blindness (DESIGN): while a study on a dataset is open, its raters (active or not) see
    no model identity, judge name or figure for that dataset, only why; others and staff
    see the board, and so do the raters once the study is closed."""
    expert, gone = ExpertFactory(), ExpertFactory()
    study = open_study(cases=4, experts=[expert, gone], models=2, judge=True, name="blind-study")
    for run in study.judge_runs.all():
        for response in run.model.responses.all():
            for item in response.case.rubric.all():
                Verdict.objects.create(
                    run=run,
                    response=response,
                    rubric_item=item,
                    state=Verdict.State.MET if item.points and item.points > 0 else "not_met",
                    reasoning=REASONING,
                )
    gone.is_active = False
    gone.save()
    models = list(study.models_under_test.values_list("name", flat=True))
    judges = [run.judge.name for run in study.judge_runs.all()]
    url = f"/leaderboard/?dataset={study.dataset.name}"

    def page_for(user, path=url) -> str:
        client.force_login(user)
        response = client.get(path)
        assert response.status_code == 200
        return response.content.decode()

    claimed = None
    for who in (expert, gone):
        if who is expert:
            client.force_login(expert.user)
            claimed = client.post("/api/v1/assignments/next/?study=blind-study")
            assert claimed.status_code == 201
        for path in (url, "/leaderboard/", f"{url}&judge={judges[0]}&compare=1"):
            page = page_for(who.user, path)
            assert 'id="blind-dataset"' in page, path
            page = page.replace(path.replace("&", "&amp;"), "")  # the language switch's return
            leaked = [name for name in models + judges + [REASONING] if name in page]
            assert not leaked, (path, leaked)
    assert claimed is not None
    for other in (ExpertFactory().user, UserFactory(is_staff=True)):
        page = page_for(other)
        assert all(name in page for name in models) and 'id="blind-dataset"' not in page
    services.study_close(study=study)
    assert all(name in page_for(expert.user) for name in models)


def overall_of(page: str, model: str) -> str:
    match = re.search(
        rf'data-value="{model}">{model}</td>\s*<td data-value="[^"]*"><strong>([^<]*)</strong>',
        page,
    )
    assert match, f"{model} is not on the board"
    return match.group(1)


def test_the_page_follows_new_runs_and_rubric_edits(expert_client, monkeypatch):
    """The board is kept between requests, under a key of everything it is computed from."""
    dataset, names = judged_dataset(models=2)
    before = expert_client.get("/leaderboard/").content.decode()

    def not_again(**kwargs):
        raise AssertionError("the unchanged board was computed again")

    monkeypatch.setattr("benchmark.services.stored_board.leaderboard_compute", not_again)
    assert overall_of(expert_client.get("/leaderboard/").content.decode(), names[0])
    monkeypatch.undo()
    assert "Rubric changed" not in before
    item = RubricItem.objects.filter(case__dataset=dataset, points__gt=0).first()
    rubric_item_edit(item=item, points=item.points + 7, author=UserFactory(), reason="heavier")
    after = expert_client.get("/leaderboard/").content.decode()
    # Every model's verdict on that criterion is now on an older version: the note says so.
    assert "Rubric changed" in after
    for name in names:
        assert f"<li>{name}: 1 verdict on 1 criteria</li>" in after
    JudgeRunFactory(
        judge=JudgeFactory(name="judge-y"), dataset=dataset, model=ModelUnderTestFactory()
    )
    assert "judge-y" in expert_client.get("/leaderboard/").content.decode()


def test_the_badge_follows_gold_written_after_the_close(staff_client):
    study = rated_study(rate=False)
    services.study_close(study=study, unrated=closing.SENIOR)
    url = f"/leaderboard/?dataset={study.dataset.name}&judge=judge-a"
    before = badge(staff_client.get(url).content.decode(), "judge-a")
    assert "gate: not enough data" in before and '<dd class="agreement">—' in before
    unit = study.units.first()
    for item in unit.case.rubric.all():
        GoldLabel.objects.create(study_unit=unit, rubric_item=item, hit=True, provenance="3/3")
    shown = badge(staff_client.get(url).content.decode(), "judge-a")
    assert '<dd class="agreement">—' not in shown and "gate" in shown


def test_rows_of_other_judge_settings_are_named_on_the_page(expert_client):
    dataset, names = judged_dataset(models=2)
    JudgeRun.objects.filter(model__name=names[0]).update(source="engine", temperature=0.7)
    page = expert_client.get(f"/leaderboard/?dataset={dataset.name}").content.decode()
    note = re.search(r'<div class="muted" id="settings-note">(.*?)</div>', page, re.S)
    assert note and "temperature 0.7" in note.group(1) and "imported verdicts" in note.group(1)
