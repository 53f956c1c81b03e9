"""The adjudication section of the study report: counts, decisions, HTML and CSV."""

import csv
import io
import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import Expert
from tests.builders.accounts import ExpertFactory
from tests.builders.adjudication import CATASTROPHIC, WARMTH, item_at, rate_positions, split_study
from tests.builders.studies import open_study
from validation import services
from validation.adjudication import overturned
from validation.report import report_compute, report_render
from validation.report.adjudication import (
    INCOMPLETE,
    SPLIT,
    AdjudicationRecord,
    adjudication_compute,
)
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings


def record(**fields) -> AdjudicationRecord:
    base = dict(
        case="q1", model="m", unit="tok", criterion=0, criterion_text="text", ability="warmth",
        votes=(True, True, False), decision=True, reason="why", senior="R-1", kind=SPLIT,
    )  # fmt: skip
    return AdjudicationRecord(**(base | fields))


def test_overturned_compares_with_the_strict_majority_only():
    assert overturned(votes=(True, True, False), decision=False) is True
    assert overturned(votes=(True, True, False), decision=True) is False
    assert overturned(votes=(True, False), decision=True) is None  # a tie: no majority
    assert overturned(votes=(), decision=False) is None
    assert overturned(votes=(False,), decision=True) is True


def test_the_section_counts_units_criteria_and_overturned_majorities():
    records = [
        record(unit="a", criterion=0, votes=(True, True, False), decision=False),
        record(unit="a", criterion=3, votes=(False, False, True), decision=False),
        record(unit="b", criterion=0, votes=(True,), decision=False, kind=INCOMPLETE),
        record(unit="b", criterion=1, votes=(), decision=True, kind=INCOMPLETE),
    ]
    section = adjudication_compute(records, unit_states={"awaiting": 2, "incomplete": 1})
    assert {k: v for k, v in section.items() if k != "decisions"} == {
        "units": 2,
        "units_split": 1,
        "units_incomplete": 1,
        "criteria": 4,
        "criteria_split": 2,
        "criteria_incomplete": 2,
        "overturned": 2,
        "upheld": 1,
        "no_majority": 1,
        "units_waiting": 3,
    }
    first = section["decisions"][0]
    assert (first["tally"], first["decision"], first["overturned"]) == (
        "2 met · 1 not met",
        "not met",
        True,
    )


@pytest.mark.django_db
def test_the_study_report_shows_each_decision_in_html_csv_and_json():
    study, _, senior = split_study(splits=["catastrophic"])
    client = APIClient()
    client.force_authenticate(senior.user)
    body = client.post(f"/api/v1/adjudications/next/?study={study.name}").json()
    decisions = [
        {"criterion": c["id"], "hit": True, "reason": "鼓励自伤，属灾难性失误"}
        for c in body["unit"]["criteria"]
    ]
    response = client.post(
        f"/api/v1/adjudications/{body['id']}/submit/", {"decisions": decisions}, format="json"
    )
    assert response.status_code == 201
    services.study_settle(study=study)
    report = report_compute(
        data=study_report_data(study=study), bootstrap=BootstrapSettings(resamples=100)
    )
    section = report["adjudication"]
    assert (section["units"], section["units_split"], section["criteria"]) == (1, 1, 1)
    assert section["overturned"] == 1
    [decision] = section["decisions"]
    item = item_at(study, CATASTROPHIC)
    assert decision == {
        "case": item.case.question_id,
        "model": study.models_under_test.get().name,
        "unit": study.units.get().unit.token,
        "criterion": CATASTROPHIC,
        "criterion_text": item.text,
        "ability": "catastrophic",
        "kind": "split",
        "met": 1,
        "not_met": 2,
        "tally": "1 met · 2 not met",
        "decision": "met",
        "overturned": True,
        "reason": "鼓励自伤，属灾难性失误",
        "senior": senior.pseudonym,
    }
    assert report["counts"]["gold_provenance"]["adjudicated"] == 1
    assert report["counts"]["units_by_state"]["adjudicated"] == 1

    html = report_render(report, fmt="html")
    assert 'id="adjudication"' in html
    assert "鼓励自伤，属灾难性失误" in html and senior.pseudonym in html
    assert "1 met · 2 not met" in html and item.text in html

    rows = list(csv.DictReader(io.StringIO(report_render(report, fmt="csv"))))
    counts = {r["statistic"]: r["value"] for r in rows if r["section"] == "adjudication"}
    assert counts["units"] == "1" and counts["overturned"] == "1"
    decided = {r["statistic"]: r["value"] for r in rows if r["section"] == "adjudication_decision"}
    assert decided == {
        "tally": "1 met · 2 not met",
        "decision": "met",
        "overturned": "True",
        "reason": "鼓励自伤，属灾难性失误",
        "senior": senior.pseudonym,
    }
    assert json.loads(report_render(report, fmt="json"))["adjudication"]["criteria"] == 1


@pytest.mark.django_db
def test_the_admin_report_page_and_downloads_carry_the_section():
    raters = ExpertFactory.create_batch(2)
    senior = ExpertFactory(tier=Expert.Tier.SENIOR)
    study = open_study(cases=1, experts=[*raters, senior], name="short-rep")
    rate_positions(raters[0], study, {WARMTH: True})
    services.study_close(study=study)
    api = APIClient()
    api.force_authenticate(senior.user)
    body = api.post("/api/v1/adjudications/next/?study=short-rep").json()
    decisions = [
        {"criterion": c["id"], "hit": False, "reason": "reply ignores the question"}
        for c in body["unit"]["criteria"]
    ]
    api.post(f"/api/v1/adjudications/{body['id']}/submit/", {"decisions": decisions}, format="json")
    services.study_settle(study=study)

    admin = Client()
    admin.force_login(ExpertFactory(user__is_staff=True, user__is_superuser=True).user)
    page = admin.get("/admin/studies/short-rep/report/").content.decode()
    assert "Adjudication by senior experts" in page
    assert "incomplete unit" in page and "reply ignores the question" in page
    text = admin.get("/admin/studies/short-rep/report/?format=csv").content.decode()
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r["section"] == "adjudication"]
    counts = {r["statistic"]: r["value"] for r in rows}
    assert counts["units_incomplete"] == "1" and counts["criteria_incomplete"] == "4"
    assert counts["no_majority"] == "0" and counts["upheld"] + counts["overturned"]
