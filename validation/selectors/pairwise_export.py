"""A pairwise study's export: one row per pair, each rater's choice, the senior's, the gold and
every judge's choice in both orders (``heartbench study export`` of a pairwise study; schema
``pairwise-study-export``)."""

from collections.abc import Iterator

from annotation.selectors import pair_answers
from validation.models import PairwiseGold, Study


def pairwise_export_rows(*, study: Study) -> Iterator[dict]:
    # Deferred: the pairwise selectors load numpy (tests/test_startup.py).
    from benchmark.selectors.pairwise import pairwise_run_outcomes, pairwise_runs_newest

    units = list(
        study.units.select_related(
            "case", "unit__pair__response_a__model", "unit__pair__response_b__model"
        ).order_by("pk")
    )
    ratings: dict[int, dict[int, tuple]] = {}
    decided: dict[int, tuple] = {}
    for a in pair_answers(pool=study.pool):
        if a.is_rating:
            ratings.setdefault(a.unit_id, {})[a.slot] = (
                a.pseudonym,
                a.winner,
                a.first_shown,
                a.reason,
            )
        else:
            decided[a.unit_id] = (a.pseudonym, a.winner, a.reason)
    gold = {g.study_unit_id: g for g in PairwiseGold.objects.filter(study_unit__study=study)}
    judged = {
        name: {o.pair_id: o for o in pairwise_run_outcomes(run=run)}
        for name, run in pairwise_runs_newest(pair_set=study.pair_set).items()
    }
    for unit in units:
        pair = unit.unit.pair
        row = {
            "study": study.name,
            "unit": unit.unit.token,
            "case": unit.case.question_id,
            "model_a": pair.response_a.model.name,
            "model_b": pair.response_b.model.name,
            "difficulty": unit.case.difficulty,
            "primary_scene": unit.case.primary_scene,
        }
        for slot in range(1, study.pool.raters_per_unit + 1):
            rater, winner, first, reason = ratings.get(unit.unit_id, {}).get(slot, ("",) * 4)
            row |= {
                f"rater_{slot}": rater,
                f"rater_{slot}_choice": winner,
                f"rater_{slot}_shown_first": first,
                f"rater_{slot}_reason": reason,
            }
        adjudicator, winner, reason = decided.get(unit.unit_id, ("", "", ""))
        row |= {"adjudicator": adjudicator, "adjudicator_choice": winner}
        row["adjudicator_reason"] = reason
        found = gold.get(unit.pk)
        row["gold"] = found.winner if found else ""
        row["provenance"] = found.provenance if found else unit.state
        for name, outcomes in judged.items():
            outcome = outcomes.get(pair.pk)
            row[f"judge:{name}"] = outcome.outcome if outcome else ""
            row[f"judge:{name}:ab"] = outcome.stored if outcome else ""
            row[f"judge:{name}:ba"] = outcome.swapped if outcome else ""
        yield row
