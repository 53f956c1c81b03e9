"""Reads of the validation app (admin and export side; nothing here is shown to experts)."""

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence

from django.db.models import Count, OuterRef, QuerySet
from django.utils.translation import gettext

from annotation.models import Pool
from annotation.selectors import decision_labels, rating_count, rating_labels
from benchmark.models import Dataset, JudgeRun, ModelUnderTest, PairwiseSet
from benchmark.selectors import models_under_test, run_lists
from benchmark.selectors.datasets import dataset_newest_named, datasets_with_responses
from benchmark.selectors.rubric import cases_criteria
from benchmark.selectors.verdicts import run_verdicts
from validation.closing import COMPLETE, NEVER_RATED, PARTLY_RATED, Completion, completion_of
from validation.label_spellings import label_word
from validation.models import GoldLabel, Study, StudyUnit


def study_get(*, name: str) -> Study | None:
    return Study.objects.select_related("pool", "dataset").filter(name=name).first()


def studies_for_admin() -> QuerySet[Study]:
    """Every study, newest first, with what its summary shows (``unit_count``: its units)."""
    return (
        Study.objects.select_related("pool", "dataset")
        .prefetch_related("models_under_test", "judge_runs")
        .annotate(unit_count=Count("units"))
        .order_by("-created_at", "-id")
    )


def datasets_blind_for(*, user) -> set[str]:
    """Names of the datasets the user rates in a study not yet closed (enrolled in it, active
    or not): while the study runs its raters see no model identity, judge name or judge
    figure for the dataset, any version (DESIGN: blindness). Staff see everything."""
    if user.is_staff:
        return set()
    return set(
        Study.objects.filter(pool__experts__user=user)
        .exclude(pool__status=Pool.Status.CLOSED)
        .values_list("dataset__name", flat=True)
    )


def study_for_admin(*, name: str) -> Study | None:
    return studies_for_admin().filter(name=name).first()


class UnknownName(LookupError):
    """A name given for a new study that matches nothing; ``field`` says which input."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.field = field


def dataset_newest(*, name: str) -> Dataset:
    """The newest version of the dataset of this name."""
    dataset = dataset_newest_named(name=name)
    if dataset is None:
        raise UnknownName(gettext("no dataset named %(name)r") % {"name": name}, field="dataset")
    return dataset


def pairwise_set_named(*, name: str) -> PairwiseSet:
    """The pairwise set of this name."""
    # Deferred: the pairwise selectors load numpy (tests/test_startup.py).
    from benchmark.selectors.pairwise import pairwise_set_exists, pairwise_set_get

    if not pairwise_set_exists(name=name):
        raise UnknownName(
            gettext("no pairwise set named %(name)r") % {"name": name}, field="pair_set"
        )
    return pairwise_set_get(name=name)


def models_named(*, names: Sequence[str]) -> list[ModelUnderTest]:
    """The models of these names, in the order given."""
    found = {m.name: m for m in models_under_test.models_of_names(names=names)}
    missing = [n for n in names if n not in found]
    if missing:
        raise UnknownName(
            gettext("unknown model(s): %(names)s") % {"names": ", ".join(missing)}, field="models"
        )
    return [found[n] for n in names]


def judge_runs_named(
    *, values: Sequence[str], dataset: Dataset, models: Sequence[ModelUnderTest]
) -> list[JudgeRun]:
    """Each value is a run id or a judge name (its newest finished run per chosen model)."""
    runs: list[JudgeRun] = []
    for value in values:
        if value.isdigit():
            run = run_lists.judge_run_find(run_id=int(value))
            if run is None:
                raise UnknownName(
                    gettext("no judge run %(run)s") % {"run": value}, field="judge_runs"
                )
            runs.append(run)
            continue
        named = judge_runs_for(dataset=dataset, models=models).filter(
            judge__name=value, status=JudgeRun.Status.FINISHED, repeat_of__isnull=True
        )
        latest = {}
        for run in named.order_by("created_at", "pk"):
            latest[run.model_id] = run
        if not latest:
            raise UnknownName(
                gettext("judge %(judge)r has no finished run on %(dataset)s for these models")
                % {"judge": value, "dataset": dataset},
                field="judge_runs",
            )
        runs.extend(latest.values())
    return runs


def unit_gold(*, unit_id: int) -> dict[int, GoldLabel]:
    """The gold label of each criterion of a study's unit, by rubric item (empty: none yet)."""
    return {g.rubric_item_id: g for g in GoldLabel.objects.filter(study_unit__unit_id=unit_id)}


def demo_dataset() -> Dataset | None:
    """The demo dataset if loaded, else the newest dataset that has responses."""
    with_responses = datasets_with_responses()
    return (
        with_responses.filter(is_demo=True).order_by("-version").first()
        or with_responses.order_by("-created_at").first()
    )


def models_with_responses(*, dataset: Dataset) -> QuerySet[ModelUnderTest]:
    return models_under_test.models_with_responses(dataset=dataset)


def judge_runs_for(*, dataset: Dataset, models) -> QuerySet[JudgeRun]:
    return run_lists.judge_runs_for(dataset=dataset, models=models)


# States of units whose rating is over: three ratings in (gold, or waiting for a senior on a
# split) or decided by a senior.
_RATED = (StudyUnit.State.GOLD, StudyUnit.State.AWAITING, StudyUnit.State.ADJUDICATED)


def study_units_with_ratings(*, study: Study) -> QuerySet[StudyUnit]:
    """The study's units, each with ``ratings``: its number of rating submissions."""
    return study.units.annotate(ratings=rating_count(unit=OuterRef("unit_id")))


def study_completion(*, study: Study) -> Completion:
    """The study's units by how far their rating got: what closing it now would find."""
    raters = study.pool.raters_per_unit
    found, criteria = Counter(), Counter()
    units = study_units_with_ratings(study=study).annotate(criteria=Count("case__rubric"))
    for state, ratings, n in units.values_list("state", "ratings", "criteria"):
        if state == StudyUnit.State.DROPPED:
            found["dropped"] += 1
        elif state in _RATED:
            found[COMPLETE] += 1
        else:
            completion = completion_of(ratings=ratings, raters=raters)
            found[completion] += 1
            criteria[completion] += n
    return Completion(
        complete=found[COMPLETE],
        partly_rated=found[PARTLY_RATED],
        never_rated=found[NEVER_RATED],
        dropped=found["dropped"],
        partly_rated_criteria=criteria[PARTLY_RATED],
        never_rated_criteria=criteria[NEVER_RATED],
    )


def units_for_adjudication(*, study: Study) -> QuerySet[StudyUnit]:
    """Units whose gold waits for a senior: split on a chosen criterion, or closed short."""
    waiting = [StudyUnit.State.INCOMPLETE, StudyUnit.State.AWAITING]
    return study.units.filter(state__in=waiting).select_related("case", "model")


def _judge_labels(runs: list[JudgeRun]) -> dict[int, str]:
    """Column name per run: the judge's name, or name#run when a judge ran twice on a model."""
    twice = Counter((r.judge_id, r.model_id) for r in runs)
    return {
        r.pk: f"judge:{r.judge.name}" + (f"#{r.pk}" if twice[(r.judge_id, r.model_id)] > 1 else "")
        for r in runs
    }


def study_export_rows(*, study: Study) -> Iterator[dict]:
    """One row per (unit, criterion): case, model, ability, points, raters (pseudonym, label,
    note), the adjudicator (pseudonym, label, reason), gold, judges; a pairwise study's, one
    row per pair (``validation.selectors.pairwise_export``)."""
    if study.is_pairwise:
        from validation.selectors.pairwise_export import pairwise_export_rows

        yield from pairwise_export_rows(study=study)
        return
    runs = list(study.judge_runs.select_related("judge").order_by("pk"))
    judge_label = _judge_labels(runs)
    judge_columns = sorted(set(judge_label.values()))
    raters = study.pool.raters_per_unit
    units = list(study.units.select_related("case", "model", "unit__response").order_by("pk"))
    # (pseudonym, label, note) per slot: the export is blind to who rated, as the report is.
    labels: dict[tuple[int, int], dict[int, tuple[str, bool, str]]] = defaultdict(dict)
    adjudicated: dict[tuple[int, int], tuple[str, bool, str]] = {}
    unit_ids = [u.unit_id for u in units]
    fields = ("submission__unit_id", "rubric_item_id", "submission__slot",
              "submission__expert__pseudonym", "hit", "note")  # fmt: skip
    for unit_id, item_id, slot, *value in (
        rating_labels().filter(submission__unit_id__in=unit_ids).values_list(*fields)
    ):
        labels[(unit_id, item_id)][slot] = tuple(value)
    for unit_id, item_id, _slot, *value in (
        decision_labels().filter(submission__unit_id__in=unit_ids).values_list(*fields)
    ):
        adjudicated[(unit_id, item_id)] = tuple(value)
    gold = {
        (g.study_unit_id, g.rubric_item_id): g
        for g in GoldLabel.objects.filter(study_unit__study=study)
    }
    verdicts: dict[tuple[int, int], dict[str, str]] = defaultdict(dict)
    for run_id, response_id, item_id, state in run_verdicts(
        runs=runs, responses=[u.unit.response_id for u in units]
    ).values_list("run_id", "response_id", "rubric_item_id", "state"):
        verdicts[(response_id, item_id)][judge_label[run_id]] = state
    items = defaultdict(list)
    for item in cases_criteria(case_ids=[u.case_id for u in units]).order_by("position"):
        items[item.case_id].append(item)

    for unit in units:
        for item in items[unit.case_id]:
            key = (unit.unit_id, item.pk)
            row = {
                "study": study.name,
                "unit": unit.unit.token,
                "case": unit.case.question_id,
                "model": unit.model.name,
                "difficulty": unit.case.difficulty,
                "primary_scene": unit.case.primary_scene,
                "criterion": item.position,
                "ability": item.ability,
                "points": item.points,
            }
            for slot in range(1, raters + 1):
                rater, hit, note = labels[key].get(slot, ("", None, ""))
                row[f"rater_{slot}"] = rater
                row[f"rater_{slot}_label"] = label_word(hit)
                row[f"rater_{slot}_note"] = note
            adjudicator, adjudicated_hit, reason = adjudicated.get(key, ("", None, ""))
            row["adjudicator"] = adjudicator
            row["adjudicator_label"] = label_word(adjudicated_hit)
            row["adjudicator_note"] = reason
            gold_label = gold.get((unit.pk, item.pk))
            row["gold"] = label_word(gold_label.hit if gold_label else None)
            row["provenance"] = gold_label.provenance if gold_label else unit.state
            for column in judge_columns:
                row[column] = verdicts[(unit.unit.response_id, item.pk)].get(column, "")
            yield row
