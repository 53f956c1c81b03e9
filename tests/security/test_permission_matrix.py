"""Every URL in the URLconf × anonymous, expert, senior, admin and an expert of another study.

The table below names, for each route, the statuses each role may get. A route the table does
not list fails the test, so a new URL cannot ship without deciding who may use it. Every answer
to an expert is also checked for the things blindness forbids.
"""

import re
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotation.models import Assignment
from benchmark.models import DraftCase
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.datasets import (
    DatasetFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.selfcheck import selfcheck_world
from tests.builders.studies import MODEL_NAME_MARKER, open_study
from validation import services

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "expert", "senior", "admin", "other")
PROJECT = "pilot"  # the self-check world's construction project
LOGIN = (302,)  # sent to a login page
# Admin sub-URLs are checked through each registered model's changelist and add page below.
ADMIN_CATCH_ALL = {
    "admin:app_list", "admin:autocomplete", "admin:jsi18n", "admin:view_on_site",
    "admin:<unnamed>",  # the admin's final catch-all: redirects or 404s
}  # fmt: skip


@dataclass(frozen=True)
class Route:
    method: str
    url: str
    allowed: dict[str, tuple[int, ...]]
    body: dict | None = None


def routes(assignment_id: str) -> dict[str, Route]:
    detail = f"/api/v1/assignments/{assignment_id}/"
    expert_pk = Assignment.objects.get(public_id=assignment_id).expert_id
    draft = selfcheck_draft_of_expert()
    staff_only = {"anonymous": LOGIN, "expert": LOGIN, "senior": LOGIN, "admin": (200,),
                  "other": LOGIN}  # fmt: skip
    api_expert = {"anonymous": (401,), "expert": (200,), "senior": (200,), "admin": (403,),
                  "other": (200,)}  # fmt: skip
    owner_only = {"anonymous": (401,), "expert": (200,), "senior": (404,), "admin": (403,),
                  "other": (404,)}  # fmt: skip
    knowledge_pages = {"anonymous": LOGIN, "expert": (200,), "senior": (200,), "admin": (200,),
                       "other": (200,)}  # fmt: skip
    closed_discussion = {"anonymous": LOGIN, "expert": (404,), "senior": (404,),
                         "admin": (404,), "other": (404,)}  # fmt: skip
    senior_only = {"anonymous": LOGIN, "expert": (403,), "senior": (200,), "admin": (403,),
                   "other": (403,)}  # fmt: skip
    api_senior = {"anonymous": (401,), "expert": (403,), "senior": (404,), "admin": (403,),
                  "other": (403,)}  # fmt: skip
    api_staff = {"anonymous": (401,), "expert": (403,), "senior": (403,), "admin": (200,),
                 "other": (403,)}  # fmt: skip
    expert_pages = {"anonymous": LOGIN, "expert": (200,), "senior": (200,), "admin": (403,),
                    "other": (200,)}  # fmt: skip
    not_theirs = {**expert_pages, "expert": (404,), "senior": (404,), "other": (404,)}
    # The API's schema and docs describe shapes only, no data: public, as the API tests expect.
    public = dict.fromkeys(ROLES, (200,))
    table = {
        "frontend:home": Route("GET", "/", {"anonymous": LOGIN, "expert": (200,),
                               "senior": (200,), "admin": (302,), "other": (200,)}),
        "frontend:login": Route("GET", "/login/", {"anonymous": (200,), "expert": (302,),
                                "senior": (302,), "admin": (302,), "other": (302,)}),
        "frontend:logout": Route("POST", "/logout/", dict.fromkeys(ROLES, (302,))),
        "frontend:workbench": Route("GET", "/rate/study-a/", {"anonymous": LOGIN,
                                    "expert": (200,), "senior": (200,), "admin": (403,),
                                    "other": (404,)}),
        "frontend:completed": Route("GET", "/done/", {"anonymous": LOGIN, "expert": (200,),
                                    "senior": (200,), "admin": (403,), "other": (200,)}),
        # The claimed assignment is not submitted: nothing to look back at, even for its owner.
        "frontend:submitted-unit": Route("GET", f"/done/{assignment_id}/", {"anonymous": LOGIN,
                                         "expert": (404,), "senior": (404,), "admin": (403,),
                                         "other": (404,)}),
        "frontend:profile": Route("GET", "/profile/", {"anonymous": LOGIN, "expert": (200,),
                                  "senior": (200,), "admin": (403,), "other": (200,)}),
        "frontend:certificate": Route("GET", "/certificate/", {"anonymous": LOGIN,
                                      "expert": (200,), "senior": (200,), "admin": (403,),
                                      "other": (200,)}),
        # Knowledge pages: experts and staff read; the unit here was never submitted, so its
        # discussion is closed to every expert (and an unknown token to staff too).
        "frontend:faq": Route("GET", "/faq/", knowledge_pages),
        "frontend:library": Route("GET", "/library/", knowledge_pages),
        "frontend:library-entry": Route("GET", "/library/999999/", {**knowledge_pages,
                                        "expert": (404,), "senior": (404,), "admin": (404,),
                                        "other": (404,)}),
        "frontend:discussion": Route("GET", "/discuss/no-such-unit/", closed_discussion),
        "frontend:discussion-post": Route("POST", "/discuss/no-such-unit/post/",
                                          closed_discussion, {"body": "x"}),
        "frontend:discussion-vote": Route("POST", "/discuss/no-such-unit/vote/1/",
                                          closed_discussion, {"value": 1}),
        # Aggregates only (blindness holds: see tests/frontend/test_leaderboard.py).
        "frontend:leaderboard": Route("GET", "/leaderboard/", {"anonymous": LOGIN,
                                      "expert": (200,), "senior": (200,), "admin": (200,),
                                      "other": (200,)}),
        # The admin's link sends staff on to /leaderboard/ (one page for everyone).
        "benchmark:leaderboard": Route("GET", "/admin/leaderboard/", {**staff_only,
                                       "admin": (302,)}),
        "admin:index": Route("GET", "/admin/", staff_only),
        "admin:login": Route("GET", "/admin/login/", {"anonymous": (200,), "expert": (200,),
                             "senior": (200,), "admin": (302,), "other": (200,)}),
        "admin:logout": Route("POST", "/admin/logout/", dict.fromkeys(ROLES, (302,))),
        "admin:password_change": Route("GET", "/admin/password_change/", staff_only),
        "validation:study-report": Route("GET", "/admin/studies/study-a/report/", staff_only),
        "validation:study-export": Route("GET", "/admin/studies/study-a/export/", staff_only),
        "validation:study-disagreements": Route("GET", "/admin/studies/study-a/disagreements/",
                                                staff_only),
        "validation:study-disagreements-csv": Route(
            "GET", "/admin/studies/study-a/disagreements.csv", staff_only
        ),
        "annotation:token": Route("POST", "/api/v1/auth/token/", dict.fromkeys(ROLES, (400,)),
                                  {"username": "nobody", "password": "wrong"}),
        "annotation:studies": Route("GET", "/api/v1/studies/", api_expert),
        "annotation:assignment-next": Route("POST", "/api/v1/assignments/next/?study=study-a",
                                 {**api_expert, "expert": (200, 201), "senior": (201,),
                                  "other": (403, 404)}),
        "annotation:assignment-completed": Route("GET", "/api/v1/assignments/completed/",
                                                 api_expert),
        "annotation:progress": Route("GET", "/api/v1/studies/study-a/progress/",
                                     {**api_expert, "other": (404,)}),
        # Revising checks the labels first (400), flagging finds the unit not submitted (409).
        "annotation:assignment-revise": Route("POST", detail + "revise/",
                                              {**owner_only, "expert": (400,)}, {"labels": []}),
        "annotation:assignment-flag": Route("POST", detail + "flag/",
                                            {**owner_only, "expert": (409,)}, {"reason": "x"}),
        "annotation:assignment-detail": Route("GET", detail, owner_only),
        "annotation:assignment-draft": Route("PUT", detail + "draft/", owner_only, {"labels": []}),
        "annotation:assignment-renew": Route("POST", detail + "renew/", owner_only),
        "annotation:assignment-submit": Route("POST", detail + "submit/",
                                   {**owner_only, "expert": (400,)}, {"labels": []}),
        # The senior queue: seniors only. No unit waits in this world (204), and a senior who
        # holds a unit to rate in the study finishes it first (409: one open lease per study).
        # Another expert's assignment is no adjudication of the senior's (404).
        "frontend:adjudication-home": Route("GET", "/adjudicate/", senior_only),
        # The absolute standards: senior experts write them here, staff in the admin.
        "frontend:standards": Route("GET", "/standards/", senior_only),
        "frontend:standard-edit": Route("GET", "/standards/warmth/", senior_only),
        "frontend:adjudicate": Route("GET", "/adjudicate/study-a/", senior_only),
        # Self-check: the expert wrote the draft's rubric. Only they label and revise (an
        # empty reason is refused by a redirect back); staff read; anyone else finds nothing.
        "frontend:selfcheck": Route("GET", "/construct/selfcheck/",
                                    {**dict.fromkeys(ROLES, (200,)), "anonymous": LOGIN}),
        "frontend:selfcheck-draft": Route("GET", draft.page, {"anonymous": LOGIN,
                                          "expert": (200,), "senior": (404,), "admin": (200,),
                                          "other": (404,)}),
        "frontend:selfcheck-label": Route("GET", draft.label, {"anonymous": LOGIN,
                                          "expert": (200,), "senior": (404,), "admin": (403,),
                                          "other": (404,)}),
        "frontend:selfcheck-revise": Route("POST", draft.revise, {"anonymous": LOGIN,
                                           "expert": (302,), "senior": (404,), "admin": (403,),
                                           "other": (404,)}, {"reason": ""}),
        # Construction work: any active expert; a task, criterion or draft not theirs is 404
        # (the panel's seniors-only rule is the claim's, tested in its own files).
        "frontend:construct": Route("GET", "/construct/", expert_pages),
        "frontend:construct-revisions": Route("GET", "/construct/revisions/", expert_pages),
        "frontend:construct-start": Route("POST", "/construct/start/999999/", not_theirs),
        "frontend:construct-task": Route("GET", "/construct/task/999999/", not_theirs),
        "frontend:construct-criterion": Route("POST", "/construct/criteria/999999/",
                                              not_theirs, {"action": "remove"}),
        "frontend:construct-send": Route("POST", "/construct/send/999999/", not_theirs),

        "frontend:flag-answer": Route("GET", "/adjudicate/flags/999999/",
                                      {**senior_only, "senior": (404,)}),
        "annotation:adjudication-next": Route("POST", "/api/v1/adjudications/next/?study=study-a",
                                     {**api_senior, "senior": (204, 409)}),
        "annotation:adjudication-detail": Route("GET", f"/api/v1/adjudications/{assignment_id}/",
                                       api_senior),
        "annotation:adjudication-submit": Route(
            "POST", f"/api/v1/adjudications/{assignment_id}/submit/", api_senior,
            {"decisions": []}),
        # Admin dashboards: staff only; the polled JSON answers 403 instead of a login page.
        # Posts without a unit/expert are refused by the page (302 back, or 404 for no expert).
        "dashboard:overview": Route("GET", "/admin/dashboard/", staff_only),
        "dashboard:runs": Route("GET", "/admin/dashboard/runs/", staff_only),
        "dashboard:runs-json": Route("GET", "/admin/dashboard/runs.json",
                                     {**dict.fromkeys(ROLES, (403,)), "admin": (200,)}),
        "dashboard:study": Route("GET", "/admin/dashboard/studies/study-a/", staff_only),
        "dashboard:route": Route("POST", "/admin/dashboard/studies/study-a/route/",
                                 dict.fromkeys(ROLES, (302,))),
        "dashboard:recalibrate": Route("POST", "/admin/dashboard/studies/study-a/recalibrate/",
                                       {**staff_only, "admin": (404,)}),
        "dashboard:deactivate": Route("POST", "/admin/dashboard/studies/study-a/deactivate/",
                                      {**staff_only, "admin": (404,)}),
        "dashboard:retry-run": Route("POST", "/admin/dashboard/runs/999999/retry/",
                                     {**staff_only, "admin": (404,)}),
        "dashboard:due-date": Route("POST", "/admin/dashboard/studies/study-a/due-date/",
                                    dict.fromkeys(ROLES, (302,))),
        # Unconfirmed: the page sends staff back with an error; the study stays open.
        "dashboard:stop-early": Route("POST", "/admin/dashboard/studies/study-a/stop-early/",
                                      dict.fromkeys(ROLES, (302,))),
        # The import page: staff only (uploads: tests/frontend/test_manage_import.py).
        "manage:import": Route("GET", "/admin/manage/import/", staff_only),
        # Experts (tests/frontend/test_manage_experts.py): staff only; the writes name an
        # expert who is not there, so staff get a 404 and nobody's work changes.
        "manage:experts": Route("GET", "/admin/manage/experts/", staff_only),
        "manage:expert-new": Route("GET", "/admin/manage/experts/new/", staff_only),
        "manage:expert": Route("GET", f"/admin/manage/experts/{expert_pk}/", staff_only),
        "manage:expert-invite": Route("POST", "/admin/manage/experts/999999/invite/",
                                      {**staff_only, "admin": (404,)}),
        "manage:expert-active": Route("POST", "/admin/manage/experts/999999/active/",
                                      {**staff_only, "admin": (404,)}),
        # An invitation link is public; a forged one is refused alike for everyone.
        "frontend:invite": Route("GET", "/invite/AAAA/x-y/", dict.fromkeys(ROLES, (404,))),
        # A study from the browser: study-a is open already and nobody is ticked or confirmed,
        # so staff are sent back with the reason and nothing changes; no study "gone" exists.
        "manage:study-new": Route("GET", "/admin/manage/studies/new/", staff_only),
        "manage:study-new-pairwise": Route(
            "GET", "/admin/manage/studies/new-pairwise/", staff_only
        ),
        "manage:study-open": Route("POST", "/admin/manage/studies/study-a/open/",
                                   dict.fromkeys(ROLES, (302,))),
        "manage:study-enrol": Route("POST", "/admin/manage/studies/study-a/enrol/",
                                    dict.fromkeys(ROLES, (302,))),
        "manage:study-close": Route("POST", "/admin/manage/studies/study-a/close/",
                                    dict.fromkeys(ROLES, (302,))),
        "manage:study-delete": Route("POST", "/admin/manage/studies/gone/delete/",
                                     {**staff_only, "admin": (404,)}),
        # The admin API: staff only. It opens the draft study and closes study-b (the admin's
        # last use of either), and reads study-a.
        "admin-api:studies": Route("GET", "/api/v1/admin/studies/", api_staff),
        "admin-api:study": Route("GET", "/api/v1/admin/studies/study-a/", api_staff),
        "admin-api:open": Route("POST", "/api/v1/admin/studies/study-draft/open/", api_staff),
        "admin-api:close": Route("POST", "/api/v1/admin/studies/study-b/close/", api_staff, {}),
        "admin-api:progress": Route("GET", "/api/v1/admin/studies/study-a/progress/", api_staff),
        "admin-api:report": Route("GET", "/api/v1/admin/studies/study-a/report/?format=csv",
                                  api_staff),
        "admin-api:export": Route("GET", "/api/v1/admin/studies/study-a/export/", api_staff),
        **work_routes(api_expert),
        "schema": Route("GET", "/api/schema/", public),
        "api-docs": Route("GET", "/api/docs/", public),
        # The language switch and the scripts' string catalogue hold no data: open to all.
        "set_language": Route("POST", "/i18n/setlang/", dict.fromkeys(ROLES, (302,))),
        "javascript-catalog": Route("GET", "/jsi18n/", public),
        "favicon": Route("GET", "/favicon.ico", dict.fromkeys(ROLES, (302,))),  # to the icon
    }  # fmt: skip
    # A senior's lease in the senior queue is renewed in its own path now, as any assignment's.
    renew = table["annotation:assignment-renew"]
    table["annotation:work-adjudication-renew"] = Route(
        "POST", f"/api/v1/work/adjudication/{assignment_id}/renew/", renew.allowed
    )
    return table | study_work_routes(table)


def study_work_routes(table: dict[str, Route]) -> dict[str, Route]:
    """Study work in the one shape (/api/v1/work/rating/, /api/v1/work/adjudication/): the same
    rows as the first clients' paths, which stay served."""
    moved = {"annotation:assignment-": ("/api/v1/assignments/", "work-rating-",
                                        "/api/v1/work/rating/"),
             "annotation:adjudication-": ("/api/v1/adjudications/", "work-adjudication-",
                                          "/api/v1/work/adjudication/")}  # fmt: skip
    rows = {}
    for name, route in table.items():
        for prefix, (old, new_name, new) in moved.items():
            if name.startswith(prefix):
                operation = name.removeprefix(prefix)
                url = route.url.replace(old, new)
                rows[f"annotation:{new_name}{operation}"] = Route(
                    route.method, url, route.allowed, route.body
                )
    return rows


def work_routes(api_expert: dict) -> dict[str, Route]:
    """The construction work API: no work is open on the world's project, and no task has the
    id asked for, so an expert gets 404 (the panel's claim: 403 before a senior's 404)."""
    task = "/api/v1/work/{kind}/00000000-0000-4000-8000-000000000000/"
    not_found = {**api_expert, "expert": (404,), "senior": (404,), "other": (404,)}
    answers = {"difficulty": {"difficulty": "normal"}, "criterion_review": {"verdicts": []},
               "panel": {"vote": "accept"}}  # fmt: skip
    rows = {}
    for kind, answer in answers.items():
        claim = {**not_found, "expert": (403,), "other": (403,)} if kind == "panel" else not_found
        rows |= {
            f"annotation:work-{kind}-next": Route(
                "POST", f"/api/v1/work/{kind}/next/?project={PROJECT}", claim
            ),
            f"annotation:work-{kind}-detail": Route("GET", task.format(kind=kind), not_found),
            f"annotation:work-{kind}-renew": Route(
                "POST", task.format(kind=kind) + "renew/", not_found
            ),
            f"annotation:work-{kind}-submit": Route(
                "POST", task.format(kind=kind) + "submit/", not_found, answer
            ),
        }
    return rows


def selfcheck_draft_of_expert() -> SimpleNamespace:
    """The self-check pages of the world's draft (its first chosen response and criterion)."""
    draft = DraftCase.objects.get(author__isnull=False)
    response, criterion = draft.responses.order_by("model__name")[0], draft.criteria.first()
    page = f"/construct/selfcheck/{draft.pk}/"
    return SimpleNamespace(page=page, label=f"{page}responses/{response.pk}/",
                           revise=f"{page}criteria/{criterion.pk}/revise/")  # fmt: skip


def url_names() -> set[str]:
    names: set[str] = set()

    def walk(resolver: URLResolver, namespace: str) -> None:
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
                walk(entry, inner)
            elif isinstance(entry, URLPattern):
                names.add(f"{namespace}{entry.name}" if entry.name else f"{namespace}<unnamed>")

    walk(get_resolver(), "")
    return names


@pytest.fixture
def world():
    expert = ExpertFactory()
    senior = ExpertFactory(tier="senior")
    other = ExpertFactory()
    study_a = open_study(cases=3, experts=[expert, senior], name="study-a")
    other_study(expert=other)
    services.study_create(
        name="study-draft", dataset=study_a.dataset, models=study_a.models_under_test.all(),
        fraction=1.0, seed=1, experts=[],
    )  # fmt: skip
    admin_user = UserFactory(is_staff=True, is_superuser=True)
    selfcheck_world(author=expert.user)
    users = {"expert": expert.user, "senior": senior.user, "admin": admin_user,
             "other": other.user}  # fmt: skip
    claimer = Client()
    claimer.force_login(expert.user)
    assert claimer.post("/api/v1/assignments/next/?study=study-a").status_code == 201
    assignment = Assignment.objects.get(expert=expert)
    return users, str(assignment.public_id)


def other_study(*, expert) -> None:
    """A second open study with its own model (open_study's model names would collide)."""
    dataset = DatasetFactory()
    model = ModelUnderTestFactory()
    ResponseFactory(model=model, case=case_with_rubric(dataset=dataset))
    study = services.study_create(
        name="study-b", dataset=dataset, models=[model], judge_runs=[], fraction=1.0, seed=1,
        experts=[expert],
    )  # fmt: skip
    services.study_open(study=study)


def client_for(role: str, users: dict) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(users[role])
    return client


def call(client: Client, route: Route):
    method = getattr(client, route.method.lower())
    if route.body is None:
        return method(route.url)
    return method(route.url, route.body, content_type="application/json")


def test_the_matrix_covers_every_route_in_the_urlconf(world):
    _, assignment_id = world
    missing = url_names() - set(routes(assignment_id)) - ADMIN_CATCH_ALL
    # Admin model pages are named admin:<app>_<model>_<view>; they are covered below.
    missing = {name for name in missing if not re.match(r"admin:\w+_\w+_", name)}
    assert not missing, f"routes with no row in the permission matrix: {sorted(missing)}"


@pytest.mark.parametrize("role", ROLES)
def test_each_role_gets_only_what_the_matrix_allows(world, role):
    users, assignment_id = world
    failures = []
    for name, route in routes(assignment_id).items():
        response = call(client_for(role, users), route)
        if response.status_code not in route.allowed[role]:
            failures.append(f"{name} {route.method} {route.url}: {response.status_code}")
        if role != "admin" and MODEL_NAME_MARKER in response.content.decode(errors="replace"):
            failures.append(f"{name}: the model's name reached {role}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("role", ROLES)
def test_admin_model_pages_are_for_staff_only(world, role):
    users, _ = world
    client = client_for(role, users)
    for model in admin.site._registry:
        meta = model._meta
        for view in ("changelist", "add"):
            url = reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}")
            status = client.get(url).status_code
            if role == "admin":
                # Read-only models have no add page (403); everything else opens.
                assert status in (200, 403), f"{url}: {status}"
                if view == "changelist":
                    assert status == 200, f"{url}: {status}"
            else:
                assert status == 302, f"{role} got {status} on {url}"
