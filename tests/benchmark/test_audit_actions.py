"""Audit rows name their action from one enumeration; a misspelt one is refused, not stored."""

import re
from pathlib import Path

import pytest

from annotation.audit_actions import AnnotationAction
from benchmark.audit_actions import AuditActions, BenchmarkAction
from benchmark.models import AuditEvent
from benchmark.services.audit import audit_record
from tests.builders.datasets import DatasetFactory
from validation.audit_actions import ValidationAction

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_an_action_the_enumeration_does_not_name_is_refused():
    dataset = DatasetFactory()
    with pytest.raises(ValueError, match=r"rating\.submitted"):
        audit_record(actor=None, action="rating.submitted", obj=dataset)
    assert not AuditEvent.objects.exists()
    row = audit_record(actor=None, action=BenchmarkAction.DATASET_IMPORT, obj=dataset)
    assert AuditEvent.objects.get(pk=row.pk).action == "dataset.import"


def test_no_service_names_an_action_as_a_bare_string():
    bare = []
    for path in ROOT.glob("*/**/*.py"):
        if path.parts[len(ROOT.parts)] in {"tests", ".venv", "benchmarks", "node_modules"}:
            continue
        text = path.read_text(encoding="utf-8")
        found = re.findall(r'action=[^\n]*"\w+\.\w+"', text)
        bare += [f"{path.relative_to(ROOT)}: {m}" for m in found]
    assert not bare, bare


def test_each_app_names_its_own_actions_and_no_two_share_one():
    enumerations = {BenchmarkAction: "benchmark", AnnotationAction: "annotation",
                    ValidationAction: "validation"}  # fmt: skip
    assert set(AuditActions.__subclasses__()) == set(enumerations)
    values = [member.value for actions in enumerations for member in actions]
    assert len(values) == len(set(values))
    for actions, app in enumerations.items():
        assert actions.__module__ == f"{app}.audit_actions"
    # A stored value finds its member in whichever app names it; another app's name does not.
    assert AuditActions.named("rating.submit") is AnnotationAction.RATING_SUBMIT
    assert AuditActions.named("study.close") is ValidationAction.STUDY_CLOSE
    with pytest.raises(ValueError, match="not an audit action"):
        AuditActions.named("study.submit")
