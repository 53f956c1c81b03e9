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
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
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


def peer_agreement(
    units: Iterable[tuple[Mapping[int, bool], Sequence[Mapping[int, bool]]]],
) -> Agreement:
    """Pairwise agreement over (own labels, [other raters' labels]) per unit, keyed by criterion."""
    agreed = compared = counted = 0
    for own, others in units:
        if not others:
            continue
        counted += 1
        for other in others:
            for criterion, hit in own.items():
                if criterion in other:
                    compared += 1
                    agreed += other[criterion] == hit
    return Agreement(agreed=agreed, compared=compared, units=counted)


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


def unit_peer_agreements_by(
    labels: Iterable[tuple[int, int, bool]], *, group_of: Callable[[int], Hashable]
) -> dict[tuple[int, Hashable], Agreement]:
    """(submission id, group) → that submission's pairwise agreement with the others of one
    unit on the criteria ``group_of`` puts in the group (an ability, say); the groups of a
    submission add up to its ``unit_peer_agreements``, each counting the unit once."""
    by_submission: dict[int, dict[int, bool]] = defaultdict(dict)
    for submission_id, criterion_id, hit in labels:
        by_submission[submission_id][criterion_id] = hit
    found = {}
    for submission_id, own in by_submission.items():
        others = [other for key, other in by_submission.items() if key != submission_id]
        groups: dict[Hashable, dict[int, bool]] = defaultdict(dict)
        for criterion, hit in own.items():
            groups[group_of(criterion)][criterion] = hit
        for group, part in groups.items():
            found[(submission_id, group)] = peer_agreement([(part, others)])
    return found


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
