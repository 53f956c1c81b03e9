"""The demo's public logins never join real studies, and `heartbench demo-remove` takes every
demo row away before real work (production refuses to start while a public login is open)."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import models
from django.test import override_settings

from annotation import services as annotation_services
from annotation.models import Assignment, Expert, Label, Submission
from benchmark.models import Dataset, JudgeRun, ModelUnderTest, Response, Verdict
from config.cli_exits import UsageError
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import dataset_with_responses
from validation import services
from validation.models import Study

pytestmark = pytest.mark.django_db


def demo_platform():
    """What `make run` leaves: the demo data, its study, its experts (one unit split)."""
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    call_command("demo_study", stdout=out)
    return out.getvalue()


def real_study(name="real-study", experts=None):
    experts = experts or ExpertFactory.create_batch(3)
    dataset, mods = dataset_with_responses(cases=2)
    study = services.study_create(
        name=name, dataset=dataset, models=mods, fraction=1, seed=1, experts=experts
    )
    return services.study_open(study=study), experts


def test_demo_experts_are_marked_and_never_enrolled_in_a_study_of_real_data():
    printed = demo_platform()
    assert "heartbench demo-remove" in printed
    demo = Expert.objects.filter(is_demo=True)
    assert sorted(demo.values_list("user__username", flat=True)) == [
        "demo-expert-1", "demo-expert-2", "demo-expert-3", "demo-senior",
    ]  # fmt: skip
    real = ExpertFactory.create_batch(3)
    dataset, mods = dataset_with_responses(cases=2)
    # "Every active expert" leaves them out, at creation and at enrolment.
    study = services.study_create(name="real", dataset=dataset, models=mods, fraction=1, seed=1)
    assert not study.pool.experts.filter(is_demo=True).exists()
    assert set(study.pool.experts.all()) == set(real)
    services.study_enrol(study=study, all_active=True)
    assert not study.pool.experts.filter(is_demo=True).exists()
    # Named, they are refused, and nobody is enrolled.
    newcomer = ExpertFactory()
    with pytest.raises(services.StudyError, match="demo accounts never rate real data"):
        services.study_enrol(study=study, usernames=[newcomer.user.username, "demo-expert-1"])
    assert not study.pool.experts.filter(pk=newcomer.pk).exists()
    with pytest.raises(services.StudyError, match="demo-senior"):
        services.study_create(
            name="real-2", dataset=dataset, models=mods, fraction=1, seed=1, experts=list(demo)
        )
    # On demo data they may rate (the demo study itself).
    assert Study.objects.get(name="demo-study").pool.experts.filter(is_demo=True).count() == 4


def test_demo_remove_deletes_every_demo_row_and_nothing_real():
    demo_platform()
    study, experts = real_study()
    for expert in experts:
        a = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
        annotation_services.assignment_submit(assignment=a, labels=all_labels(a))
    # A demo login enrolled in the real study by hand (as before the rule), with real work.
    legacy = Expert.objects.get(user__username="demo-expert-3")
    study.pool.experts.add(legacy)
    work = annotation_services.assignment_claim_next(user=legacy.user, pool=study.pool)
    annotation_services.assignment_submit(assignment=work, labels=all_labels(work))
    real_models = [Submission, Label, Assignment, Response, Verdict]
    real_before = {
        m._meta.label: m._base_manager.exclude(**{_to_dataset(m): True}).count()
        for m in real_models
    }

    out = io.StringIO()
    call_command("demo_remove", stdout=out)
    printed = out.getvalue()
    assert "removed" in printed and "kept demo-expert-3" in printed
    assert "changepassword admin" in printed
    assert not Dataset.objects.filter(is_demo=True).exists()
    assert not ModelUnderTest.objects.filter(is_demo=True).exists()
    assert not JudgeRun.objects.filter(dataset__is_demo=True).exists()
    assert not Study.objects.filter(name="demo-study").exists()
    users = get_user_model().objects
    assert not users.filter(username__in=["demo-expert-1", "demo-expert-2", "demo-senior"]).exists()
    kept = users.get(username="demo-expert-3")
    assert not kept.is_active and not kept.has_usable_password()
    # Every real row is still there, the kept login's real rating with them.
    assert {
        m._meta.label: m._base_manager.exclude(**{_to_dataset(m): True}).count()
        for m in real_models
    } == real_before
    assert Submission.objects.filter(expert=legacy).count() == 1
    assert Study.objects.get(name="real-study").pool.units.count() == 2
    # Again: nothing left to remove.
    out = io.StringIO()
    call_command("demo_remove", stdout=out)
    assert "nothing to remove" in out.getvalue()


def _to_dataset(model: type[models.Model]) -> str:
    """The lookup from a row of ``model`` to its dataset's demo mark."""
    return {
        "annotation.Submission": "unit__response__case__dataset__is_demo",
        "annotation.Label": "submission__unit__response__case__dataset__is_demo",
        "annotation.Assignment": "unit__response__case__dataset__is_demo",
        "benchmark.Response": "case__dataset__is_demo",
        "benchmark.Verdict": "run__dataset__is_demo",
    }[model._meta.label]


def test_production_refuses_to_start_while_a_demo_login_has_its_public_password():
    demo_platform()
    with override_settings(PRODUCTION=True):
        with pytest.raises(UsageError, match="demo-expert-1, demo-expert-2") as refused:
            call_command("serve", "--port", "1")
        assert "admin" in str(refused.value) and "demo-remove" in str(refused.value)
        call_command("demo_remove", stdout=io.StringIO())
        with pytest.raises(UsageError, match="logins admin have"):
            call_command("serve", "--port", "1")
        admin = get_user_model().objects.get(username="admin")
        admin.set_password("a-real-admin-password-0193")
        admin.save()
        from validation.demo import demo_logins_open

        assert demo_logins_open() == []
