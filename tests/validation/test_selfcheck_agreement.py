"""The construction report's "judge's agreement with the authors' mock-scores" can be computed
from ``annotation.selectors.selfcheck.mock_score_pairs`` with the existing statistics, the
bootstrap clustered by draft (this pins the path the report will take; the report itself is
the integrator's)."""

import pytest
from django.contrib.auth import get_user_model

from annotation.selectors.selfcheck import mock_score_pairs
from annotation.services.selfcheck import mock_scores_submit
from tests.builders.selfcheck import selfcheck_world, snapshot_judged
from validation.statistics.pairwise import pairwise_agreement
from validation.statistics.results import BootstrapSettings

pytestmark = pytest.mark.django_db


def test_agreement_and_kappa_from_the_pairs_by_hand():
    world = selfcheck_world(author=get_user_model().objects.create_user("author"))
    snapshot_judged(draft=world.draft, states={"ref-a": ["met", "met", "error"],
                                               "ref-b": ["not_met", "met", "not_met"],
                                               "ref-c": ["met"] * 3})  # fmt: skip
    for key, marks in (("ref-a", (True, False, False)), ("ref-b", (True, True, False))):
        labels = {c.pk: mark for c, mark in zip(world.criteria, marks, strict=True)}
        mock_scores_submit(draft=world.draft, response=world.responses[key],
                           author=world.draft.author, labels=labels)  # fmt: skip
    pairs = mock_score_pairs(project=world.project)
    drafts = sorted({pair.draft for pair in pairs})
    result = pairwise_agreement(
        reference=[int(pair.author_met) for pair in pairs],
        predicted=[int(pair.judge_met) for pair in pairs],
        categories=(0, 1),
        clusters=[drafts.index(pair.draft) for pair in pairs],
        bootstrap=BootstrapSettings(resamples=200),
    )
    # (author, judge): (T,T) (F,T) (T,F) (T,T) (F,F); the judge's error is no pair.
    # p_o = 3/5; both say "met" 3/5 of the time: p_e = .6·.6 + .4·.4 = .52; κ = .08/.48.
    assert result.n == 5
    assert result.agreement.value == pytest.approx(0.6)
    assert result.cohen_kappa.value == pytest.approx(0.08 / 0.48)
    # One draft is one cluster: the interval is withheld, with the reason, not invented.
    assert result.cohen_kappa.interval.low is None
    assert "at least two" in result.cohen_kappa.interval.reason
