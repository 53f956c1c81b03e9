"""The checks the served-product tests and the load benchmark end with do catch a breach:
a study worked cleanly has no problem, and each kind of damage done to its rows afterwards
is named (a lost or an unacknowledged rating, a label or a choice not the one sent, a stale
counter, a lost gold)."""

import pytest

from annotation.models import Label, PairwiseChoice, Submission, Unit
from tests.builders.accounts import ExpertFactory
from tests.builders.pairwise import TRIO, answered_by, choose_all, draw, pairwise_study
from tests.builders.studies import rated_study
from tests.product.invariants import study_problems
from validation.models import GoldLabel, PairwiseGold

pytestmark = pytest.mark.django_db


def acknowledged(study: str) -> dict[str, None]:
    """Every stored rating of ``study`` as acknowledged, what was sent left unchecked."""
    ratings = Submission.objects.filter(unit__pool__name=study, kind="rating")
    return {str(p): None for p in ratings.values_list("assignment__public_id", flat=True)}


def test_a_rubric_study_worked_cleanly_passes_and_each_breach_is_named():
    rated_study(name="inv", cases=2, models=2)
    submitted = acknowledged("inv")
    assert study_problems(name="inv", submitted=submitted, closed=True) == []

    one = Submission.objects.filter(unit__pool__name="inv", kind="rating").first()
    missing = {**submitted, "00000000-0000-0000-0000-000000000000": None}
    assert "1 acknowledged submissions missing" in study_problems(name="inv", submitted=missing)[0]

    Label.objects.filter(submission=one).first().delete()
    problems = study_problems(name="inv", submitted=submitted)
    assert problems == ["1 submissions without exactly one label per criterion"]

    Unit.objects.filter(pk=one.unit_id).update(ratings=1)
    problems = study_problems(name="inv", submitted=submitted)
    assert any("rating counter" in p for p in problems), problems

    GoldLabel.objects.filter(study_unit__unit__pool__name="inv").delete()
    problems = study_problems(name="inv", submitted=submitted, closed=True)
    assert any("gold" in p for p in problems), problems


def test_a_pairwise_study_worked_cleanly_passes_and_each_breach_is_named():
    answered_by(names=list(TRIO), cases=2, texts=lambda i, n: f"{TRIO[n]}{i}", name="inv-data")
    draw("set", "--dataset", "inv-data", "--models", ",".join(TRIO))
    raters = ExpertFactory.create_batch(3)
    pairwise_study("inv")
    choose_all(raters, lambda pair, index: "a", study="inv")
    submitted = acknowledged("inv")
    assert study_problems(name="inv", submitted=submitted) == []

    choice = PairwiseChoice.objects.filter(submission__unit__pool__name="inv").first()
    told = {**submitted, str(choice.submission.assignment.public_id): {"choice": "tie"}}
    problems = study_problems(name="inv", submitted=told)
    assert problems == ["1 choices whose winner or reason differ from what the expert sent"]

    PairwiseGold.objects.filter(study_unit__unit_id=choice.submission.unit_id).delete()
    problems = study_problems(name="inv", submitted=submitted)
    assert any("gold None, not the majority a (3/3)" in p for p in problems), problems

    unacknowledged = dict(submitted)
    del unacknowledged[str(choice.submission.assignment.public_id)]
    problems = study_problems(name="inv", submitted=unacknowledged)
    assert "0 acknowledged submissions missing, 1 stored without acknowledgement" in problems

    Unit.objects.filter(pk=choice.submission.unit_id).update(ratings=2)
    problems = study_problems(name="inv", submitted=submitted)
    assert any("rating counter" in p for p in problems), problems
