"""Gathering a study's rater notes for the report (validation.report.notes)."""

from annotation.selectors import rating_labels
from validation.models import GoldLabel, Study, StudyUnit
from validation.report.notes import NoteRecord


def rater_notes_gather(*, study: Study) -> tuple[NoteRecord, ...]:
    """Every non-empty note of a rating submission on the study's units (dropped units aside),
    under the rater's pseudonym."""
    kept = StudyUnit.objects.filter(study=study).exclude(state=StudyUnit.State.DROPPED)
    labels = list(
        rating_labels()
        .filter(submission__unit_id__in=kept.values("unit_id"))
        .exclude(note="")
        .select_related("rubric_item", "submission__expert")
    )
    # Only the units and gold of noted labels are read (a study has thousands of units).
    noted = {label.submission.unit_id for label in labels}
    units = {
        su.unit_id: su
        for su in kept.filter(unit_id__in=noted).select_related("case", "model", "unit")
    }
    gold = {
        (su_id, item_id): hit
        for su_id, item_id, hit in GoldLabel.objects.filter(
            study_unit__study=study, study_unit__unit_id__in=noted
        ).values_list("study_unit_id", "rubric_item_id", "hit")
    }
    records = []
    for label in labels:
        if not label.note.strip():
            continue
        study_unit = units[label.submission.unit_id]
        item = label.rubric_item
        records.append(
            NoteRecord(
                case=study_unit.case.question_id,
                model=study_unit.model.name,
                unit=study_unit.unit.token,
                criterion=item.position,
                criterion_text=item.text,
                ability=item.ability,
                rater=label.submission.expert.pseudonym,
                hit=label.hit,
                note=label.note,
                version=label.rubric_version,
                gold=gold.get((study_unit.pk, item.pk)),
            )
        )
    return tuple(records)
