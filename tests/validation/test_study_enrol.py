"""Enrolling experts who joined after the study was created: `heartbench study enrol`."""

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.studies import dataset_with_responses, open_study
from validation import services

pytestmark = pytest.mark.django_db


def members(study) -> set[str]:
    return set(study.pool.experts.values_list("user__username", flat=True))


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_expert_added_later_is_enrolled_and_can_work_at_once(capsys):
    first = ExpertFactory(user__username="alice")
    study = open_study(cases=2, experts=[first], name="pilot")
    late = ExpertFactory(user__username="bob")
    client = logged_in(late.user)
    assert client.post("/api/v1/assignments/next/?study=pilot").status_code == 404
    call_command("study", "enrol", "pilot", "bob", "alice")
    out = capsys.readouterr().out
    assert "enrolled 1 expert in study pilot: bob" in out
    assert "already enrolled: alice" in out
    assert members(study) == {"alice", "bob"}
    assert "/rate/pilot/" in client.get("/").content.decode()
    assert client.post("/api/v1/assignments/next/?study=pilot").status_code == 201
    event = AuditEvent.objects.get(action="study.enrol")
    assert event.data["enrolled"] == ["bob"] and event.data["already"] == ["alice"]
    assert AuditEvent.objects.filter(action="pool.enrol").count() == 1


def test_enrolling_again_is_reported_not_refused_and_changes_nothing(capsys):
    expert = ExpertFactory(user__username="alice")
    open_study(cases=1, experts=[expert], name="pilot")
    call_command("study", "enrol", "pilot", "alice")
    assert "nobody new to enrol in study pilot; already enrolled: alice" in capsys.readouterr().out
    assert not AuditEvent.objects.filter(action__in=["study.enrol", "pool.enrol"]).exists()


def test_all_active_enrols_every_active_expert_and_no_inactive_one(capsys):
    first = ExpertFactory(user__username="alice")
    study = open_study(cases=1, experts=[first], name="pilot")
    ExpertFactory(user__username="bob")
    ExpertFactory(user__username="sen", tier="senior")
    ExpertFactory(user__username="gone", is_active=False)
    UserFactory(username="admin-only")
    call_command("study", "enrol", "pilot", "--all-active")
    assert "enrolled 2 experts in study pilot: bob, sen" in capsys.readouterr().out
    assert members(study) == {"alice", "bob", "sen"}


def test_unknown_names_are_one_line_a_non_zero_exit_and_enrol_nobody():
    study = open_study(cases=1, experts=[], name="pilot")
    ExpertFactory(user__username="bob")
    UserFactory(username="carol")  # a login, but no expert
    with pytest.raises(CommandError) as refused:
        call_command("study", "enrol", "pilot", "bob", "nobody", "carol")
    message = str(refused.value)
    assert message == "no expert named: nobody, carol; nobody was enrolled"
    assert members(study) == set()
    assert not AuditEvent.objects.filter(action__in=["study.enrol", "pool.enrol"]).exists()


def test_names_or_all_active_but_not_both_nor_neither():
    open_study(cases=1, experts=[], name="pilot")
    ExpertFactory(user__username="bob")
    with pytest.raises(CommandError, match="either"):
        call_command("study", "enrol", "pilot", "bob", "--all-active")
    with pytest.raises(CommandError, match="either"):
        call_command("study", "enrol", "pilot")
    with pytest.raises(CommandError, match="no study named 'missing'"):
        call_command("study", "enrol", "missing", "bob")


def test_an_inactive_expert_or_a_closed_study_is_refused():
    study = open_study(cases=1, experts=[], name="pilot")
    ExpertFactory(user__username="gone", is_active=False)
    with pytest.raises(services.StudyError, match="not active: gone"):
        services.study_enrol(study=study, usernames=["gone"])
    services.study_close(study=study)
    ExpertFactory(user__username="bob")
    with pytest.raises(services.StudyError, match="closed"):
        services.study_enrol(study=study, usernames=["bob"])
    assert members(study) == set()


def test_a_draft_study_takes_enrolments_too():
    dataset, models = dataset_with_responses(cases=1)
    draft = services.study_create(name="draft", dataset=dataset, models=models, experts=[])
    ExpertFactory(user__username="bob")
    result = services.study_enrol(study=draft, all_active=True)
    assert result.enrolled == ["bob"] and result.already == []
    assert members(draft) == {"bob"}
