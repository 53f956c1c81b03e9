"""Building calibration sets for tests through the real services."""

from annotation import selectors, services
from annotation.models import (
    Assignment,
    CalibrationAttempt,
    CalibrationSet,
    Expert,
    ReferenceLabel,
)
from annotation.references import ReferenceRow
from benchmark.models import Response
from tests.builders.datasets import (
    DatasetFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)


def references_for(responses: list[Response], *, hit=lambda position: position % 2 == 0):
    return [
        ReferenceRow(
            line=index + 1,
            question_id=r.case.question_id,
            model=r.model.name,
            hits=tuple(hit(item.position) for item in r.case.rubric.order_by("position")),
        )
        for index, r in enumerate(responses)
    ]


def calibration_set(
    *, senior: Expert, units: int = 2, threshold: float = 0.8, name: str = "calibration-a"
) -> CalibrationSet:
    # Its own dataset and model, so it never collides with a study's.
    dataset = DatasetFactory()
    model = ModelUnderTestFactory()
    responses = [
        ResponseFactory(model=model, case=case_with_rubric(dataset=dataset, position=index))
        for index in range(units)
    ]
    return services.calibration_create(
        name=name,
        dataset=dataset,
        references=references_for(responses),
        senior=senior,
        pass_threshold=threshold,
    )


def reference_labels(assignment: Assignment, *, wrong: int = 0) -> list[dict]:
    """The reference answer through the assignment's opaque ids, with ``wrong`` labels flipped."""
    truth = dict(
        ReferenceLabel.objects.filter(unit=assignment.unit).values_list("rubric_item_id", "hit")
    )
    labels = []
    for index, (token, pk) in enumerate(selectors.criterion_tokens(assignment=assignment).items()):
        labels.append({"criterion": token, "hit": truth[pk] != (index < wrong)})
    return labels


def sit_directly(
    expert: Expert, calibration: CalibrationSet, *, wrong: tuple[int, ...]
) -> CalibrationAttempt:
    """One whole sitting of the set opened directly (its own pool), as the workbench does;
    ``wrong[i]`` labels of the i-th unit claimed are flipped."""
    for flipped in wrong:
        assignment = services.assignment_claim_next(user=expert.user, pool=calibration.pool)
        assert assignment is not None and assignment.kind == Assignment.Kind.CALIBRATION
        services.assignment_submit(
            assignment=assignment, labels=reference_labels(assignment, wrong=flipped)
        )
    attempt = CalibrationAttempt.objects.get(pk=assignment.attempt_id)
    assert attempt.finished_at is not None
    return attempt
