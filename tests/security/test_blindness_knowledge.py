"""Blindness with discussion, FAQ and case library switched on.

An expert with rating work still possible on a case sees neither its threads nor its library
entry, through any page or API answer; and no page an expert can reach shows a model's name,
a judge's verdict or reasoning, or other raters' labels of a unit they have not submitted.
"""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from annotation import services as annotation_services
from annotation.models import Assignment, Comment, FaqEntry, LibraryEntry, Unit
from benchmark.models import RubricItem, Verdict
from tests.builders.accounts import PASSWORD, ExpertFactory, UserFactory
from tests.builders.datasets import JudgeFactory, JudgeRunFactory
from tests.builders.labels import all_labels, page_words
from tests.builders.studies import MODEL_NAME_MARKER, dataset_with_responses
from validation import services

pytestmark = pytest.mark.django_db

JUDGE_MARKER = "judge-name-MARKER"
REASONING_MARKER = "JUDGE-REASONING-MARKER"
OTHER_NOTE_MARKER = "OTHER-RATER-NOTE-MARKER"
COMMENT_MARKER = "THREAD-COMMENT-MARKER"
LIBRARY_MARKER = "LIBRARY-NOTE-MARKER"
ALWAYS_FORBIDDEN = [MODEL_NAME_MARKER, JUDGE_MARKER, REASONING_MARKER, OTHER_NOTE_MARKER]


def rate(expert, unit: Unit) -> None:
    """``expert`` rates ``unit`` with a note on every criterion that nobody else may read."""
    slots = set(unit.assignments.filter(status="submitted").values_list("slot", flat=True))
    assignment = Assignment.objects.create(
        pool=unit.pool,
        unit=unit,
        expert=expert,
        slot=min({1, 2, 3} - slots),
        lease_expires_at=timezone.now() + timedelta(minutes=30),
    )
    labels = [dict(label, note=OTHER_NOTE_MARKER) for label in all_labels(assignment)]
    annotation_services.assignment_submit(assignment=assignment, labels=labels)


@pytest.fixture
def world():
    """Two cases × two models. Raters a, b rate everything, c rates all of case D; expert x
    is in the study too. Threads, FAQ and library entries exist for both cases."""
    dataset, models = dataset_with_responses(cases=2, models=2)
    judge = JudgeFactory(name=JUDGE_MARKER)
    for model in models:
        run = JudgeRunFactory(judge=judge, model=model, dataset=dataset)
        for response in model.responses.all():
            for item in RubricItem.objects.filter(case=response.case):
                Verdict.objects.create(
                    run=run, response=response, rubric_item=item, state="met",
                    reasoning=REASONING_MARKER, raw_reply=REASONING_MARKER,
                )  # fmt: skip
    a, b, c, x = ExpertFactory.create_batch(4)
    study = services.study_create(
        name="knowledge-study", dataset=dataset, models=models, fraction=1.0, seed=5,
        experts=[a, b, c, x], show_ability=True,
    )  # fmt: skip
    services.study_open(study=study)
    units = list(study.pool.units.select_related("response__case").order_by("pk"))
    cases = sorted({u.response.case for u in units}, key=lambda case: case.pk)
    case_c, case_d = cases
    for unit in units:
        rate(a, unit)
        rate(b, unit)
        if unit.response.case == case_d:
            rate(c, unit)
    item = case_c.rubric.order_by("position").first()
    annotation_services.comment_post(user=a.user, case=case_c, body=f"{COMMENT_MARKER} case")
    annotation_services.comment_post(
        user=b.user, case=case_c, rubric_item=item, body=f"{COMMENT_MARKER} criterion"
    )
    FaqEntry.objects.create(question="租约多久过期？", answer="三十分钟。", tags=["租约"])
    FaqEntry.objects.create(
        question="How long is a lease?", answer="Thirty minutes.", language="en"
    )
    entry_c = LibraryEntry.objects.create(
        response=units[0].response if units[0].response.case == case_c else units[1].response,
        title="Case C exemplar",
        note=f"{LIBRARY_MARKER} C",
    )
    response_d = next(u.response for u in units if u.response.case == case_d)
    entry_d = LibraryEntry.objects.create(
        response=response_d, title="Case D exemplar", note=f"{LIBRARY_MARKER} D"
    )
    return {
        "study": study,
        "units": units,
        "case_c": case_c,
        "x": x,
        "c": c,
        "entry_c": entry_c,
        "entry_d": entry_d,
    }


def pages_for(client: Client, urls: list[str]) -> list:
    responses = []
    for url in urls:
        response = client.get(url, follow=True)
        responses.append((url, response))
    return responses


def assert_blind(responses, *, also: tuple[str, ...] = ()) -> None:
    for url, response in responses:
        text = response.content.decode()
        for marker in (*ALWAYS_FORBIDDEN, *also):
            assert marker not in text, (url, marker)
        # ("agreement" is allowed: /profile/ shows the expert's own agreement on finished units.)
        for word in ("verdict", "judge", "gold", "kappa"):
            assert word not in page_words(response), (url, word)


def test_pending_work_hides_threads_and_library_entry_everywhere(world):
    x, case_c = world["x"], world["case_c"]
    units_c = [u for u in world["units"] if u.response.case == case_c]
    api = APIClient()
    api.force_authenticate(x.user)
    # x takes one unit of case C through the API and submits it; the other keeps a slot free.
    claimed = api.post("/api/v1/assignments/next/?study=knowledge-study").json()
    assert claimed["unit"]["token"] in {u.token for u in units_c}
    labels = [{"criterion": c["id"], "hit": True} for c in claimed["unit"]["criteria"]]
    submit = api.post(f"/api/v1/assignments/{claimed['id']}/submit/", {"labels": labels},
                      format="json")  # fmt: skip
    assert submit.status_code == 201
    mine = claimed["unit"]["token"]
    other = next(u.token for u in units_c if u.token != mine)

    pages = Client()
    assert pages.login(username=x.user.username, password=PASSWORD)
    entry_c, entry_d = world["entry_c"], world["entry_d"]
    for url in [f"/discuss/{mine}/", f"/discuss/{other}/", f"/library/{entry_c.pk}/"]:
        assert pages.get(url).status_code == 404, url
    comment = Comment.objects.filter(case=case_c).first()
    assert pages.post(f"/discuss/{mine}/post/", {"body": "hello"}).status_code == 404
    assert pages.post(f"/discuss/{mine}/vote/{comment.pk}/", {"value": 1}).status_code == 404
    assert Comment.objects.filter(author=x.user).count() == 0
    done = pages.get("/done/").content.decode()
    assert mine in done and f"/discuss/{mine}/" not in done

    seen = pages_for(pages, ["/", "/done/", "/faq/", "/faq/?q=租约", "/library/",
                             f"/library/{entry_d.pk}/", "/rate/knowledge-study/", "/profile/",
                             "/certificate/"])  # fmt: skip
    library = pages.get("/library/").content.decode()
    assert "Case D exemplar" in library and "Case C exemplar" not in library
    for url in ["/api/v1/studies/", "/api/v1/assignments/completed/",
                f"/api/v1/assignments/{claimed['id']}/"]:  # fmt: skip
        seen.append((url, api.get(url)))
    seen.append(("next", api.post("/api/v1/assignments/next/?study=knowledge-study")))
    assert_blind(seen, also=(COMMENT_MARKER, f"{LIBRARY_MARKER} C"))
    for _url, response in seen:
        if response.get("Content-Type", "").startswith("application/json") and response.content:
            assert "comment" not in json.dumps(response.json()).lower()


def test_once_nothing_is_left_to_rate_the_threads_open_still_blind(world):
    x, c, case_c = world["x"], world["c"], world["case_c"]
    units_c = [u for u in world["units"] if u.response.case == case_c]
    rate(x, units_c[0])
    rate(c, units_c[1])  # the last free slot on case C is gone
    pages = Client()
    assert pages.login(username=x.user.username, password=PASSWORD)
    done = pages.get("/done/").content.decode()
    assert f"/discuss/{units_c[0].token}/" in done
    page = pages.get(f"/discuss/{units_c[0].token}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert f"{COMMENT_MARKER} case" in text and f"{COMMENT_MARKER} criterion" in text
    assert pages.get(f"/discuss/{units_c[1].token}/").status_code == 404  # not x's unit
    entry_c = world["entry_c"]
    library = pages.get(f"/library/{entry_c.pk}/")
    assert library.status_code == 200 and f"{LIBRARY_MARKER} C" in library.content.decode()
    # x posts and votes; the pages stay free of models, judges and other raters' labels.
    comment = Comment.objects.filter(case=case_c).first()
    posted = pages.post(f"/discuss/{units_c[0].token}/post/", {"body": "我同意", "criterion": ""})
    assert posted.status_code == 302
    voted = pages.post(f"/discuss/{units_c[0].token}/vote/{comment.pk}/", {"value": "1"})
    assert voted.status_code == 302 and comment.votes.get().value == 1
    seen = pages_for(pages, [f"/discuss/{units_c[0].token}/", "/library/",
                             f"/library/{entry_c.pk}/", "/done/"])  # fmt: skip
    assert_blind(seen)
    # The same pages do name the model for staff: the check above can see a leak.
    staff = Client()
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert MODEL_NAME_MARKER in staff.get(f"/library/{entry_c.pk}/").content.decode()


def test_hidden_comment_reaches_no_expert_page(world):
    x, c, case_c = world["x"], world["c"], world["case_c"]
    units_c = [u for u in world["units"] if u.response.case == case_c]
    rate(x, units_c[0])
    rate(c, units_c[1])
    admin = UserFactory(is_staff=True, is_superuser=True)
    hidden = annotation_services.comment_post(user=admin, case=case_c, body="HIDDEN-MARKER")
    annotation_services.comment_set_hidden(comment=hidden, hidden=True, actor=admin)
    pages = Client()
    assert pages.login(username=x.user.username, password=PASSWORD)
    assert "HIDDEN-MARKER" not in pages.get(f"/discuss/{units_c[0].token}/").content.decode()
    assert (
        pages.post(f"/discuss/{units_c[0].token}/vote/{hidden.pk}/", {"value": 1}).status_code
        == 404
    )
    staff = Client()
    staff.force_login(admin)
    assert "HIDDEN-MARKER" in staff.get(f"/discuss/{units_c[0].token}/").content.decode()
