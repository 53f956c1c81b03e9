"""Demo data for the senior queue: one demo unit rated by three demo experts with a split.

Only ``heartbench demo-study`` calls this, on the run that creates the demo study, so that
``make run`` shows a unit waiting in the senior queue. It goes through the real services:
the unit is routed to each rater, rated, and the third rating sends it to the queue.
"""

from collections.abc import Sequence

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from annotation.models import Expert, Unit
from annotation.services.routing import unit_route_to_expert
from benchmark.models import RubricItem
from validation.models import Study

# Rater 3 disagrees with raters 1 and 2 on the first two criteria (by rubric position).
SPLIT_POSITIONS = (0, 1)
DEMO_NOTE = "demo rating"


def demo_split_seed(*, study: Study, raters: Sequence[Expert]) -> Unit | None:
    """Rate the study's first unit by three raters so that it splits 2/1; None if no unit."""
    unit = annotation_selectors.pool_units(pool=study.pool).first()
    if unit is None or len(raters) < 3:
        return None
    positions = dict(
        RubricItem.objects.filter(case_id=unit.response.case_id).values_list("pk", "position")
    )
    for index, expert in enumerate(raters[:3]):
        assignment = unit_route_to_expert(unit=unit, expert=expert, actor=None)
        tokens = annotation_selectors.criterion_tokens(assignment=assignment)
        labels = [
            {
                "criterion": token,
                "hit": not (index == 2 and positions[pk] in SPLIT_POSITIONS),
                "note": DEMO_NOTE,
            }
            for token, pk in tokens.items()
        ]
        annotation_services.assignment_submit(assignment=assignment, labels=labels)
    unit.refresh_from_db()
    return unit
