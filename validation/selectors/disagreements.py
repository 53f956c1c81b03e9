"""The disagreement viewer's reads: a study's gold labels beside each judge's verdict, filtered
and paginated, with what one item shows (dialogue, response, criterion, the judge's reasoning
and raw reply, the raters' labels and notes under their pseudonyms, the senior's reason).

One row per (gold label, verdict of a judge run of the study on that unit's model). The
listing is one query over gold ⋈ verdict; the details are loaded for a page (or a CSV chunk)
only, so a study of ~30,000 items pages as fast as a small one.
"""

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

from django.core.paginator import Page, Paginator
from django.db.models import FilteredRelation, Q, QuerySet

from annotation.selectors import blind_dialogue, decision_labels, pool_units, rating_labels
from benchmark.models import Verdict
from benchmark.selectors.verdicts import verdict_reasonings, verdicts_shown
from benchmark.taxonomy import ABILITIES
from validation.label_spellings import label_word
from validation.models import GoldLabel, Study

AGREE: Final = "agree"
DISAGREE: Final = "disagree"
ERROR: Final = "error"
AGREEMENTS: Final = (AGREE, DISAGREE, ERROR)
PAGE_SIZE: Final = 25
# Rows whose details one CSV query batch loads.
CSV_CHUNK: Final = 2000

# The judge's verdict that matches each gold value.
_MATCHING = {True: Verdict.State.MET, False: Verdict.State.NOT_MET}


class FilterError(ValueError):
    """A filter value the study does not offer; ``field`` names the filter."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class DisagreementOptions:
    """What each filter may take in this study."""

    abilities: tuple[str, ...]
    models: tuple[str, ...]
    judges: tuple[str, ...]
    provenances: tuple[str, ...] = tuple(GoldLabel.Provenance.values)
    agreements: tuple[str, ...] = AGREEMENTS


@dataclass(frozen=True)
class DisagreementFilters:
    """Empty text: no filter. ``unit`` and ``criterion`` pin one item (the rubric history's
    link back to the disagreement that prompted an edit)."""

    ability: str = ""
    model: str = ""
    provenance: str = ""
    judge: str = ""
    agreement: str = ""
    unit: str = ""
    criterion: int | None = None

    def as_query(self) -> dict[str, str]:
        """The filters set, as query parameters (the links that keep them)."""
        values = {name: getattr(self, name) for name in FILTER_NAMES}
        return {k: str(v) for k, v in values.items() if v not in ("", None)}


FILTER_NAMES: Final = ("ability", "model", "provenance", "judge", "agreement", "unit", "criterion")


@dataclass(frozen=True)
class RaterLabel:
    pseudonym: str
    hit: bool
    note: str


@dataclass
class DisagreementItem:
    """One row of the viewer; the fields after ``judge`` are filled for a page or CSV chunk."""

    study_unit_id: int
    unit_id: int
    case: str
    model: str
    criterion_id: int
    position: int
    ability: str
    points: int | None
    gold: bool
    provenance: str
    verdict_id: int
    verdict: str
    judge: str
    unit: str = ""
    criterion_text: str = ""
    criterion_version: int = 1
    verdict_version: int = 1
    reasoning: str = ""
    raw_reply: str = ""
    response: str = ""
    dialogue: list[dict[str, str]] = field(default_factory=list)
    raters: list[RaterLabel] = field(default_factory=list)
    adjudicator: RaterLabel | None = None

    @property
    def agreement(self) -> str:
        if self.verdict == Verdict.State.ERROR:
            return ERROR
        return AGREE if _MATCHING[self.gold] == self.verdict else DISAGREE


def disagreement_options(*, study: Study) -> DisagreementOptions:
    runs = study.judge_runs.select_related("judge")
    return DisagreementOptions(
        abilities=tuple(a.code for a in ABILITIES),
        models=tuple(study.models_under_test.order_by("name").values_list("name", flat=True)),
        judges=tuple(sorted({run.judge.name for run in runs})),
    )


def disagreement_filters_parse(
    *, query: Mapping[str, str], options: DisagreementOptions
) -> DisagreementFilters:
    """Filters from query parameters; a value the study does not offer is refused by name
    (a mistyped link must not silently show everything)."""
    offered = {
        "ability": options.abilities,
        "model": options.models,
        "provenance": options.provenances,
        "judge": options.judges,
        "agreement": options.agreements,
    }
    values: dict = {}
    for name, allowed in offered.items():
        value = query.get(name, "")
        if value and value not in allowed:
            raise FilterError(f"{name}: no such value {value!r} in this study", field=name)
        values[name] = value
    values["unit"] = query.get("unit", "")
    criterion = query.get("criterion", "")
    if criterion:
        if not criterion.isdigit():
            raise FilterError(f"criterion: not an id: {criterion!r}", field="criterion")
        values["criterion"] = int(criterion)
    return DisagreementFilters(**values)


def _rows(*, study: Study, filters: DisagreementFilters) -> tuple[QuerySet, dict[int, str]]:
    """The filtered listing (tuples in ``DisagreementItem``'s order, the run id last) and
    the judge's name of each run."""
    runs = list(study.judge_runs.select_related("judge"))
    if filters.judge:
        runs = [r for r in runs if r.judge.name == filters.judge]
    # A verdict belongs beside a gold label when its run judged that unit's model.
    same_model = Q(pk__in=[])
    for run in runs:
        same_model |= Q(verdict__run_id=run.pk, study_unit__model_id=run.model_id)
    # One filter() call: every condition on ``verdict`` then names the same join (a second
    # call would join the verdicts again and pair a gold label with every verdict).
    where = same_model
    if filters.ability:
        where &= Q(rubric_item__ability=filters.ability)
    if filters.model:
        where &= Q(study_unit__model__name=filters.model)
    if filters.provenance:
        where &= Q(provenance=filters.provenance)
    if filters.agreement:
        # Stated positively: a negated condition on ``verdict`` becomes a subquery over
        # every verdict of the criterion, other runs' included.
        met, not_met = Verdict.State.MET, Verdict.State.NOT_MET
        where &= {
            AGREE: Q(hit=True, verdict__state=met) | Q(hit=False, verdict__state=not_met),
            DISAGREE: Q(hit=True, verdict__state=not_met) | Q(hit=False, verdict__state=met),
            ERROR: Q(verdict__state=Verdict.State.ERROR),
        }[filters.agreement]
    if filters.unit:
        unit_ids = pool_units(pool=study.pool).filter(token=filters.unit).values("pk")
        where &= Q(study_unit__unit_id__in=unit_ids)
    if filters.criterion is not None:
        where &= Q(rubric_item_id=filters.criterion)
    rows = (
        GoldLabel.objects.filter(study_unit__study=study)
        .annotate(
            verdict=FilteredRelation(
                "rubric_item__verdicts",
                condition=Q(rubric_item__verdicts__run_id__in=[r.pk for r in runs]),
            )
        )
        .filter(where)
    )
    listing = rows.order_by(
        "study_unit__case__position", "study_unit__model__name", "rubric_item__position",
        "verdict__run_id",
    ).values_list(
        "study_unit_id", "study_unit__unit_id", "study_unit__case__question_id",
        "study_unit__model__name", "rubric_item_id", "rubric_item__position",
        "rubric_item__ability", "rubric_item__points", "hit", "provenance", "verdict__id",
        "verdict__state", "verdict__run_id",
    )  # fmt: skip
    return listing, {run.pk: run.judge.name for run in runs}


def _items(rows, judges: dict[int, str]) -> list[DisagreementItem]:
    return [DisagreementItem(*row[:-1], judge=judges[row[-1]]) for row in rows]


def _fill(items: list[DisagreementItem], *, study: Study, whole: bool) -> list[DisagreementItem]:
    """Loads what the rows show beyond the listing: tokens, criterion, verdict, labels; and,
    when ``whole`` (a page, not a CSV), the dialogue, the response and the raw reply."""
    unit_ids = {i.unit_id for i in items}
    item_ids = {i.criterion_id for i in items}
    tokens = dict(pool_units(pool=study.pool).filter(pk__in=unit_ids).values_list("pk", "token"))
    reasonings = verdict_reasonings(ids=[i.verdict_id for i in items])
    shown = verdicts_shown(ids=[i.verdict_id for i in items]) if whole else {}
    fields = ("submission__unit_id", "rubric_item_id", "submission__slot",
              "submission__expert__pseudonym", "hit", "note")  # fmt: skip
    raters: dict[tuple[int, int], dict[int, RaterLabel]] = defaultdict(dict)
    for unit_id, item_id, slot, *label in (
        rating_labels()
        .filter(submission__unit_id__in=unit_ids, rubric_item_id__in=item_ids)
        .values_list(*fields)
    ):
        raters[(unit_id, item_id)][slot] = RaterLabel(*label)
    decided = {
        (unit_id, item_id): RaterLabel(*label)
        for unit_id, item_id, _slot, *label in (
            decision_labels()
            .filter(submission__unit_id__in=unit_ids, rubric_item_id__in=item_ids)
            .values_list(*fields)
        )
    }
    for item in items:
        key = (item.unit_id, item.criterion_id)
        item.unit = tokens.get(item.unit_id, "")
        (item.reasoning, item.verdict_version, item.criterion_text,
         item.criterion_version) = reasonings[item.verdict_id]  # fmt: skip
        item.raters = [raters[key][slot] for slot in sorted(raters[key])]
        item.adjudicator = decided.get(key)
        if whole:
            verdict = shown[item.verdict_id]
            item.raw_reply = verdict.raw_reply
            item.response = verdict.response.text
            item.dialogue = blind_dialogue(case=verdict.response.case)
    return items


def disagreements_page(
    *, study: Study, filters: DisagreementFilters, number: str | int | None
) -> Page:
    """One page of the filtered rows, each a whole :class:`DisagreementItem`; a page number
    past the end or not a number gives the nearest valid page."""
    rows, judges = _rows(study=study, filters=filters)
    page = Paginator(rows, PAGE_SIZE).get_page(number)
    page.object_list = _fill(_items(page.object_list, judges), study=study, whole=True)
    return page


def disagreements_all(*, study: Study, filters: DisagreementFilters) -> Iterator[DisagreementItem]:
    """Every filtered row, without dialogue, response or raw reply (the CSV), in chunks."""
    rows, judges = _rows(study=study, filters=filters)
    rows = list(rows)
    for start in range(0, len(rows), CSV_CHUNK):
        yield from _fill(_items(rows[start : start + CSV_CHUNK], judges), study=study, whole=False)


def disagreements_columns(*, study: Study) -> list[str]:
    """The CSV's columns, so that a view with no rows still says what it would hold."""
    raters = range(1, study.pool.raters_per_unit + 1)
    return [
        *("study", "unit", "case", "model", "criterion", "criterion_id", "ability", "points"),
        *("criterion_text", "judge", "verdict", "reasoning", "gold", "provenance", "agreement"),
        *(f"rater_{slot}{suffix}" for slot in raters for suffix in ("", "_label", "_note")),
        *("adjudicator", "adjudicator_label", "adjudication_reason"),
    ]


def disagreements_rows(*, study: Study, filters: DisagreementFilters) -> Iterator[dict]:
    """The filtered view as export rows (the CSV, columns :func:`disagreements_columns`):
    raters and the senior under their pseudonyms, as ``study_export_rows`` names them.
    Dialogue, response and raw reply stay out: the case and model name them, and they would
    repeat on every criterion."""
    columns = disagreements_columns(study=study)
    raters = study.pool.raters_per_unit
    for item in disagreements_all(study=study, filters=filters):
        values = [
            study.name, item.unit, item.case, item.model, item.position, item.criterion_id,
            item.ability, item.points, item.criterion_text, item.judge, item.verdict,
            item.reasoning, label_word(item.gold), item.provenance, item.agreement,
        ]  # fmt: skip
        for slot in range(raters):
            rater = item.raters[slot] if slot < len(item.raters) else None
            values += [
                rater.pseudonym if rater else "",
                label_word(rater.hit if rater else None),
                rater.note if rater else "",
            ]
        senior = item.adjudicator
        values += [
            senior.pseudonym if senior else "",
            label_word(senior.hit if senior else None),
            senior.note if senior else "",
        ]
        yield dict(zip(columns, values, strict=True))
