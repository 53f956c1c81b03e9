import pytest
from django.core.management import CommandError, call_command

from annotation import quality, services
from annotation.assignment import Candidate, HardCases, rank_candidates
from annotation.models import Certificate, CertificationBar
from annotation.selectors import quality as selectors_quality
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study


def test_peer_agreement_is_pairwise_and_hand_counted():
    # Unit 1: own {1: T, 2: F}; others {1: T, 2: T} and {1: F, 2: F} -> 2 of 4 agree.
    # Unit 2: own {3: T}; others {3: T} and {3: T} -> 2 of 2. A unit without others is skipped.
    own = 1
    units = [
        [(own, 1, True), (own, 2, False), (2, 1, True), (2, 2, True), (3, 1, False),
         (3, 2, False)],
        [(own, 3, True), (2, 3, True), (3, 3, True)],
        [(own, 4, True)],
    ]  # fmt: skip
    result = quality.combine(quality.unit_peer_agreements(labels)[own] for labels in units)
    assert (result.agreed, result.compared, result.units) == (4, 6, 2)
    assert result.share == pytest.approx(4 / 6)
    assert quality.Agreement().share is None


def test_a_units_agreement_splits_by_group_and_the_parts_add_up():
    # Submissions 1, 2, 3 on criteria 10 (group "a") and 20 (group "b"): 1 and 2 say hit on
    # both, 3 says miss on 10. On 10, 1 agrees with 2 only; on 20 everyone agrees.
    labels = [(1, 10, True), (1, 20, True), (2, 10, True), (2, 20, True),
              (3, 10, False), (3, 20, True)]  # fmt: skip
    split = quality.unit_peer_agreements_by(labels, group_of={10: "a", 20: "b"}.__getitem__)
    assert {key: (a.agreed, a.compared, a.units) for key, a in split.items()} == {
        (1, "a"): (1, 2, 1), (1, "b"): (2, 2, 1),
        (2, "a"): (1, 2, 1), (2, "b"): (2, 2, 1),
        (3, "a"): (0, 2, 1), (3, "b"): (2, 2, 1),
    }  # fmt: skip
    whole = quality.unit_peer_agreements(labels)
    assert {key: (a.agreed, a.compared, a.units) for key, a in whole.items()} == {
        1: (3, 4, 1),
        2: (3, 4, 1),
        3: (2, 4, 1),
    }


def test_reference_agreement_counts_a_missing_label_as_wrong():
    result = quality.reference_agreement(
        labels={1: True, 2: False}, reference={1: True, 2: True, 3: False}
    )
    assert (result.agreed, result.compared) == (1, 3)


def test_running_quality_needs_enough_units_before_it_replaces_calibration():
    few = quality.Agreement(agreed=1, compared=2, units=quality.QUALITY_MIN_UNITS - 1)
    enough = quality.Agreement(agreed=1, compared=4, units=quality.QUALITY_MIN_UNITS)
    assert quality.running_quality(peer=few, calibration=0.9) == 0.9
    assert quality.running_quality(peer=enough, calibration=0.9) == 0.25
    assert not quality.below_bar(peer=few, bar=0.99)
    assert quality.below_bar(peer=enough, bar=0.3) and not quality.below_bar(peer=enough, bar=None)


def test_ranking_keeps_hard_units_from_unproven_experts_and_gives_them_first_to_proven_ones():
    candidates = [Candidate(unit_id=1, taken=0), Candidate(unit_id=2, taken=2, hard=True),
                  Candidate(unit_id=3, taken=1, scene="职场心理", hard=True)]  # fmt: skip
    rank = lambda hard, specialties=(): rank_candidates(  # noqa: E731
        candidates=candidates, specialties=specialties, expert_key="k", hard=hard
    )
    assert rank(HardCases.ANY) == [1, 3, 2]  # fewest raters first
    assert rank(HardCases.NONE) == [1]
    assert rank(HardCases.FIRST) == [3, 2, 1]
    assert rank(HardCases.NONE, ["职场心理"]) == [1]  # specialty never unlocks a hard unit


@pytest.mark.django_db
def test_a_study_that_asks_for_proven_quality_routes_hard_cases_by_measured_agreement():
    a, b, c, newcomer = ExpertFactory.create_batch(4)
    study = open_study(cases=9, experts=[a, b, c, newcomer])  # cases 0, 3, 6 are hard
    pool = study.pool
    services.pool_set_quality_policy(pool=pool, calibration=None, hard_min_quality=0.9)
    pool.refresh_from_db()
    difficulty = lambda assignment: assignment.unit.response.case.difficulty  # noqa: E731
    # Nobody is proven yet: only normal units go out (five rounds of three raters).
    for _ in range(5):
        for expert in (a, b, c):
            assignment = services.assignment_claim_next(user=expert.user, pool=pool)
            assert difficulty(assignment) == "normal"
            services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    # The newcomer fills the normal units' last slots, then gets nothing: only hard ones are left.
    while (assignment := services.assignment_claim_next(user=newcomer.user, pool=pool)) is not None:
        assert difficulty(assignment) == "normal"
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    assert newcomer.submissions.count() == 3
    # a, b and c agreed on everything over five completed units: proven, so hard ones first.
    assert selectors_quality.expert_quality_get(expert=a).quality == 1.0
    assert difficulty(services.assignment_claim_next(user=a.user, pool=pool)) == "hard"


@pytest.mark.django_db
def test_certificate_command_issues_to_everyone_who_meets_the_bar_only():
    a, b, c = ExpertFactory.create_batch(3)
    CertificationBar.objects.create(name="rater", min_quality=0.9, min_units=2)
    study = open_study(cases=2, experts=[a, b, c])
    for _ in range(2):
        for expert in (a, b, c):
            assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
            services.assignment_submit(
                assignment=assignment, labels=all_labels(assignment, hit=expert != c)
            )
    call_command("certificate", "issue", "--bar", "rater")
    # a and b agree with each other but not with c: 50 % each; c agrees with nobody.
    assert not Certificate.objects.exists()
    CertificationBar.objects.filter(name="rater").update(min_quality=0.5)
    call_command("certificate", "issue", "--bar", "rater")
    assert set(Certificate.objects.values_list("expert", flat=True)) == {a.pk, b.pk}
    with pytest.raises(CommandError, match="does not meet"):
        call_command("certificate", "issue", "--bar", "rater", c.user.username)
    with pytest.raises(CommandError, match="no certification bar"):
        call_command("certificate", "issue", "--bar", "nope")


@pytest.mark.django_db
def test_running_agreement_looks_at_the_newest_completed_units_only(monkeypatch):
    *_, c = experts = ExpertFactory.create_batch(3)
    study = open_study(cases=3, experts=experts)
    submitted = []
    # c labels its first unit against the others (who mark every criterion met), then agrees.
    while True:
        rated = 0
        for expert in experts:
            assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
            if assignment is None:
                continue
            first_of_c = expert == c and not submitted
            labels = all_labels(assignment, hit=not first_of_c)
            submission, _ = services.assignment_submit(assignment=assignment, labels=labels)
            if expert == c:
                submitted.append(submission)
            rated += 1
        if not rated:
            break
    assert len(submitted) == 3
    per_unit = 2 * len(all_labels(submitted[0].assignment))  # two others x every criterion
    everything = selectors_quality.expert_peer_agreement(expert=c)
    assert everything == quality.Agreement(agreed=2 * per_unit, compared=3 * per_unit, units=3)
    agreeing = quality.Agreement(agreed=2 * per_unit, compared=2 * per_unit, units=2)
    since = selectors_quality.expert_peer_agreement(expert=c, since=submitted[1].submitted_at)
    assert since == agreeing
    # The window keeps the newest units: the disagreement was the oldest.
    monkeypatch.setattr(quality, "QUALITY_WINDOW", 2)
    assert selectors_quality.expert_peer_agreement(expert=c) == agreeing
