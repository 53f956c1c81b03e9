"""The raters' quality in the study report: calibration, running agreement, time per unit.

Every figure is read from annotation's selectors (and the dashboard's time-on-task rule), never
recomputed here, so the report says what the dashboard and the workbench's quality bar say.
"""

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class RaterQuality:
    expert: str  # pseudonym, as everywhere in the report
    calibration_agreement: float | None  # the latest finished sitting of the pool's set
    calibration_passed: bool | None
    peer_agreement: float | None  # pairwise, over the study's completed units
    peer_units: int
    measured: int  # rating submissions with a measured active time
    median_seconds: float | None  # active seconds per unit
    too_fast: int  # ratings under the study's too-fast threshold


def rater_quality_compute(raters: tuple[RaterQuality, ...]) -> list[dict[str, Any]]:
    """The report's section: one row per rater, in pseudonym order."""
    return [asdict(r) for r in sorted(raters, key=lambda r: r.expert)]
