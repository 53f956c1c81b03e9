"""A pairwise study's report (issue 43 items 4 and 5) from three blind experts over the API and
the fake judge over real HTTP in both orders, every figure worked out by hand from the fake's
rules and the experts' planned choices; JSON, CSV and HTML."""

import io
import json
import math

import pytest
from django.core.management import call_command

from benchmark.llm.fake_pairwise import fake_merit
from benchmark.llm.fake_server import FakeLLM
from benchmark.models import PairwisePair
from tests.builders.accounts import ExpertFactory
from tests.builders.pairwise import (
    TRIO,
    answered_by,
    choose_all,
    draw,
    judge_pairwise,
    pairwise_study,
)
from tests.builders.schemas import schema_validator

pytestmark = pytest.mark.django_db


def rule_winner(pair: PairwisePair) -> str:
    a, b = fake_merit(pair.response_a.text), fake_merit(pair.response_b.text)
    return "a" if a > b else "b" if b > a else "tie"


def planned(pair: PairwisePair, rater: int) -> str:
    """The experts follow the content rule, except on case 0's ann–cat pair, where two of
    them prefer ann and the third calls it a tie (gold: ann, 2/1). (Positions go on from test
    to test: the dataset's first case, whatever its number.)"""
    names = {pair.response_a.model.name, pair.response_b.model.name}
    first_case = pair.case.dataset.cases.order_by("position").first()
    if names == {"ann", "cat"} and pair.case == first_case:
        ann = "a" if pair.response_a.model.name == "ann" else "b"
        return ann if rater < 2 else "tie"
    return rule_winner(pair)


def command(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def report():
    answered_by(names=list(TRIO), cases=2, texts=lambda i, n: f"{TRIO[n]}（{i}）", name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    raters = [ExpertFactory() for _ in range(3)]
    pairwise_study()
    choose_all(raters, planned)
    with FakeLLM() as fake:
        judge_pairwise(fake, "set")
    command("study", "close", "pairs", "--yes")
    return json.loads(command("study", "report", "pairs", "--resamples", "200"))


def test_the_pairwise_report_worked_by_hand(report):
    schema_validator("pairwise-study-report").validate(report)
    assert report["question_type"] == "pairwise" and report["study"]["pairwise_set"] == "set"
    counts = report["counts"]
    assert (counts["pairs"], counts["cases"], counts["choices"], counts["gold"]) == (6, 2, 18, 6)
    assert counts["provenance"] == {"3/3": 5, "2/1": 1}
    (judge,) = report["judges"]
    assert judge["judge"] == "fake-judge" and judge["pairs_judged"] == 6
    # Name-order codes (first, second, tie) per case: ann–bob, ann–cat, bob–cat.
    # Gold: [0, 0, 1] and [0, 2, 1]; the judge: [0, 2, 1] twice. Agreement 5/6; κ: the
    # marginals are gold 3/6, 2/6, 1/6 and judge 2/6 each, p_e = 12/36, κ = (5/6 − 1/3)/(2/3).
    with_ties = judge["vs_gold"]["with_ties"]
    assert with_ties["agreement"]["value"] == pytest.approx(5 / 6)
    assert with_ties["kappa"]["value"] == pytest.approx(0.75)
    low, high = with_ties["agreement"]["ci95"]["low"], with_ties["agreement"]["ci95"]["high"]
    assert low < 5 / 6 <= high <= 1
    # Without ties: the judge's two ann–cat ties are left out; the four left agree.
    without = judge["vs_gold"]["without_ties"]
    assert (without["n"], without["agreement"]["value"], judge["vs_gold"]["dropped_for_ties"]) == (
        4,
        1.0,
        2,
    )
    # The fake without a bias answers by content in both orders: consistent on all 6 pairs,
    # and of its 8 decisive verdicts the first shown wins exactly half.
    position = judge["position"]
    assert position["consistent"]["value"] == 1.0 and position["consistent"]["n"] == 6
    assert position["first_shown_wins"]["value"] == 0.5 and position["first_shown_wins"]["n"] == 8
    # Human baseline: on the 2/1 pair the two who chose ann are compared with no majority of
    # the others (skipped), the third with ann (a disagreement); 15 agreements elsewhere.
    baseline = report["experts"]["human_baseline"]["with_ties"]
    assert (baseline["n"], baseline["agreement"]["value"]) == (16, 15 / 16)
    # Experts rank ann > cat > bob, the judge ann = cat > bob: τ-b = 2 / √(3·2).
    assert report["experts"]["ranking"]["models"] == ["ann", "cat", "bob"]
    tau = judge["ranking_tau"]
    assert tau["n"] == 3 and tau["tau_b"] == pytest.approx(2 / math.sqrt(6), abs=1e-6)
    # No rubric judge ran on the dataset: every decisive pair is unscored.
    preference = report["rubric_preference"]
    assert preference["rubric_judge"] is None and preference["left_out"]["unscored"] == 5
    assert preference["share"]["value"] is None


def test_the_pairwise_export_has_a_row_per_pair_with_every_choice(report):
    rows = [
        json.loads(line)
        for line in command("study", "export", "pairs", "--format", "jsonl").splitlines()
    ]
    validator = schema_validator("pairwise-study-export")
    for row in rows:
        validator.validate(row)
    assert len(rows) == 6 and {r["provenance"] for r in rows} == {"3/3", "2/1"}
    for row in rows:
        pair = PairwisePair.objects.get(
            case__question_id=row["case"],
            response_a__model__name=row["model_a"],
            response_b__model__name=row["model_b"],
        )
        choices = [row[f"rater_{slot}_choice"] for slot in (1, 2, 3)]
        assert sorted(choices) == sorted(planned(pair, rater) for rater in range(3))
        assert row["judge:fake-judge"] == rule_winner(pair)  # the fake judges by content
        assert row["judge:fake-judge:ab"] == row["judge:fake-judge:ba"] == rule_winner(pair)
        assert {row["rater_1_shown_first"], row["rater_2_shown_first"]} <= {"a", "b"}
        assert row["gold"] == max(set(choices), key=choices.count)
    csv_text = command("study", "export", "pairs", "--format", "csv")
    assert csv_text.splitlines()[0].startswith("study,unit,case,model_a,model_b,")


def test_the_pairwise_report_renders_as_csv_and_html(report):
    csv_text = command("study", "report", "pairs", "--resamples", "200", "--format", "csv")
    assert "judge_vs_gold,fake-judge,,,agreement_with_ties,0.83333" in csv_text
    assert "bradley_terry,,experts,ann,strength," in csv_text
    assert "bradley_terry,fake-judge,judge,bob,strength," in csv_text
    assert "ranking_tau,fake-judge,,,tau_b,0.8164" in csv_text
    html = command("study", "report", "pairs", "--resamples", "200", "--format", "html")
    assert "fake-judge" in html and "Bradley" in html and "{{" not in html
