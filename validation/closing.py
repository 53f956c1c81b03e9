"""What closing a study does with units short of three ratings (pure: no ORM).

At the close every unit is complete (three ratings in, or already decided), partly rated
(some ratings, fewer than three) or never rated. The admin chooses, for each of the last two
groups, whether the units go to a senior expert (who decides every criterion the ratings did
not settle) or are dropped from the sample. A dropped unit is kept and listed with its reason,
but it is no item of the study's figures: not agreement, not missing coverage.
"""

from dataclasses import dataclass

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

COMPLETE = "complete"
PARTLY_RATED = "partly_rated"
NEVER_RATED = "never_rated"

SENIOR = "senior"  # a senior expert decides the unit (the behaviour before the choice existed)
DROP = "drop"  # the unit leaves the sample
CHOICES = (SENIOR, DROP)
# What closing does unless told otherwise, on every interface (the service, the command, the
# admin API, the close page): a partly rated unit goes to a senior, who decides what its ratings
# did not settle; a unit nobody rated is dropped rather than handed whole to one senior, whose
# single label would become its gold.
DEFAULT_PARTIAL = SENIOR
DEFAULT_UNRATED = DROP

# Why a unit was dropped: the stored value of StudyUnit.drop_reason.
DROP_REASONS = {
    NEVER_RATED: _("never rated when the study closed"),
    PARTLY_RATED: _("partly rated when the study closed"),
}


def completion_of(*, ratings: int, raters: int) -> str:
    """COMPLETE, PARTLY_RATED or NEVER_RATED for a unit with ``ratings`` rating submissions."""
    if ratings >= raters:
        return COMPLETE
    return PARTLY_RATED if ratings else NEVER_RATED


@dataclass(frozen=True)
class Completion:
    """A study's units by how far their rating got (dropped ones apart)."""

    complete: int
    partly_rated: int
    never_rated: int
    dropped: int = 0
    partly_rated_criteria: int = 0  # the criteria of those units
    never_rated_criteria: int = 0

    @property
    def units(self) -> int:
        return self.complete + self.partly_rated + self.never_rated + self.dropped

    @property
    def short(self) -> int:
        return self.partly_rated + self.never_rated

    def senior_cost(self, *, partial: str, unrated: str) -> tuple[int, int]:
        """What closing with these choices gives the seniors: units, and at most how many
        criteria to decide in them."""
        units = criteria = 0
        if partial == SENIOR:
            units, criteria = self.partly_rated, self.partly_rated_criteria
        if unrated == SENIOR:
            units, criteria = units + self.never_rated, criteria + self.never_rated_criteria
        return units, criteria

    def describe(self) -> str:
        """One line for the command line (English, as the CLI is)."""
        text = (
            f"{self.complete} complete, {self.partly_rated} partly rated, "
            f"{self.never_rated} never rated"
        )
        return text + (f", {self.dropped} dropped" if self.dropped else "")


def closed_message(*, study, result: dict[str, int]) -> str:
    """What the admin's pages say once a study closed (``study_close``'s counts)."""
    return gettext(
        "%(study)s closed: %(complete)d complete, %(partly)d partly rated, %(never)d never rated "
        "units; of the short ones %(senior)d went to a senior expert, %(dropped)d dropped from "
        "the sample."
    ) % {
        "study": study,
        "complete": result["complete"],
        "partly": result["partly_rated"],
        "never": result["never_rated"],
        "senior": result["incomplete"],
        "dropped": result["dropped"],
    }
