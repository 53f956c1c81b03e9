"""A world for the hostile-input tests: every kind of user with something to write to."""

import json

from django.test import Client
from rest_framework.test import APIClient

from annotation.selectors import knowledge
from tests.builders.accounts import ExpertFactory
from tests.builders.adjudication import split_study
from validation import services


def api_for(user) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


def page_for(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def send_json(client, method: str, url: str, body) -> object:
    raw = body if isinstance(body, str | bytes) else json.dumps(body)
    return getattr(client, method)(url, raw, content_type="application/json")


def hostile_world() -> dict:
    """A split unit rated by three raters (so they may flag it and discuss its case) and
    waiting for a senior; a second study where a fourth expert holds a claimed unit."""
    study, raters, senior = split_study(splits=["*"], name="hostile")
    rater = raters[0]
    rated = rater.assignments.get(pool=study.pool)
    senior_api = api_for(senior.user)
    decision = senior_api.post("/api/v1/adjudications/next/?study=hostile").json()
    labeller = ExpertFactory()
    second = services.study_create(
        name="hostile-b", dataset=study.dataset, models=list(study.models_under_test.all()),
        fraction=1.0, seed=7, experts=[labeller],
    )  # fmt: skip
    services.study_open(study=second)
    claim = api_for(labeller.user).post("/api/v1/assignments/next/?study=hostile-b").json()
    (token,) = knowledge.unit_tokens_open_for_discussion(user=rater.user, unit_ids=[rated.unit_id])
    return {
        "study": study,
        "rater": rater,
        "rated": str(rated.public_id),
        "senior": senior,
        "decision": decision,
        "labeller": labeller,
        "claim": claim,
        "discussion": token,
    }
