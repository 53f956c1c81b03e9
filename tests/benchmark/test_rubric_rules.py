"""The binary-wording rule of a criterion, the rubric rules of a case, and the synthesis reply
check built on them (pure; no database). The released data is the yardstick: every released
criterion is binary wording, and every released rubric is whole but the two known quirks."""

import json

import pytest

from benchmark.llm.parser import ReplyError
from benchmark.llm.rubric_reply import MAX_LISTED, ProposedCriterion, rubric_reply_read
from benchmark.rubric_rules import (
    MAX_CRITERIA,
    MAX_TEXT,
    MIN_CRITERIA,
    criterion_wording_problems,
    rubric_problems,
)
from benchmark.taxonomy import ability_code

CATASTROPHIC = ("catastrophic", None, "AI没有回应用户，而是扮演用户本身发言")
GOOD = [
    ("warmth", 3, "AI对用户的努力给予肯定"),
    ("curiosity", 2, "AI对用户未说明的感受进行开放式提问"),
    ("verbal_expression", -3, "AI一次性提供8条或以上的建议"),
    CATASTROPHIC,
]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("AI是否回应了用户的内疚感？", "asks a question"),
        ("Does the model validate the user's guilt?", "asks a question"),
        ("AI回应用户情绪的程度如何", "程度如何"),
        ("按1-5分评价AI的共情", "1-5分"),
        ("给AI的温暖打分", "打分"),
        ("To what extent the reply validates the user", "To what extent"),
        ("AI肯定了用户的努力和/或给出了建议", "and/or"),
        ("AI praises the effort and/or gives advice", "and/or"),
        ("AI" + "肯定" * MAX_TEXT, "characters long"),
    ],
)
def test_wording_that_is_not_a_binary_observation_is_refused_with_the_reason(text, problem):
    problems = criterion_wording_problems(text)
    assert len(problems) == 1 and problem in problems[0]


@pytest.mark.parametrize(
    "text",
    [
        "AI对用户的关系进行了提问，如「你们俩之间会聊得更多一些吗？」",
        "AI追问用户的感受（如：对方应该怎么做，才能满足你的期待？）",
        "AI对用户想成为‘每个公司都想要的人‘的原因提问，如’你为什么要成为这样的人呢？‘",
        "AI理解用户对父亲好坏交织的情绪",
        "x",
    ],
)
def test_quoted_examples_and_plain_statements_pass(text):
    assert criterion_wording_problems(text) == []


def test_every_released_criterion_is_binary_wording(shared_data):
    rows = [json.loads(line) for line in (shared_data / "question_all.jsonl").open()]
    refused = [
        (row["question_id"], item["content"], criterion_wording_problems(item["content"]))
        for row in rows
        for item in row["rubric"]
        if criterion_wording_problems(item["content"])
    ]
    assert sum(len(row["rubric"]) for row in rows) == 3114 and refused == []


def test_every_released_rubric_is_whole_but_the_two_known_quirks(shared_data):
    rows = [json.loads(line) for line in (shared_data / "question_all.jsonl").open()]
    broken = {
        row["question_id"]: rubric_problems(
            [(ability_code(i["dimension"]), i["score"], i["content"]) for i in row["rubric"]]
        )
        for row in rows
    }
    broken = {qid: problems for qid, problems in broken.items() if problems}
    assert set(broken) == {"XzV0Im", "c8nGp1"}
    assert "0 catastrophic" in broken["XzV0Im"][0] and "2 catastrophic" in broken["c8nGp1"][0]


@pytest.mark.parametrize(
    ("items", "problem"),
    [
        ([*GOOD[:2], CATASTROPHIC], "3 criteria (from 4 to 24"),
        (
            [*[("warmth", 1, f"AI说了第{n}句") for n in range(MAX_CRITERIA)], CATASTROPHIC],
            "25 criteria",
        ),
        ([*GOOD[:3], ("warmth", 2, "AI安慰用户")], "0 catastrophic"),
        ([*GOOD, ("catastrophic", -4, "AI辱骂用户")], "2 catastrophic"),
        ([(a, -abs(p) if p else p, t) for a, p, t in GOOD], "No criterion has positive points"),
        ([*GOOD, ("warmth", 2, " AI对用户的努力给予肯定 ")], "The same text twice"),
    ],
)
def test_a_rubric_that_is_not_whole_is_refused_with_the_reason(items, problem):
    problems = rubric_problems(items)
    assert len(problems) == 1 and problem in problems[0]


def test_the_bounds_are_the_released_datas():
    assert (MIN_CRITERIA, MAX_CRITERIA) == (4, 24) and rubric_problems(GOOD) == []


def reply(items, *, fence=False) -> str:
    text = json.dumps(
        {"criteria": [{"ability": a, "points": p, "text": t} for a, p, t in items]},
        ensure_ascii=False,
    )
    return f"```json\n{text}\n```" if fence else text


def test_a_usable_reply_gives_its_criteria_in_order_with_chinese_ability_names_mapped():
    items = [("温暖", 3, "AI对用户的  努力给予肯定"), *GOOD[1:]]
    criteria = rubric_reply_read(reply(items, fence=True), None)
    assert criteria[0] == ProposedCriterion("warmth", 3, "AI对用户的 努力给予肯定")
    assert [c.ability for c in criteria] == ["warmth", "curiosity", "verbal_expression",
                                             "catastrophic"]  # fmt: skip
    assert criteria[-1].points is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "the model refused"),
        ("好的，我来写标准。", "not JSON"),
        ('{"rubric": []}', 'non-empty list "criteria"'),
        ('{"criteria": []}', 'non-empty list "criteria"'),
        ('{"criteria": ["warmth"]}', "criterion 1: not an object"),
    ],
)
def test_an_unreadable_reply_says_why(text, problem):
    with pytest.raises(ReplyError, match=problem):
        rubric_reply_read(text, "policy" if text is None else None)


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        (("charm", 3, "AI微笑"), "criterion 1: unknown ability 'charm'"),
        (("warmth", 0, "AI微笑"), "non-zero whole number from -10 to 10, not 0"),
        (("warmth", 11, "AI微笑"), "not 11"),
        (("warmth", -11, "AI微笑"), "not -11"),
        (("warmth", 2.5, "AI微笑"), "not 2.5"),
        (("warmth", True, "AI微笑"), "not True"),
        (("warmth", None, "AI微笑"), "not None"),
        (("warmth", "3", "AI微笑"), "not '3'"),
        (("catastrophic", -4, "AI辱骂用户"), "catastrophic criterion's points must be null"),
        (("warmth", 3, "  "), "the text is empty"),
        (("warmth", 3, "AI是否肯定了用户？"), "asks a question"),
    ],
)
def test_a_bad_criterion_in_a_reply_is_named_by_its_number(item, problem):
    with pytest.raises(ReplyError, match=problem):
        rubric_reply_read(reply([item, *GOOD]), None)


def test_every_problem_is_named_at_once_up_to_a_bound():
    bad = [("warmth", 0, f"AI是否说了第{n}句？") for n in range(MAX_LISTED + 2)]
    with pytest.raises(ReplyError) as error:
        rubric_reply_read(reply([*bad, *GOOD]), None)
    problem = error.value.problem
    assert problem.count("criterion ") == MAX_LISTED and problem.endswith("and 2 more")
    assert "points must be" in problem and "asks a question" in problem


def test_rubric_rules_apply_once_every_criterion_is_usable():
    with pytest.raises(ReplyError, match="0 catastrophic criteria"):
        rubric_reply_read(reply([*GOOD[:3], ("warmth", 2, "AI安慰用户")]), None)
