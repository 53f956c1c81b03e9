"""An expert's standing from plain label counts (pure: no database, no statistics package).

Running agreement is **pairwise**: on every completed unit the expert rated, each criterion is
compared with each of the other raters' labels on it, and agreement is the share of those
comparisons that match. With three raters that is two comparisons per criterion. (The other
reading, "equals the majority of the other two", is undefined whenever those two disagree, so
it would silently drop exactly the hard criteria.)

Calibration agreement is the share of criteria where the expert's label equals the senior
expert's reference label.
"""

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass

from django.utils.translation import gettext, ngettext

# Fewer completed units than this say too little about an expert to act on.
QUALITY_MIN_UNITS = 5
# The running figure looks at this many of the expert's most recent completed units.
QUALITY_WINDOW = 50


@dataclass(frozen=True)
class Agreement:
    agreed: int = 0
    compared: int = 0
    units: int = 0

    @property
    def share(self) -> float | None:
        return self.agreed / self.compared if self.compared else None


def unit_peer_agreements(labels: Iterable[tuple[int, int, bool]]) -> dict[int, Agreement]:
    """Each submission's pairwise agreement with the others of one unit.

    ``labels`` are (submission id, criterion id, hit) of the unit's rating submissions.
    """
    return {
        submission_id: agreement
        for (submission_id, _), agreement in unit_peer_agreements_by(
            labels, group_of=lambda criterion: None
        ).items()
    }


def unit_pair_agreements(choices: Iterable[tuple[int, str]]) -> dict[int, Agreement]:
    """Each submission's agreement with the others of one pair: (submission id, choice) of
    its rating submissions; a choice is compared with the other ``n - 1`` and agrees with
    those that chose the same (a, b or tie)."""
    choices = list(choices)
    chosen = defaultdict(int)
    for _, choice in choices:
        chosen[choice] += 1
    units = int(len(choices) > 1)
    return {
        submission_id: Agreement(agreed=chosen[choice] - 1, compared=len(choices) - 1, units=units)
        for submission_id, choice in choices
    }


def unit_peer_agreements_by(
    labels: Iterable[tuple[int, int, bool]], *, group_of: Callable[[int], Hashable]
) -> dict[tuple[int, Hashable], Agreement]:
    """(submission id, group) → that submission's pairwise agreement with the others of one
    unit on the criteria ``group_of`` puts in the group (an ability, say); the groups of a
    submission add up to its ``unit_peer_agreements``, each counting the unit once.

    A label of a criterion that ``n`` raters labelled, ``k`` of them a hit, is compared with
    the other ``n - 1`` labels and agrees with ``k - 1`` of them when it is a hit, ``n - k - 1``
    when a miss: the pairwise count without pairing every label with every other.
    """
    labels = list(labels)
    votes: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # criterion → [labels, hits]
    for _, criterion, hit in labels:
        votes[criterion][0] += 1
        votes[criterion][1] += hit
    counts: dict[tuple[int, Hashable], list[int]] = defaultdict(lambda: [0, 0])
    for submission_id, criterion, hit in labels:
        n, k = votes[criterion]
        cell = counts[(submission_id, group_of(criterion))]
        cell[0] += (k if hit else n - k) - 1
        cell[1] += n - 1
    # A unit counts for a submission once another rater's labels are there to compare with.
    units = int(len({submission_id for submission_id, _, _ in labels}) > 1)
    return {
        key: Agreement(agreed=agreed, compared=compared, units=units)
        for key, (agreed, compared) in counts.items()
    }


def reference_agreement(
    *, labels: Mapping[Hashable, bool], reference: Mapping[Hashable, bool]
) -> Agreement:
    """Agreement with the reference labels; a criterion left unlabelled counts as wrong."""
    agreed = sum(1 for criterion, hit in reference.items() if labels.get(criterion) is hit)
    return Agreement(agreed=agreed, compared=len(reference), units=1 if reference else 0)


def combine(parts: Iterable[Agreement]) -> Agreement:
    parts = list(parts)
    return Agreement(
        agreed=sum(p.agreed for p in parts),
        compared=sum(p.compared for p in parts),
        units=sum(p.units for p in parts),
    )


def running_quality(*, peer: Agreement, calibration: float | None) -> float | None:
    """Peer agreement once it rests on enough units; until then the latest calibration result."""
    if peer.units >= QUALITY_MIN_UNITS and peer.share is not None:
        return peer.share
    return calibration


def below_bar(*, peer: Agreement, bar: float | None) -> bool:
    """True when enough completed units show the expert under the admin's bar."""
    if bar is None or peer.units < QUALITY_MIN_UNITS or peer.share is None:
        return False
    return peer.share < bar


def meets_certification(
    *, quality: float | None, units: int, min_quality: float, min_units: int, calibrated: bool
) -> list[str]:
    """The reasons an expert does not (yet) meet a certification bar; empty when they do."""
    missing = []
    if not calibrated:
        missing.append(gettext("pass the calibration set"))
    if units < min_units:
        more = min_units - units
        missing.append(
            ngettext(
                "complete %(n)d more unit rated by three experts",
                "complete %(n)d more units rated by three experts",
                more,
            )
            % {"n": more}
        )
    if quality is None or quality < min_quality:
        missing.append(gettext("reach a running agreement of %(q)s") % {"q": f"{min_quality:.0%}"})
    return missing
