"""A study whose raters differ in calibration history and time on task, for rater quality."""

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from benchmark.models import RubricItem
from tests.builders.accounts import ExpertFactory
from tests.builders.calibration import calibration_set, sit_directly
from tests.builders.studies import open_study
from validation import selectors, services

# Four cases of four criteria (positions 0-3). A hits every criterion; B misses case 1's
# criterion 3; C misses criteria 2 and 3 except on case 0.
LABELS = {
    "a": lambda case, position: True,
    "b": lambda case, position: (case, position) != (1, 3),
    "c": lambda case, position: case == 0 or position < 2,
}
# Active seconds per case, as the workbench sent them (None: a client that does not measure).
SECONDS = {"a": [100, 110, 120, 20], "b": [90, 100, 100, 130], "c": [80, 100, 140, None]}


def study_with_raters(name: str = "quality"):
    """a sat the study's calibration twice (failed 4/8, then passed 7/8), c once (failed 6/8),
    b never; d sat it and is enrolled but rated nothing."""
    senior = ExpertFactory(tier="senior")
    experts = {who: ExpertFactory(user__username=who) for who in "abcd"}
    study = open_study(cases=4, experts=list(experts.values()), name=name, judge=True)
    for who in "abc":
        rate(study, experts[who], who)
    calibration = calibration_set(senior=senior, units=2, threshold=0.8)
    # Attached as the product does; after the ratings, so b, who never sat it, could rate.
    annotation_services.pool_set_quality_policy(pool=study.pool, calibration=calibration)
    sit_directly(experts["a"], calibration, wrong=(2, 2))
    sit_directly(experts["a"], calibration, wrong=(1, 0))
    sit_directly(experts["c"], calibration, wrong=(1, 1))
    sit_directly(experts["d"], calibration, wrong=(0, 0))
    services.study_close(study=selectors.study_get(name=name))
    pseudonyms = {who: e.pseudonym for who, e in experts.items()}
    return selectors.study_get(name=name), pseudonyms


def rate(study, expert, who: str) -> None:
    """Every unit the expert can claim, labelled as ``LABELS`` says, timed as ``SECONDS``."""
    while True:
        assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
        if assignment is None:
            return
        tokens = annotation_selectors.criterion_tokens(assignment=assignment)
        items = RubricItem.objects.select_related("case").in_bulk(tokens.values())
        case = items[next(iter(tokens.values()))].case.position
        labels = [
            {"criterion": token, "hit": LABELS[who](case, items[pk].position)}
            for token, pk in tokens.items()
        ]
        annotation_services.assignment_submit(
            assignment=assignment, labels=labels, active_seconds=SECONDS[who][case]
        )
