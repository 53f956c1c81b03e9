"""A rubric edit that answers a disagreement: the version and the audit row keep the study
item, malformed ones are refused before anything is written, the history shows it."""

import io
import json

import pytest
from django.core.management import call_command

from benchmark.models import AuditEvent, RubricItem, RubricItemVersion
from benchmark.services.rubric import RubricEditError, rubric_item_edit
from tests.builders.accounts import UserFactory
from tests.builders.datasets import DatasetFactory, case_with_rubric

pytestmark = pytest.mark.django_db
PROMPT = {"study": "pilot/2026", "unit": "kEap5sPlFAId"}


@pytest.fixture
def item() -> RubricItem:
    case = case_with_rubric(dataset=DatasetFactory(name="hb", version=1), question_id="q1")
    return case.rubric.get(position=0)


@pytest.mark.parametrize(
    "bad",
    [{"study": "pilot"}, {"study": "", "unit": "u"}, {"study": "s", "unit": 7},
     {"study": "s", "unit": "u", "extra": "x"}, {"study": "s" * 201, "unit": "u"},
     {"study": "s", "unit": "u" * 21}],
)  # fmt: skip
def test_a_malformed_disagreement_is_refused_and_nothing_is_written(item, bad):
    with pytest.raises(RubricEditError):
        rubric_item_edit(item=item, text=item.text + "!", author=UserFactory(), reason="r",
                         disagreement=bad)  # fmt: skip
    assert RubricItemVersion.objects.count() == 0 and AuditEvent.objects.count() == 0
    assert RubricItem.objects.get(pk=item.pk).version == 1


def test_the_version_audit_and_history_keep_the_disagreement(item):
    author = UserFactory(username="curator")
    rubric_item_edit(item=item, text=item.text + "（具体）", author=author, reason="分歧",
                     disagreement=PROMPT)  # fmt: skip
    rubric_item_edit(item=item, text=item.text + "。", author=author, reason="typo")
    assert RubricItemVersion.objects.get(item=item, number=2).disagreement == PROMPT
    assert RubricItemVersion.objects.get(item=item, number=3).disagreement is None
    audits = AuditEvent.objects.filter(action="rubric.edit").order_by("at", "pk")
    assert [a.data["disagreement"] for a in audits] == [PROMPT, None]
    out = io.StringIO()
    call_command("rubric", "history", "--dataset", "hb", "--case", "q1", "--position", "0",
                 "--format", "json", stdout=out)  # fmt: skip
    versions = json.loads(out.getvalue())[0]["versions"]
    assert [v["disagreement"] for v in versions] == [None, PROMPT, None]
    out = io.StringIO()
    call_command("rubric", "history", "--dataset", "hb", "--case", "q1", "--position", "0",
                 stdout=out)  # fmt: skip
    assert "prompted by a disagreement: study pilot/2026, unit kEap5sPlFAId" in out.getvalue()
