"""The admin API driven as a script would: a token, then create → open → progress → close →
report → export, the CLI's refusals as 400s on the field at fault, pages, and staff only."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotation import services as annotation_services
from tests.builders.accounts import PASSWORD, ExpertFactory, UserFactory
from tests.builders.datasets import JudgeRunFactory
from tests.builders.labels import all_labels
from tests.builders.studies import dataset_with_responses
from validation import services
from validation.gate import GateConfig
from validation.models import Study

pytestmark = pytest.mark.django_db

API = "/api/v1/admin/studies/"


def token_client(user) -> APIClient:
    """A client that signs in as a script does: a token from the token endpoint."""
    client = APIClient()
    answer = client.post("/api/v1/auth/token/", {"username": user.username, "password": PASSWORD})
    assert answer.status_code == 200, answer.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    return client


@pytest.fixture
def admin():
    return token_client(UserFactory(is_staff=True))


def rate_one_unit(expert, study: Study) -> None:
    assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
    annotation_services.assignment_submit(assignment=assignment, labels=all_labels(assignment))


def test_a_script_runs_a_whole_study_through_the_api(admin):
    dataset, models = dataset_with_responses(cases=4, models=2)
    run = JudgeRunFactory(model=models[0], dataset=dataset)
    experts = ExpertFactory.create_batch(3)
    body = {
        "name": "api-pilot",
        "dataset": dataset.name,
        "models": [m.name for m in models],
        "judge_runs": [str(run.pk)],
        "fraction": 1.0,
        "seed": 7,
        "adjudicate_splits": ["catastrophic"],
        "gate": {"agreement_min": 0.8, "catastrophic_min_hits": 5},
    }
    created = admin.post(API, body, format="json")
    assert created.status_code == 201, created.content
    study = created.json()
    assert study["name"] == "api-pilot" and study["status"] == "draft"
    assert study["models"] == sorted(m.name for m in models)
    assert study["judge_runs"] == [run.pk] and study["units"] == 8 and study["seed"] == 7
    assert study["adjudicate_splits"] == ["catastrophic"] and study["lease_minutes"] == 30
    assert study["gate"] == GateConfig(agreement_min=0.8, catastrophic_min_hits=5).as_dict()
    assert Study.objects.get(name="api-pilot").created_by.is_staff  # audited as the admin

    opened = admin.post(f"{API}api-pilot/open/")
    assert opened.status_code == 200 and opened.json()["status"] == "open"
    for expert in experts:
        rate_one_unit(expert, Study.objects.get(name="api-pilot"))

    progress = admin.get(f"{API}api-pilot/progress/").json()
    assert progress["status"] == "open" and progress["units"] == 8
    assert progress["ratings_done"] == 3 and sum(progress["units_by_state"].values()) == 8
    assert progress["pace"]["remaining"] == 21

    closed = admin.post(f"{API}api-pilot/close/", {"unrated": "drop"}, format="json")
    assert closed.status_code == 200, closed.content
    counts = closed.json()
    assert counts["study"]["status"] == "closed"
    assert counts["complete"] + counts["partly_rated"] + counts["never_rated"] == 8
    assert counts["never_rated"] == counts["dropped"] > 0  # dropped, as asked
    assert counts["incomplete"] == counts["partly_rated"]  # to a senior, the default

    report = admin.get(f"{API}api-pilot/report/")
    assert report.status_code == 200 and report["Content-Type"] == "application/json"
    assert report.json()["study"]["name"] == "api-pilot"
    for fmt, media in (("csv", "text/csv"), ("html", "text/html")):
        download = admin.get(f"{API}api-pilot/report/", {"format": fmt})
        assert download.status_code == 200 and download["Content-Type"].startswith(media)
        assert f'filename="study-report-api-pilot.{fmt}"' in download["Content-Disposition"]

    export = admin.get(f"{API}api-pilot/export/")
    assert export.status_code == 200 and export["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(export.content.decode())))
    assert {r["unit"] for r in rows} and all(r["study"] == "api-pilot" for r in rows)
    # What `heartbench study export` writes, byte for byte.
    out = io.StringIO()
    call_command(
        "study", "export", "api-pilot", "--format", "jsonl", stdout=out, stderr=io.StringIO()
    )
    jsonl = admin.get(f"{API}api-pilot/export/", {"format": "jsonl"})
    assert jsonl.content.decode() == out.getvalue()
    # Pseudonyms only: no expert's user name reaches the export or the report.
    for expert in experts:
        for text in (export.content, jsonl.content, report.content):
            assert expert.user.username.encode() not in text


def test_refusals_are_400s_on_the_field_with_the_command_lines_words(admin):
    dataset, models = dataset_with_responses(cases=2)
    good = {"name": "s", "dataset": dataset.name, "models": [models[0].name]}
    cases = [
        ({"dataset": "nope"}, "dataset", "no dataset named 'nope'"),
        ({"models": ["ghost"]}, "models", "unknown model(s): ghost"),
        ({"models": []}, "models", "choose at least one model"),
        ({"judge_runs": ["999999"]}, "judge_runs", "no judge run 999999"),
        ({"fraction": 0}, "fraction", "0.0 is not above 0 and at most 1"),
        ({"lease_minutes": -5}, "lease_minutes", "-5 is not a positive whole number"),
        ({"seed": -1}, "seed", "-1 is negative; give a whole number ≥ 0"),
        ({"name": "a b"}, "name", None),
        ({"stratify_by": ["colour"]}, "stratify_by", "cannot stratify by ['colour']"),
        ({"adjudicate_splits": ["flying"]}, "adjudicate_splits", None),
        ({"gate": {"score_bias_max": 101}}, "gate", None),
    ]
    for change, field, words in cases:
        answer = admin.post(API, good | change, format="json")
        assert answer.status_code == 400, (change, answer.content)
        assert list(answer.json()) == [field], answer.json()
        if words:
            assert answer.json()[field][0].startswith(words), answer.json()
    assert not Study.objects.exists()
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        call_command("study", "create", "s", "--dataset", "nope", "--models", models[0].name)

    assert admin.post(API, good, format="json").status_code == 201
    again = admin.post(API, good, format="json")
    assert again.status_code == 400 and again.json() == {
        "name": ["a study named 's' exists already"]
    }
    missing = admin.post(API, {}, format="json")
    assert missing.status_code == 400 and {"name", "dataset", "models"} <= set(missing.json())


def test_state_refusals_are_409s_and_unknown_studies_404s(admin):
    dataset, models = dataset_with_responses(cases=2)
    services.study_create(name="s", dataset=dataset, models=models, fraction=1.0, seed=1)
    closing_a_draft = admin.post(f"{API}s/close/")
    assert closing_a_draft.status_code == 409
    assert closing_a_draft.json() == {"detail": "study s is draft: only an open study closes"}
    assert admin.post(f"{API}s/open/").status_code == 200
    assert admin.post(f"{API}s/open/").status_code == 409
    assert admin.post(f"{API}s/close/", {"partial": "maybe"}, format="json").status_code == 400
    for path in ("", "open/", "close/", "progress/", "report/", "export/"):
        method = admin.post if path in ("open/", "close/") else admin.get
        answer = method(f"{API}nope/{path}")
        assert answer.status_code == 404 and answer.json() == {"detail": "no study named 'nope'"}
    for path, fmt in (("report/", "pdf"), ("export/", "xlsx")):
        answer = admin.get(f"{API}s/{path}", {"format": fmt})
        assert answer.status_code == 400 and list(answer.json()) == ["format"]


def test_the_list_comes_in_pages_a_client_follows(admin):
    dataset, models = dataset_with_responses(cases=1)
    for i in range(5):
        services.study_create(name=f"s{i}", dataset=dataset, models=models, fraction=1.0, seed=i)
    names, url = [], f"{API}?page_size=2"
    while url:
        page = admin.get(url).json()
        assert page["count"] == 5 and len(page["results"]) <= 2
        names += [s["name"] for s in page["results"]]
        url = page["next"]
    assert names == ["s4", "s3", "s2", "s1", "s0"]  # newest first


def test_only_staff_may_use_it():
    dataset, models = dataset_with_responses(cases=1)
    expert = ExpertFactory()
    services.study_create(name="s", dataset=dataset, models=models, experts=[expert], seed=1)
    anonymous = APIClient().get(API)
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"].startswith("Token")
    as_expert = token_client(expert.user)
    assert as_expert.get(API).status_code == 403
    assert as_expert.post(f"{API}s/open/").status_code == 403
    assert Study.objects.get(name="s").pool.status == "draft"


def test_the_schema_documents_every_status_each_operation_answers():
    schema = json.loads(
        APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content
    )
    paths = {path: ops for path, ops in schema["paths"].items() if "/admin/" in path}
    expected = {
        ("/api/v1/admin/studies/", "get"): {"200", "401", "403"},
        ("/api/v1/admin/studies/", "post"): {"201", "400", "401", "403"},
        ("/api/v1/admin/studies/{study}/", "get"): {"200", "401", "403", "404"},
        ("/api/v1/admin/studies/{study}/open/", "post"): {"200", "401", "403", "404", "409"},
        ("/api/v1/admin/studies/{study}/close/", "post"): {
            "200", "400", "401", "403", "404", "409"
        },
        ("/api/v1/admin/studies/{study}/progress/", "get"): {"200", "401", "403", "404"},
        ("/api/v1/admin/studies/{study}/report/", "get"): {"200", "400", "401", "403", "404"},
        ("/api/v1/admin/studies/{study}/export/", "get"): {"200", "400", "401", "403", "404"},
    }  # fmt: skip
    found = {(p, m): set(op["responses"]) for p, ops in paths.items() for m, op in ops.items()}
    # 503: the database too busy to answer in time, as for every authenticated operation;
    # 400: text that cannot be stored, or a body too deep or too big, as for every operation.
    assert found == {operation: codes | {"400", "503"} for operation, codes in expected.items()}
    export = paths["/api/v1/admin/studies/{study}/export/"]["get"]["responses"]["200"]
    assert set(export["content"]) == {"text/csv", "application/jsonl"}


def test_a_study_is_planned_and_looked_at_in_groups_as_the_command_does(admin):
    dataset, models = dataset_with_responses(cases=40, models=1)
    body = {"name": "planned", "dataset": dataset.name, "models": [models[0].name]}
    wanted = {"expected_agreement": 0.85, "half_width": 0.1}
    created = admin.post(API, body | {"plan": wanted, "look_every": 5}, format="json")
    assert created.status_code == 201, created.content
    study = created.json()
    call_command("study", "plan", "--dataset", dataset.name, "--models", models[0].name,
                 "--expected-agreement", "0.85", "--half-width", "0.1", "--format", "json",
                 stdout=(out := io.StringIO()))  # fmt: skip
    # The stored plan is the command's, but for the power of each gate condition, which the
    # command adds for the person planning (a simulation) and no study stores.
    planned = json.loads(out.getvalue())
    assert "power" in planned and "power" not in study["plan"]
    assert study["plan"] == {k: v for k, v in planned.items() if k != "power"}
    assert study["look_every"] == 5
    assert study["fraction"] == study["plan"]["fraction"]
    refusals = [
        ({"plan": wanted, "fraction": 0.5}, "a plan sets the fraction"),
        ({"plan": {"pilot": "ghost"}}, "no study named 'ghost'"),
        ({"plan": {"half_width": 1}}, None),
        ({"look_every": 0}, "0 is not a positive whole number"),
    ]
    for change, words in refusals:
        answer = admin.post(API, body | {"name": "again"} | change, format="json")
        assert answer.status_code == 400, (change, answer.content)
        field = next(iter(answer.json()))
        assert field in change, answer.json()
        if words:
            assert str(answer.json()[field]).find(words) >= 0, answer.json()
    assert Study.objects.count() == 1
