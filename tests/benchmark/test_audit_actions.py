"""Audit rows name their action from one enumeration; a misspelt one is refused, not stored."""

import re
from pathlib import Path

import pytest

from benchmark.audit_actions import AuditAction
from benchmark.models import AuditEvent
from benchmark.services.audit import audit_record
from tests.benchmark.factories import DatasetFactory

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_an_action_the_enumeration_does_not_name_is_refused():
    dataset = DatasetFactory()
    with pytest.raises(ValueError, match=r"rating\.submitted"):
        audit_record(actor=None, action="rating.submitted", obj=dataset)
    assert not AuditEvent.objects.exists()
    row = audit_record(actor=None, action=AuditAction.DATASET_IMPORT, obj=dataset)
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
