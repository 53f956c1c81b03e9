"""Building units whose three ratings split on chosen criteria (through the real services)."""

from rest_framework.test import APIClient

from annotation import selectors
from annotation import services as annotation_services
from annotation.models import Assignment
from benchmark.models import RubricItem
from tests.builders.accounts import ExpertFactory
from tests.builders.studies import open_study
from validation.models import Study

# The factory rubric, by position: warmth +3, curiosity +5, emotional_coping −5, catastrophic.
WARMTH, CURIOSITY, COPING, CATASTROPHIC = range(4)
# Three raters: warmth splits 2 met / 1 not met, catastrophic 1 met / 2 not met,
# curiosity unanimous met, coping unanimous not met.
SPLIT_VOTES = (
    {WARMTH: True, CURIOSITY: True, CATASTROPHIC: True},
    {WARMTH: True, CURIOSITY: True},
    {CURIOSITY: True},
)
NEXT = "/api/v1/adjudications/next/?study="


def rate_positions(expert, study: Study, hits: dict[int, bool], note: str = "") -> Assignment:
    """Claim the next unit for ``expert`` and label it: ``hits`` by rubric position (default
    False for positions not given)."""
    assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
    tokens = selectors.criterion_tokens(assignment=assignment)
    position = dict(RubricItem.objects.filter(pk__in=tokens.values()).values_list("pk", "position"))
    labels = [
        {"criterion": token, "hit": hits.get(position[pk], False), "note": note}
        for token, pk in tokens.items()
    ]
    annotation_services.assignment_submit(assignment=assignment, labels=labels)
    return assignment


def split_study(*, splits, raters=None, senior=None, name="adj", **options):
    """A one-unit open study rated by three raters with ``SPLIT_VOTES``."""
    raters = raters or ExpertFactory.create_batch(3)
    senior = senior or ExpertFactory(tier="senior", user__username=f"senior-{name}")
    study = open_study(
        cases=1, experts=[*raters, senior], name=name, adjudicate_splits=splits, **options
    )
    for expert, hits in zip(raters, SPLIT_VOTES, strict=True):
        rate_positions(expert, study, hits, note=f"rater-note-{expert.user.username}")
    return study, raters, senior


def item_at(study: Study, position: int) -> RubricItem:
    return RubricItem.objects.get(case=study.units.get().case, position=position)


def api_for(expert) -> APIClient:
    client = APIClient()
    client.force_authenticate(expert.user)
    return client


def decide_all(client, body, *, hit=True, reason="reasoned decision"):
    decisions = [
        {"criterion": c["id"], "hit": hit, "reason": reason} for c in body["unit"]["criteria"]
    ]
    return client.post(
        f"/api/v1/adjudications/{body['id']}/submit/", {"decisions": decisions}, format="json"
    )
