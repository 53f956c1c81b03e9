"""Study names: the rule new names follow, pages that survive any name already stored, and the
admin's delete of a study taking its pool along (or refusing when experts worked on it)."""

import html
import itertools
import re

import pytest
from django.core.management import CommandError, call_command
from django.forms import modelform_factory
from django.test import Client

from annotation import services as annotation_services
from annotation.models import Pool, Unit
from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.datasets import (
    DatasetFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.labels import all_labels
from validation import services
from validation.models import Study, StudyUnit

pytestmark = pytest.mark.django_db
_numbers = itertools.count()


def study_on_new_data(*, name: str, experts, judge: bool = False, cases: int = 2) -> Study:
    """A study over a dataset and model of its own (so several fit in one test)."""
    dataset = DatasetFactory()
    model = ModelUnderTestFactory()
    for position in range(cases):
        ResponseFactory(model=model, case=case_with_rubric(dataset=dataset, position=position))
    runs = [JudgeRunFactory(model=model, dataset=dataset)] if judge else []
    return services.study_create(
        name=name, dataset=dataset, models=[model], judge_runs=runs, fraction=1.0, seed=3,
        experts=experts,
    )  # fmt: skip


def stored_as(study: Study, name: str) -> Study:
    """Rename a study and its pool in the database, as if stored before names were checked."""
    Study.objects.filter(pk=study.pk).update(name=name)
    Pool.objects.filter(pk=study.pool_id).update(name=name)
    study.refresh_from_db()
    study.pool.refresh_from_db()
    return study


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def links(page: str, prefix: str) -> list[str]:
    found = [html.unescape(h) for h in re.findall(r'(?:href|action)="([^"]+)"', page)]
    return sorted({h for h in found if h.startswith(prefix)})


# ---- the rule for new names -----------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["pilot", "pilot-2025_v1.2", "心理咨询-试点", "P1", "a" * 100, "Ärzte.2"]
)
def test_names_of_letters_digits_dash_underscore_and_dot_are_accepted(name):
    study = study_on_new_data(name=name, experts=[])
    assert study.name == name == study.pool.name


@pytest.mark.parametrize(
    "name", ["a/b c", "a b", "", "a" * 101, "-pilot", ".", "..", "_x", "a?b", "a#b", "a%2Fb",
             "pilot\n", "试点，一"]
)  # fmt: skip
def test_other_names_are_refused_saying_what_is_allowed(name):
    with pytest.raises(services.StudyError, match=r"letters .*digits.*'-', '_' and '\.'.*100"):
        study_on_new_data(name=name, experts=[])
    assert not Study.objects.exists() and not Pool.objects.exists()


def test_the_command_refuses_a_bad_name_in_one_line_and_writes_nothing():
    dataset = DatasetFactory()
    model = ModelUnderTestFactory()
    ResponseFactory(model=model, case=case_with_rubric(dataset=dataset))
    with pytest.raises(CommandError) as refused:
        call_command("study", "create", "a/b c", "--dataset", dataset.name, "--models",
                     model.name)  # fmt: skip
    assert "\n" not in str(refused.value) and "'a/b c'" in str(refused.value)
    assert not Study.objects.exists() and not Pool.objects.exists()


def test_any_form_over_the_study_name_checks_the_same_rule():
    form_class = modelform_factory(Study, fields=["name"])
    assert not form_class(data={"name": "a/b c"}).is_valid()
    assert "letters" in form_class(data={"name": "a/b c"}).errors["name"][0]
    assert form_class(data={"name": "试点-1"}).is_valid()


# ---- every page survives every stored name --------------------------------------------------


@pytest.fixture
def stored_names():
    """An open study, a closed one with a judge (badge and senior queue) and an orphan pool
    (its study deleted before deletes took the pool along), all under names no rule allows."""
    expert = ExpertFactory()
    senior = ExpertFactory(tier="senior")
    opened = study_on_new_data(name="opened", experts=[expert, senior])
    services.study_open(study=opened)
    stored_as(opened, "a/b c")
    closed = study_on_new_data(name="closed", experts=[expert, senior], judge=True)
    services.study_open(study=closed)
    services.study_close(study=closed)  # nobody rated: every unit waits for the senior
    stored_as(closed, "../x?y#%z 100%")
    orphan = study_on_new_data(name="orphan", experts=[expert, senior])
    services.study_open(study=orphan)
    services.study_close(study=orphan)
    stored_as(orphan, "..")
    Study.objects.filter(pk=orphan.pk).delete()
    admin_user = UserFactory(is_staff=True, is_superuser=True)
    return {"expert": expert.user, "senior": senior.user, "admin": admin_user}, closed


def test_every_page_and_every_link_survives_any_stored_name(stored_names):
    users, closed = stored_names
    judge = closed.judge_runs.get().judge.name
    pages = {
        "expert": ["/", "/done/", "/profile/", "/leaderboard/"],
        "senior": ["/", "/done/", "/adjudicate/", "/leaderboard/"],
        "admin": ["/admin/", "/admin/dashboard/", "/admin/validation/study/",
                  "/admin/annotation/pool/", "/admin/validation/studyunit/",
                  f"/leaderboard/?dataset={closed.dataset.name}&judge={judge}"],
    }  # fmt: skip
    followed = {"expert": ["/rate/"], "senior": ["/rate/", "/adjudicate/"],
                "admin": ["/admin/dashboard/studies/", "/admin/studies/"]}  # fmt: skip
    seen = set()
    for role, urls in pages.items():
        client = logged_in(users[role])
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (role, url, response.status_code)
            page = response.content.decode()
            for prefix in followed[role]:
                for link in links(page, prefix):
                    if link.rstrip("/") in {"/adjudicate", "/rate"}:
                        continue
                    answer = client.get(link)
                    assert answer.status_code == 200, (role, link, answer.status_code)
                    seen.add((role, prefix))
    # Each kind of link was there to follow: the workbench, the senior's queue of the closed
    # study and of the orphan pool, the dashboard's study page and the report.
    assert seen == {(r, p) for r, prefixes in followed.items() for p in prefixes}
    senior_queue = logged_in(users["senior"]).get("/adjudicate/").content.decode()
    assert len(links(senior_queue, "/adjudicate/")) == 4  # the page itself and three pools


def test_a_link_leads_to_the_study_of_that_name():
    expert = ExpertFactory()
    for name in ("a/b", "a"):
        study = study_on_new_data(name=f"n{next(_numbers)}", experts=[expert])
        services.study_open(study=study)
        stored_as(study, name)
    client = logged_in(expert.user)
    workbenches = links(client.get("/").content.decode(), "/rate/")
    assert len(workbenches) == 2
    assert {client.get(link).context["study"] for link in workbenches} == {"a/b", "a"}


# ---- deleting a study in the admin ----------------------------------------------------------


def test_deleting_an_unworked_study_in_the_admin_deletes_its_pool_too():
    expert = ExpertFactory()
    study = study_on_new_data(name="gone", experts=[expert])
    services.study_open(study=study)
    annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)  # a lease only
    admin_client = logged_in(UserFactory(is_staff=True, is_superuser=True))
    url = f"/admin/validation/study/{study.pk}/delete/"
    confirm = admin_client.get(url).content.decode()
    assert "Pool: gone" in confirm  # the pool is listed among what goes
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Study.objects.exists() and not Pool.objects.exists() and not Unit.objects.exists()
    event = AuditEvent.objects.get(action="study.delete")
    assert event.data["name"] == "gone" and event.data["units"] == 2
    assert logged_in(expert.user).get("/").status_code == 200


def test_a_study_experts_worked_on_cannot_be_deleted_and_the_admin_is_told_why():
    expert = ExpertFactory()
    study = study_on_new_data(name="worked", experts=[expert])
    services.study_open(study=study)
    assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
    annotation_services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    admin_client = logged_in(UserFactory(is_staff=True, is_superuser=True))
    url = f"/admin/validation/study/{study.pk}/delete/"
    page = admin_client.post(url, {"post": "yes"}).content.decode()
    assert "1 submission" in page and "close the study instead" in page
    bulk = admin_client.post(
        "/admin/validation/study/",
        {"action": "delete_selected", "_selected_action": [study.pk], "post": "yes"},
    ).content.decode()
    assert "close the study instead" in bulk
    assert Study.objects.filter(pk=study.pk).exists() and Pool.objects.count() == 1
    assert StudyUnit.objects.count() == 2
    with pytest.raises(services.StudyError, match="1 submission"):
        services.study_delete(study=study)
    assert not AuditEvent.objects.filter(action="study.delete").exists()
