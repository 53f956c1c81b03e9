"""Gathering the decisions of a study's senior experts for the report's adjudication section."""

from annotation.selectors import decision_labels, rating_labels
from benchmark.selectors.rubric import criterion_versions
from validation.models import Study, StudyUnit
from validation.report.adjudication import INCOMPLETE, SPLIT, AdjudicationRecord


def adjudication_decisions(*, study: Study) -> tuple[AdjudicationRecord, ...]:
    """Every criterion a senior decided in the study, in case and rubric order."""
    in_study = StudyUnit.objects.filter(study=study)
    decided = list(
        decision_labels()
        .filter(submission__unit_id__in=in_study.values("unit_id"))
        .select_related("rubric_item", "submission__expert")
        .order_by("submission__unit_id", "rubric_item__position")
    )
    # Only the decided units are read further (a study has thousands, seniors decide few).
    decided_units = {label.submission.unit_id for label in decided}
    units = {
        su.unit_id: su
        for su in in_study.filter(unit_id__in=decided_units).select_related("case", "model", "unit")
    }
    votes: dict[tuple[int, int], list[bool]] = {}
    for unit_id, item_id, hit in (
        rating_labels()
        .filter(submission__unit_id__in=decided_units)
        .values_list("submission__unit_id", "rubric_item_id", "hit")
    ):
        votes.setdefault((unit_id, item_id), []).append(hit)
    texts = {
        (v.item_id, v.number): v.text
        for v in criterion_versions(item_ids={lb.rubric_item_id for lb in decided})
    }
    records = []
    for label in decided:
        study_unit = units[label.submission.unit_id]
        item = label.rubric_item
        records.append(
            AdjudicationRecord(
                case=study_unit.case.question_id,
                model=study_unit.model.name,
                unit=study_unit.unit.token,
                criterion=item.position,
                criterion_text=texts.get((item.pk, label.rubric_version), item.text),
                ability=item.ability,
                votes=tuple(votes.get((study_unit.unit_id, item.pk), ())),
                decision=label.hit,
                reason=label.note,
                senior=label.submission.expert.pseudonym,
                kind=SPLIT if study_unit.unit.adjudicate_items else INCOMPLETE,
            )
        )
    records.sort(key=lambda r: (r.case, r.model, r.criterion))
    return tuple(records)
