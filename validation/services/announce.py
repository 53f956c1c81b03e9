"""What validation tells webhook endpoints: a unit's ratings all in, its gold, a study opened
or closed. Ids, names and links only: never a rater (not even a pseudonym) or a label."""

from django.urls import reverse

from validation.models import Study, StudyUnit
from webhooks.events import Event
from webhooks.services import announce


def unit_completed_announce(*, unit_id: int, **_) -> None:
    """Subscribed to ``annotation.events``' ``rated``: a study unit has all its ratings."""

    def build() -> tuple[dict, dict[str, str]] | None:
        study_unit = (
            StudyUnit.objects.select_related("study", "case").filter(unit_id=unit_id).first()
        )
        # A calibration unit belongs to no study: nothing to announce.
        return None if study_unit is None else _unit_payload(study_unit)

    announce(event=Event.UNIT_COMPLETED, build=build)


def gold_ready_announce(*, study_unit: StudyUnit) -> None:
    """The unit's gold is written (by the majority, or with a senior's decision)."""
    announce(event=Event.GOLD_READY, build=lambda: _unit_payload(study_unit))


def study_opened_announce(*, study: Study) -> None:
    announce(
        event=Event.STUDY_OPENED,
        build=lambda: (
            {**_study_data(study), "units": study.units.count(), "due_date": _due(study)},
            _study_links(study),
        ),
    )


def study_closed_announce(*, study: Study, counts: dict[str, int]) -> None:
    """``counts`` as ``study_close`` returns them. The study report is computed when it is
    read: final at the close unless units still await a senior (``awaiting``), whose
    ``gold.ready`` events follow."""

    def build() -> tuple[dict, dict[str, str]]:
        report = reverse("validation:study-report", kwargs={"name": study.name})
        export = reverse("validation:study-export", kwargs={"name": study.name})
        links = {**_study_links(study), "report": report, "export": export}
        return {**_study_data(study), **counts}, links

    announce(event=Event.STUDY_CLOSED, build=build)


def _unit_payload(study_unit: StudyUnit) -> tuple[dict, dict[str, str]]:
    study = study_unit.study
    data = {
        **_study_data(study),
        "unit": study_unit.unit_id,
        "study_unit": study_unit.pk,
        "case": study_unit.case.question_id,
        "state": study_unit.state,
    }
    links = {
        **_study_links(study),
        "unit_admin": reverse("admin:validation_studyunit_change", args=[study_unit.pk]),
    }
    return data, links


def _study_data(study: Study) -> dict:
    return {"study": study.name, "study_id": study.pk}


def _study_links(study: Study) -> dict[str, str]:
    return {
        "dashboard": reverse("dashboard:study", kwargs={"name": study.name}),
        "admin": reverse("admin:validation_study_change", args=[study.pk]),
    }


def _due(study: Study) -> str | None:
    return study.due_date.isoformat() if study.due_date else None
