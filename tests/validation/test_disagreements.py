"""The disagreement viewer's selectors on real studies: rows against the export, every
filter, pseudonyms (never usernames), provenance and a senior's reason."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Expert
from benchmark.models import Verdict
from tests.builders.adjudication import CATASTROPHIC, item_at, split_study
from tests.builders.studies import rated_study
from validation import selectors, services
from validation.selectors.disagreements import (
    AGREE,
    DISAGREE,
    ERROR,
    DisagreementFilters,
    FilterError,
    disagreement_filters_parse,
    disagreement_options,
    disagreements_all,
    disagreements_page,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    return rated_study(name="viewer-study")


def rows(study, **filters) -> list:
    return list(disagreements_all(study=study, filters=DisagreementFilters(**filters)))


def test_rows_pair_each_gold_label_with_each_judge_like_the_export(study):
    export = list(selectors.study_export_rows(study=study))
    found = rows(study)
    assert len(found) == 2 * len(export) == 144
    by_key = {(r["unit"], r["criterion"]): r for r in export}
    for item in found:
        row = by_key[(item.unit, item.position)]
        assert (item.case, item.model, item.ability) == (row["case"], row["model"], row["ability"])
        assert item.gold == (row["gold"] == "met") and item.provenance == row["provenance"]
        assert item.verdict == row[f"judge:{item.judge}"]
        assert [r.pseudonym for r in item.raters] == [row[f"rater_{s}"] for s in (1, 2, 3)]
        assert [r.hit for r in item.raters] == [row[f"rater_{s}_label"] == "met" for s in (1, 2, 3)]


def test_agreement_filters_partition_the_rows_and_match_the_verdicts(study):
    split = {a: rows(study, judge="judge-a", agreement=a) for a in (AGREE, DISAGREE, ERROR)}
    assert sum(map(len, split.values())) == len(rows(study, judge="judge-a")) == 72
    assert len(split[ERROR]) == 3 and all(i.verdict == "error" for i in split[ERROR])
    assert split[DISAGREE] and all(
        (i.verdict == "met") != i.gold and i.agreement == DISAGREE for i in split[DISAGREE]
    )
    assert all((i.verdict == "met") == i.gold for i in split[AGREE])
    # judge-b flips every verdict of judge-a: its agreements are judge-a's disagreements.
    flipped = rows(study, judge="judge-b", agreement=AGREE)
    disagreed = {(i.unit, i.position) for i in split[DISAGREE]}
    assert {(i.unit, i.position) for i in flipped} == disagreed


def test_agreement_is_judged_per_run_when_runs_differ_on_one_criterion(study):
    """Two models' runs of one judge disagree on the same criteria: each row is judged by
    its own verdict, never by another run's (a negated filter would read every run's)."""
    model = disagreement_options(study=study).models[0]
    run = study.judge_runs.get(judge__name="judge-a", model__name=model)
    flipped = run.verdicts.exclude(state="error")[:5]
    for verdict in flipped:
        verdict.state = "not_met" if verdict.state == "met" else "met"
        verdict.save()
    every = rows(study, judge="judge-a")
    expected = {(i.unit, i.position) for i in every if i.agreement == DISAGREE}
    found = {(i.unit, i.position) for i in rows(study, judge="judge-a", agreement=DISAGREE)}
    assert found == expected
    assert len(rows(study, judge="judge-a", agreement=AGREE)) + len(found) == 72 - 3


def test_ability_model_and_provenance_filters(study):
    model = disagreement_options(study=study).models[0]
    assert {i.model for i in rows(study, model=model)} == {model}
    assert len(rows(study, model=model)) == 48
    warmth = rows(study, ability="warmth")
    assert warmth and {i.ability for i in warmth} == {"warmth"}
    for provenance in ("3/3", "2/1"):
        found = rows(study, provenance=provenance)
        assert found and {i.provenance for i in found} == {provenance}
    assert len(rows(study, provenance="3/3")) + len(rows(study, provenance="2/1")) == 144
    assert rows(study, provenance="adjudicated") == []


def test_a_unit_and_criterion_pin_one_item_per_judge(study):
    some = rows(study)[5]
    pinned = rows(study, unit=some.unit, criterion=some.criterion_id)
    assert {(i.unit, i.criterion_id) for i in pinned} == {(some.unit, some.criterion_id)}
    assert sorted(i.judge for i in pinned) == ["judge-a", "judge-b"]
    assert rows(study, unit="no-such-unit") == []


def test_a_page_holds_the_whole_item_and_pseudonyms_never_usernames(study):
    page = disagreements_page(study=study, filters=DisagreementFilters(), number=2)
    assert len(page.object_list) == 25 and page.paginator.count == 144
    item = page.object_list[0]
    assert item.dialogue and item.response.startswith("回应") and item.criterion_text
    pseudonyms = set(Expert.objects.values_list("pseudonym", flat=True))
    usernames = set(Expert.objects.values_list("user__username", flat=True))
    assert {r.pseudonym for r in item.raters} <= pseudonyms
    assert not {r.pseudonym for r in item.raters} & usernames
    assert disagreements_page(study=study, filters=DisagreementFilters(), number="x").number == 1


def test_unknown_filter_values_are_refused_by_name(study):
    options = disagreement_options(study=study)
    assert options.judges == ("judge-a", "judge-b")
    bad = [("ability", "charm"), ("model", "nobody"), ("judge", "judge-z"),
           ("provenance", "1/2"), ("agreement", "maybe"), ("criterion", "7a")]  # fmt: skip
    for name, value in bad:
        with pytest.raises(FilterError) as caught:
            disagreement_filters_parse(query={name: value}, options=options)
        assert caught.value.field == name
    parsed = disagreement_filters_parse(
        query={"judge": "judge-a", "agreement": DISAGREE, "criterion": "12", "page": "3"},
        options=options,
    )
    assert parsed.as_query() == {"judge": "judge-a", "agreement": DISAGREE, "criterion": "12"}


def test_an_adjudicated_item_carries_the_senior_and_the_reason():
    study, raters, senior = split_study(splits=["catastrophic"], judge=True)
    client = APIClient()
    client.force_authenticate(senior.user)
    body = client.post(f"/api/v1/adjudications/next/?study={study.name}").json()
    decisions = [{"criterion": c["id"], "hit": True, "reason": "鼓励自伤，属灾难性失误"}
                 for c in body["unit"]["criteria"]]  # fmt: skip
    client.post(f"/api/v1/adjudications/{body['id']}/submit/", {"decisions": decisions},
                format="json")  # fmt: skip
    services.study_settle(study=study)
    unit = study.units.get()
    run = study.judge_runs.get()
    response = run.model.responses.get(case=unit.case)
    for item in unit.case.rubric.all():
        Verdict.objects.create(run=run, response=response, rubric_item=item, state="not_met",
                               reasoning=f"理由 {item.position}")  # fmt: skip
    [adjudicated] = rows(study, provenance="adjudicated")
    assert adjudicated.criterion_id == item_at(study, CATASTROPHIC).pk
    assert adjudicated.gold is True and adjudicated.agreement == DISAGREE
    assert adjudicated.adjudicator.pseudonym == senior.pseudonym
    assert adjudicated.adjudicator.note == "鼓励自伤，属灾难性失误"
    assert [r.note for r in adjudicated.raters] == [f"rater-note-{r.user.username}" for r in raters]
    assert [r.pseudonym for r in adjudicated.raters] == [r.pseudonym for r in raters]
    assert adjudicated.reasoning == f"理由 {CATASTROPHIC}"


def test_a_study_without_judge_runs_has_no_items():
    study = rated_study(name="no-judge", cases=2, rate=True)
    study.judge_runs.clear()
    page = disagreements_page(study=study, filters=DisagreementFilters(), number=1)
    assert page.paginator.count == 0 and list(page.object_list) == []
    assert disagreement_options(study=study).judges == ()
