"""The pure importing package: reader, validators, warnings and content hashing (no database)."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark.importing import (
    ContentHasher,
    ImportFailure,
    case_from_object,
    case_warnings,
    dataset_scan,
    fit_detail,
    parse_detail,
    read_objects,
)
from benchmark.importing.answers import answer_from_object

CASE = {
    "question_id": "p-01",
    "dialogue": [{"role": "A", "content": "I can't sleep before exams."}],
    "rubric": [
        {"dimension": "温暖", "score": 3, "content": "Is warm"},
        {"dimension": "言语表达", "score": -2, "content": "Lectures the user"},
        {"dimension": "其他", "score": None, "content": "Speaks as the user"},
    ],
    "difficulty": "normal",
    "primary_scene": "学业",
    "secondary_scene": "考试",
}


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "input.jsonl"
    path.write_bytes(data)
    return path


def failure_of(call) -> ImportFailure:
    with pytest.raises(ImportFailure) as caught:
        call()
    return caught.value


def test_reader_counts_blank_lines_and_accepts_crlf(tmp_path):
    path = write(tmp_path, b'{"a": 1}\r\n\r\n  \r\n{"a": 2}\r\n')
    assert list(read_objects(path)) == [(1, {"a": 1}), (4, {"a": 2})]


def test_reader_line_limit_is_exact(tmp_path):
    line = b'{"a": "' + b"x" * 93 + b'"}'  # 102 bytes
    assert len(line) == 102
    assert len(list(read_objects(write(tmp_path, line + b"\n"), max_line_bytes=102))) == 1
    failure = failure_of(
        lambda: list(read_objects(write(tmp_path, b"{}\n" + line + b"\n"), max_line_bytes=101))
    )
    assert (failure.line, failure.reason) == (
        2,
        "line is longer than 101 bytes; refusing to parse it",
    )


def test_reader_failures_name_the_line(tmp_path):
    cases = {
        b"\xef\xbb\xbf{}\n": (1, "byte order mark"),
        b'{}\n{"a": "\xc3"}\n': (2, "not valid UTF-8 (byte 0xc3 at byte 8)"),
        b"{}\n{}\n[1]\n": (3, "expected a JSON object, got an array"),
        b'{}\n{"a": Infinity}\n': (2, "Infinity is not valid JSON"),
        b'{"a": 1,\n': (1, "invalid JSON: Expecting property name enclosed in double quotes at"),
        b"[" * 100_000 + b"\n": (1, "invalid JSON"),
        b"": (1, "file holds no records"),
    }
    for data, (line, reason) in cases.items():
        failure = failure_of(lambda data=data: list(read_objects(write(tmp_path, data))))
        assert failure.line == line and reason in failure.reason, (data[:20], failure)


def test_reader_refuses_a_file_over_the_size_limit(tmp_path):
    failure = failure_of(lambda: list(read_objects(write(tmp_path, b"{}\n"), max_file_bytes=2)))
    assert failure.line is None and "over the import limit of 2 bytes" in failure.reason
    assert str(failure.with_label("x.jsonl")).startswith("x.jsonl: file is 3 bytes")


def test_case_validation_normalises_points_and_codes():
    case = case_from_object(
        {**CASE, "rubric": [{"dimension": "warmth", "score": 3.0, "content": "Is warm"}]}, line=7
    )
    (criterion,) = case.rubric
    assert (criterion.ability, criterion.points, type(criterion.points)) == ("warmth", 3, int)
    assert case.line == 7


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"question_id": 5}, "question_id: expected a non-empty string, got a number"),
        ({"question_id": "x" * 101}, "question_id: longer than 100 characters"),
        ({"dialogue": []}, "dialogue: must not be empty"),
        ({"dialogue": ["hi"]}, "dialogue[0]: expected an object, got a string"),
        ({"dialogue": [{"role": "A"}]}, 'missing required field "dialogue[0].content"'),
        ({"rubric": [{"dimension": "温暖", "content": "x"}]}, 'field "rubric[0].score"'),
        ({"rubric": [{"dimension": 3, "score": 1, "content": "x"}]}, "got a number"),
        ({"difficulty": None}, 'difficulty: expected "normal" or "hard", got null'),
        ({"primary_scene": None}, "primary_scene: expected a string, got null"),
        ({"secondary_scene": ["x"]}, "secondary_scene: expected a string, got an array"),
    ],
)
def test_case_validation_reasons(change, reason):
    failure = failure_of(lambda: case_from_object({**CASE, **change}, line=4))
    assert failure.line == 4 and reason in failure.reason


def test_case_warnings_cover_the_three_quirks():
    def kinds(**change):
        return [w.kind for w in case_warnings(case_from_object({**CASE, **change}, line=1))]

    assert kinds() == []
    assert kinds(rubric=CASE["rubric"][:2]) == ["no_catastrophic"]
    extra = {"dimension": "其他", "score": -4, "content": "Second catastrophic"}
    assert kinds(rubric=[*CASE["rubric"], extra]) == ["irregular_catastrophic"]
    assert kinds(rubric=[*CASE["rubric"][:2], extra]) == ["irregular_catastrophic"]
    assert kinds(primary_scene=" ", rubric=CASE["rubric"][:2]) == [
        "no_catastrophic",
        "empty_primary_scene",
    ]


def test_scan_learns_counts_hash_and_warnings_in_one_pass(tmp_path):
    second = {**CASE, "question_id": "p-02", "difficulty": "hard", "primary_scene": ""}
    path = write(tmp_path, "\n".join(json.dumps(c) for c in (CASE, second)).encode())
    scan = dataset_scan(path)
    assert (scan.case_count, scan.criterion_count) == (2, 6)
    assert scan.difficulty_counts == {"normal": 1, "hard": 1}
    assert [(w.line, w.question_id, w.kind) for w in scan.warnings] == [
        (2, "p-02", "empty_primary_scene")
    ]
    assert len(scan.content_hash) == 64


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(records=st.lists(st.dictionaries(st.text(), json_values, max_size=4), max_size=4))
def test_hash_ignores_key_order_and_spacing_but_not_content(records):
    plain, shuffled = ContentHasher(), ContentHasher()
    for record in records:
        plain.add(record)
        # Re-serialised with reversed keys and ASCII escapes, then parsed back: same content.
        shuffled.add(json.loads(json.dumps(dict(reversed(record.items())), indent=2)))
    assert plain.hexdigest() == shuffled.hexdigest()
    extended = ContentHasher()
    for record in [*records, {}]:
        extended.add(record)
    assert extended.hexdigest() != plain.hexdigest()


@pytest.mark.parametrize(
    ("value", "hits"),
    [
        ("[1, 0, 1]", (True, False, True)),
        ([0, 1], (False, True)),
        ("[True, False]", (True, False)),
        ([True, 0], (True, False)),
        (None, None),
        ("[]", None),
        ([], None),
    ],
)
def test_verdict_lists_in_every_upstream_form(value, hits):
    assert parse_detail(value) == hits


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ([1, 2], "score_detail[1]: expected 0 or 1, got 2"),
        ([1.0], "score_detail[0]: expected 0 or 1, got 1.0"),
        ("1, 0", 'the string is not a list like "[1, 0, 1]"'),
        ("__import__('os')", 'the string is not a list like "[1, 0, 1]"'),
        (5, "expected a list of 0/1, got a number"),
    ],
)
def test_bad_verdict_lists(value, reason):
    assert reason in failure_of(lambda: parse_detail(value)).reason


def test_fit_detail_pads_and_truncates_only_when_lenient():
    assert fit_detail((True,), criteria=3, lenient=True, line=1) == (True, False, False)
    assert fit_detail((True, True, True), criteria=2, lenient=True, line=1) == (True, True)
    failure = failure_of(lambda: fit_detail((True,), criteria=3, lenient=False, line=9))
    assert failure.line == 9 and "1 verdicts for a rubric of 3 criteria" in failure.reason


def test_failed_generations_count_as_missing_answers():
    assert answer_from_object({"question_id": "q", "response": None}, line=1).response is None
    failed = answer_from_object({"question_id": "q", "response": "Error: 429"}, line=1)
    assert failed.response is None
    kept = answer_from_object({"question_id": "q", "response": "Hi", "other": 1}, line=1)
    assert kept.response == "Hi"


def test_reader_refuses_text_no_database_can_store_naming_where(tmp_path):
    # A NUL (PostgreSQL's text cannot hold one) or half of a surrogate pair (no UTF-8 for it):
    # the same rule as the web's (config.storable), so an import never fails in the database.
    cases = {
        b'{"dialogue": [{"role": "A", "content": "a\\u0000b"}]}\n': "dialogue[0].content",
        b'{}\n{"rubric": [{}, {"content": "\\ud800"}]}\n': "rubric[1].content",
        b'{"bad\\u0000key": 1}\n': "bad\\u0000key",
    }
    for data, where in cases.items():
        failure = failure_of(lambda data=data: list(read_objects(write(tmp_path, data))))
        assert failure.line == data.count(b"\n") and failure.reason.startswith(where), failure
        assert "cannot be stored" in failure.reason and "\x00" not in failure.reason
