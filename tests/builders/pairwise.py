"""Pairwise scenarios: a dataset several models answered, the `pairwise draw` and `judge
--pairwise` commands, and the fake judge's expected choices worked out from its rules."""

import io

from django.core.management import call_command

from benchmark.llm.fake_pairwise import PairwiseRule, fake_pairwise_choice
from benchmark.llm.pairwise_reply import canonical_choice, pair_outcome, shown_pair
from benchmark.models import PairwisePair, PairwiseVerdict
from tests.builders.datasets import (
    DatasetFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)

# By the fake's content rule (more 你 wins): ann beats bob, cat beats bob, ann and cat tie.
TRIO = {"ann": "你好，你还好吗？", "bob": "我在这里，愿意听。", "cat": "你愿意说说你的感受吗？"}
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5"]


def answered_by(*, names: list[str], cases: int = 3, texts=None, difficulties=None, **fields):
    """A dataset of ``cases`` cases every model in ``names`` answered; ``texts(i, name)`` gives
    an answer (default: one naming the case and model, with one "你")."""
    dataset = DatasetFactory(**fields)
    models = {name: ModelUnderTestFactory(name=name) for name in names}
    for i in range(cases):
        difficulty = difficulties[i] if difficulties else "normal"
        case = case_with_rubric(dataset=dataset, difficulty=difficulty)
        for name, model in models.items():
            text = texts(i, name) if texts else f"{name} 对第 {i} 题：你好，我在听。"
            ResponseFactory(model=model, case=case, text=text)
    return dataset, models


def draw(*args: str) -> str:
    out = io.StringIO()
    call_command("pairwise", "draw", *args, stdout=out)
    return out.getvalue()


def judge_pairwise(fake, name: str, *args: str, judge: str = "fake-judge") -> str:
    out = io.StringIO()
    call_command("judge", "--pairwise", name, "--judge", judge, "--judge-model",
                 "fake-judge-model", "--base-url", fake.base_url, *QUICK, *args,
                 stdout=out)  # fmt: skip
    return out.getvalue()


def expected_choices(pairs, rule: PairwiseRule) -> dict[tuple[int, str], str]:
    """(pair id, order) → the canonical choice the fake makes by its rules."""
    expected = {}
    for pair in pairs:
        for order in ("ab", "ba"):
            first, second = shown_pair(
                order=order, response_a=pair.response_a.text, response_b=pair.response_b.text
            )
            shown, _ = fake_pairwise_choice(first, second, rule=rule)
            expected[pair.pk, order] = canonical_choice(shown=shown, order=order)
    return expected


def expected_outcomes(pairs, rule: PairwiseRule) -> dict[int, tuple[str, bool]]:
    choices = expected_choices(pairs, rule)
    return {
        p.pk: pair_outcome(stored=choices[p.pk, "ab"], swapped=choices[p.pk, "ba"]) for p in pairs
    }


def stored_choices(run) -> dict[tuple[int, str], str]:
    rows = PairwiseVerdict.objects.filter(run=run).values_list("pair_id", "order", "choice")
    return {(pair_id, order): choice for pair_id, order, choice in rows}


def pairs_of(name: str) -> list[PairwisePair]:
    return list(
        PairwisePair.objects.filter(pair_set__name=name).select_related(
            "response_a__model", "response_b__model", "case"
        )
    )


def pairwise_study(name: str = "pairs", *, fraction: str = "1", seed: str = "5"):
    """`heartbench study create NAME --pairwise set` over the set drawn, opened."""
    from validation import services
    from validation.models import Study

    call_command("study", "create", name, "--pairwise", "set", "--fraction", fraction,
                 "--seed", seed, stdout=io.StringIO())  # fmt: skip
    study = Study.objects.get(name=name)
    services.study_open(study=study)
    return study


def choose_all(raters, choose, *, study: str = "pairs", limit: int | None = None) -> None:
    """Each rater claims and answers (over the API) up to ``limit`` pairs of ``study``, with
    ``choose(pair, rater_index)`` giving the winner in the pair's stored order."""
    from annotation.models import Assignment
    from annotation.pairwise import as_shown
    from tests.builders.adjudication import api_for

    for index, rater in enumerate(raters):
        client, done = api_for(rater), 0
        while limit is None or done < limit:
            claimed = client.post(f"/api/v1/work/rating/next/?study={study}")
            if claimed.status_code == 204:
                break
            assignment = Assignment.objects.select_related(
                "unit__pair__response_a__model", "unit__pair__response_b__model", "unit__pair__case"
            ).get(public_id=claimed.json()["id"])
            shown = as_shown(
                choose(assignment.unit.pair, index), shuffle_seed=assignment.shuffle_seed
            )
            sent = client.post(
                f"/api/v1/work/rating/{assignment.public_id}/submit/",
                {"choice": shown},
                format="json",
            )
            assert sent.status_code == 201, sent.content
            done += 1
