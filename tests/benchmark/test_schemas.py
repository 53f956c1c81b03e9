"""The JSON Schemas of the benchmark's formats agree with the importers and describe the
exports: the released data, the fixtures and the project's own output validate; the records
the importers refuse are refused by the schema too, except for the rules only an importer can
check, which each schema's description names."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from jsonschema import Draft202012Validator

from benchmark.importing.answers import iter_answers
from benchmark.importing.dataset import DIFFICULTIES, MAX_QUESTION_ID, MAX_SCENE, ROLES, iter_cases
from benchmark.importing.reader import ImportFailure
from benchmark.importing.seeds import iter_seeds
from benchmark.importing.verdicts import iter_verdicts
from benchmark.models import Verdict
from benchmark.schema_files import schema_files, schema_load
from benchmark.taxonomy import ABILITIES, CATEGORIES, SCORED_CODES
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.schemas import schema_validator

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "malformed"
DEMO = ROOT / "fixtures" / "demo"
IMPORTERS = {
    "dataset": iter_cases,
    "answers": iter_answers,
    "verdicts": iter_verdicts,
    "seeds": iter_seeds,
}

# Refused for a rule that spans lines or needs the database, or before a line is JSON: the
# failing record (if any) is valid against the schema, whose description names the rule.
IMPORTER_ONLY = {
    "answers-duplicate-id",
    "answers-unknown-id",
    "dataset-blank-lines-only",
    "dataset-bom",
    "dataset-duplicate-ids",
    "dataset-empty",
    "dataset-invalid-utf8",
    "dataset-nan-points",
    "dataset-truncated-json",
    "seeds-duplicate-id",
    "seeds-last-turn-counsellor",
    "seeds-truncated-json",
    "verdicts-different-answer",
    "verdicts-no-answer",
    "verdicts-unknown-id",
    "verdicts-unparsable-string",
    "verdicts-wrong-length",
}


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_every_schema_is_a_valid_draft_2020_12_schema():
    assert set(schema_files()) == {
        "answers", "construction-report", "dataset", "export-log", "judge-labels", "leaderboard",
        "pairwise-board", "pairwise-rank", "pairwise-study-export", "pairwise-study-report",
        "ratings", "saturation", "seeds", "study-export", "verdicts",
    }  # fmt: skip
    for name in schema_files():
        schema = schema_load(name=name)
        Draft202012Validator.check_schema(schema)
        assert schema["$id"].endswith(f"/{name}.schema.json") and schema["description"]


def test_the_dataset_schema_holds_the_importers_vocabulary():
    schema = schema_load(name="dataset")
    criterion = schema["$defs"]["criterion"]["properties"]
    assert criterion["dimension"]["enum"] == [a.zh for a in ABILITIES] + [a.code for a in ABILITIES]
    properties = schema["properties"]
    assert properties["difficulty"]["enum"] == list(DIFFICULTIES)
    assert properties["dialogue"]["items"]["properties"]["role"]["enum"] == list(ROLES)
    assert properties["question_id"]["maxLength"] == MAX_QUESTION_ID
    assert properties["primary_scene"]["maxLength"] == MAX_SCENE
    board = schema_load(name="leaderboard")["$defs"]
    assert board["ability"]["enum"] == list(SCORED_CODES)
    assert board["category"]["enum"] == list(CATEGORIES)


def test_the_released_dataset_is_valid(shared_data):
    # question_all.jsonl is the importable file; the split files carry no difficulty.
    cases = records(shared_data / "question_all.jsonl")
    validator = schema_validator("dataset")
    assert len(cases) == 296 and all(validator.is_valid(case) for case in cases)


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ("dataset", CORPUS / "base-dataset.jsonl"),
        ("answers", CORPUS / "base-answers.jsonl"),
        ("verdicts", CORPUS / "base-verdicts.jsonl"),
        ("seeds", CORPUS / "base-seeds.jsonl"),
        ("dataset", DEMO / "demo_questions.jsonl"),
        ("answers", DEMO / "demo-advice-bot.answers.jsonl"),
        ("answers", DEMO / "demo-warm-counsellor.answers.jsonl"),
        ("verdicts", DEMO / "demo-advice-bot.scored.jsonl"),
        ("verdicts", DEMO / "demo-warm-counsellor.scored.jsonl"),
    ],
    ids=lambda value: getattr(value, "name", value),
)
def test_the_fixtures_the_importers_accept_are_valid(schema, path):
    list(IMPORTERS[schema](path))  # the importer accepts the file
    validator = schema_validator(schema)
    for record in records(path):
        validator.validate(record)


def refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def strict_json(line: bytes):
    """A line as the importer parses it (NaN and Infinity are not JSON); None if it is not."""
    try:
        return json.loads(line, parse_constant=refuse_constant)
    except ValueError:
        return None


MALFORMED = sorted(p for p in CORPUS.glob("*.jsonl") if not p.stem.startswith("base-"))


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_a_record_the_importer_refuses_is_refused_by_the_schema(path):
    kind = path.stem.split("-")[0]
    validator = schema_validator(kind)
    lines = [strict_json(line) for line in path.read_bytes().splitlines() if line.strip()]
    if path.stem in IMPORTER_ONLY:
        assert all(validator.is_valid(record) for record in lines if record is not None)
        return
    with pytest.raises(ImportFailure) as refused:
        list(IMPORTERS[kind](path))
    *earlier, bad = path.read_bytes().splitlines()[: refused.value.line]
    assert not validator.is_valid(strict_json(bad)), refused.value.reason
    assert all(validator.is_valid(strict_json(line)) for line in earlier if line.strip())


@pytest.mark.parametrize(
    ("schema", "record"),
    [
        ("dataset", {"question_id": " "}),
        ("dataset", {"rubric": [{"dimension": "温暖", "score": None, "content": "x"}]}),
        ("dataset", {"rubric": [{"dimension": "温暖", "score": 1.5, "content": "x"}]}),
        ("dataset", {"rubric": [{"dimension": "温暖", "score": 1, "content": "  "}]}),
        ("dataset", {"dialogue": [{"role": "C", "content": "x"}]}),
        ("dataset", {"secondary_scene": "x" * 201}),
        ("answers", {"response": 3}),
        ("verdicts", {"score_detail": [1, 2]}),
        ("verdicts", {"score_detail": [True, "1"]}),
        ("verdicts", {"score_reason": 5}),
    ],
)
def test_bad_fields_are_refused_by_importer_and_schema_alike(schema, record, tmp_path):
    base = records(CORPUS / f"base-{schema}.jsonl")[0]
    bad = {**base, **record}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(bad, ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(ImportFailure):
        list(IMPORTERS[schema](path))
    assert not schema_validator(schema).is_valid(bad)


def test_null_points_are_valid_on_the_catastrophic_criterion_only():
    validator = schema_validator("dataset")
    case = records(CORPUS / "base-dataset.jsonl")[0]
    for dimension, valid in (("其他", True), ("catastrophic", True), ("温暖", False)):
        rubric = [{"dimension": dimension, "score": None, "content": "x"}]
        assert validator.is_valid({**case, "rubric": rubric}) == valid


def test_the_schema_command_prints_lists_and_refuses(capsys):
    out = io.StringIO()
    call_command("schema", "dataset", stdout=out)
    assert json.loads(out.getvalue()) == schema_load(name="dataset")
    out = io.StringIO()
    call_command("schema", stdout=out)
    listed = [line.split()[0] for line in out.getvalue().splitlines()]
    assert listed == list(schema_files())
    with pytest.raises(CommandError) as caught:
        call_command("schema", "nope")
    assert caught.value.returncode == 2 and "unknown schema 'nope'" in str(caught.value)


@pytest.mark.django_db
def test_the_leaderboard_json_is_valid():
    dataset = DatasetFactory(name="schema-set")
    cases = [case_with_rubric(dataset=dataset, difficulty=d) for d in ("normal", "hard", "hard")]
    judge = JudgeFactory(name="claude")
    engine = JudgeRunFactory(judge=judge, dataset=dataset, source="engine", tokens_in=10, cost=0.5)
    partial = JudgeRunFactory(judge=judge, dataset=dataset)  # one case of three: unranked
    other = JudgeRunFactory(judge=JudgeFactory(), dataset=dataset, model=ModelUnderTestFactory())
    for run, judged in ((engine, cases), (partial, cases[:1]), (other, cases)):
        for position, case in enumerate(judged):
            response = ResponseFactory(model=run.model, case=case)
            for item in case.rubric.all():
                state = "met" if (item.position + position) % 2 else "not_met"
                Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)
    out = io.StringIO()
    call_command("leaderboard", "--format", "json", stdout=out)
    board = json.loads(out.getvalue())
    assert [row["ranked"] for row in board["models"]] == [True, False] and board["not_shown"]
    schema_validator("leaderboard").validate(board)
