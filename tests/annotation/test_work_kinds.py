"""Who may do each kind of expert work: one rule (annotation.work), applied by the claims, the
pages and the services alike."""

import pytest

from annotation.services.errors import AnnotationError
from annotation.services.standards import standard_write_by_senior
from annotation.work import ABSOLUTE_STANDARD, SENIORS_ONLY, kind_permitted, user_may
from benchmark.models import AbsoluteStandard
from tests.builders.accounts import ExpertFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_seniors_only_kinds_are_refused_to_experts_and_everything_else_is_open():
    expert, senior = ExpertFactory(), ExpertFactory(tier="senior")
    for kind in ("rating", "calibration", "difficulty", "criterion_review"):
        assert kind_permitted(kind=kind, expert=expert)
    for kind in SENIORS_ONLY:
        assert not kind_permitted(kind=kind, expert=expert)
        assert kind_permitted(kind=kind, expert=senior)
    inactive = ExpertFactory(tier="senior", is_active=False)
    assert not user_may(kind=ABSOLUTE_STANDARD, user=inactive.user)
    assert not user_may(kind="rating", user=UserFactory(is_staff=True))


def test_only_a_senior_writes_an_absolute_standard_through_the_service():
    expert, senior = ExpertFactory(), ExpertFactory(tier="senior")
    with pytest.raises(AnnotationError, match="senior"):
        standard_write_by_senior(user=expert.user, ability="warmth", text="温和", reason="初稿")
    assert not AbsoluteStandard.objects.exists()
    standard_write_by_senior(user=senior.user, ability="warmth", text="温和", reason="初稿")
    assert AbsoluteStandard.objects.count() == 1
