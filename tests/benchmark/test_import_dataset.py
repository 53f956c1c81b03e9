"""`heartbench import-dataset`: the released data, versions, and the malformed-file corpus."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management.base import CommandError
from django.test import override_settings

from benchmark import models
from benchmark.importing import DEFAULT_MAX_LINE_BYTES
from tests.builders.importing import (
    BASE_DATASET,
    CORPUS,
    DATASET_CORPUS,
    assert_refused,
    run,
    table_counts,
)


def test_the_corpus_holds_every_listed_file():
    on_disk = {p.name for p in CORPUS.glob("dataset-*.jsonl")}
    assert on_disk == set(DATASET_CORPUS)
    assert len(on_disk) + len(list(CORPUS.glob("[av]*-*.jsonl"))) >= 15


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(DATASET_CORPUS))
def test_malformed_dataset_is_refused_whole(name):
    run("import_dataset", str(BASE_DATASET))  # so "unchanged" is checked on a non-empty db
    line, reason = DATASET_CORPUS[name]
    assert_refused("import_dataset", CORPUS / name, line, reason)


@pytest.mark.django_db
def test_huge_line_is_refused_before_parsing(tmp_path):
    path = tmp_path / "huge.jsonl"
    good = BASE_DATASET.read_text(encoding="utf-8").splitlines()[0]
    with path.open("w", encoding="utf-8") as handle:
        handle.write(good + "\n")
        handle.write('{"question_id": "' + "x" * DEFAULT_MAX_LINE_BYTES + '"}\n')
    assert_refused("import_dataset", path, 2, "line is longer than 8,388,608 bytes")


@pytest.mark.django_db
@override_settings(HEARTBENCH_MAX_IMPORT_LINE_BYTES=200)
def test_line_limit_is_a_setting():
    assert_refused("import_dataset", BASE_DATASET, 1, "line is longer than 200 bytes")


@pytest.mark.django_db
@override_settings(HEARTBENCH_MAX_IMPORT_BYTES=100)
def test_file_over_the_size_limit_is_refused():
    before = table_counts()
    with pytest.raises(CommandError, match=r"over the import limit of 100 bytes"):
        run("import_dataset", str(BASE_DATASET))
    assert table_counts() == before


@pytest.mark.django_db
def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read the file"):
        run("import_dataset", str(tmp_path / "nope.jsonl"))


@pytest.mark.django_db
def test_base_dataset_is_stored_as_written():
    output = run("import_dataset", str(BASE_DATASET), "--licence", "test data")
    assert "imported base-dataset v1: 3 cases (2 normal, 1 hard), 9 criteria" in output
    dataset = models.Dataset.objects.get()
    assert (dataset.source, dataset.licence_note, dataset.is_demo) == (
        "base-dataset.jsonl",
        "test data",
        False,
    )
    assert dataset.warnings == []
    cases = list(dataset.cases.order_by("position"))
    assert [(c.question_id, c.position, c.difficulty) for c in cases] == [
        ("m-01", 0, "normal"),
        ("m-02", 1, "hard"),
        ("m-03", 2, "normal"),
    ]
    assert cases[0].dialogue[2] == {"role": "A", "content": "我就是一紧张就什么都忘了。"}
    rubric = list(cases[1].rubric.order_by("position").values_list("position", "ability", "points"))
    assert rubric == [
        (0, "emotional_perception", 4),
        (1, "verbal_expression", -3),
        (2, "proactivity", 2),
        (3, "catastrophic", None),
    ]
    event = models.AuditEvent.objects.get()
    assert (event.action, event.object_id) == ("dataset.import", str(dataset.pk))
    assert event.data["cases"] == 3


@pytest.mark.django_db
def test_name_source_and_demo_options():
    run("import_dataset", str(BASE_DATASET), "--name", "demo", "--source", "ours", "--demo")
    dataset = models.Dataset.objects.get()
    assert (dataset.name, dataset.source, dataset.is_demo) == ("demo", "ours", True)


@pytest.mark.django_db
def test_same_content_is_a_no_op_even_with_crlf_and_other_key_order(tmp_path):
    run("import_dataset", str(BASE_DATASET))
    before = table_counts()
    # Same cases, keys reversed, spacing changed, CRLF line ends, a blank line: same content.
    variant = tmp_path / "base-dataset.jsonl"
    rows = [json.loads(line) for line in BASE_DATASET.read_text(encoding="utf-8").splitlines()]
    lines = [json.dumps(dict(reversed(row.items())), indent=None) for row in rows]
    variant.write_bytes(("\r\n".join(lines) + "\r\n\r\n").encode())
    output = run("import_dataset", str(variant))
    assert "already imported as base-dataset v1; nothing changed" in output
    assert table_counts() == before


@pytest.mark.django_db
def test_changed_content_becomes_a_new_version(tmp_path):
    run("import_dataset", str(BASE_DATASET))
    changed = tmp_path / "base-dataset.jsonl"
    changed.write_text(
        BASE_DATASET.read_text(encoding="utf-8").replace('"score": 3', '"score": 3.0', 1),
        encoding="utf-8",
    )
    # 3.0 is the integer 3: the content is the same.
    assert "already imported" in run("import_dataset", str(changed))
    changed.write_text(
        BASE_DATASET.read_text(encoding="utf-8").replace('"score": 3', '"score": 5', 1),
        encoding="utf-8",
    )
    assert "imported base-dataset v2" in run("import_dataset", str(changed))
    first, second = models.Dataset.objects.order_by("version")
    assert first.content_hash != second.content_hash
    assert second.cases.count() == 3
    assert models.RubricItem.objects.filter(case__dataset=second, points=5).count() == 1
    assert models.AuditEvent.objects.filter(action="dataset.import").count() == 2


def _ids(path: Path) -> set[str]:
    return {json.loads(line)["question_id"] for line in path.open(encoding="utf-8")}


@pytest.mark.django_db
def test_released_dataset_imports_with_its_seven_warnings(shared_data):
    output = run("import_dataset", str(shared_data / "question_all.jsonl"))
    assert "296 cases (212 normal, 84 hard), 3,114 criteria" in output
    dataset = models.Dataset.objects.get()
    assert (dataset.case_count, dataset.criterion_count) == (296, 3114)
    assert models.Case.objects.count() == 296
    assert models.RubricItem.objects.count() == 3114
    for difficulty in ("normal", "hard"):
        stored = set(
            dataset.cases.filter(difficulty=difficulty).values_list("question_id", flat=True)
        )
        assert stored == _ids(shared_data / f"question_{difficulty}.jsonl")
    kinds = sorted((w["kind"], w["question_id"]) for w in dataset.warnings)
    assert [k for k, _ in kinds].count("empty_primary_scene") == 5
    assert ("no_catastrophic", "XzV0Im") in kinds
    assert ("irregular_catastrophic", "c8nGp1") in kinds
    assert len(kinds) == 7
    assert output.count("warning: line ") == 7
    # The 295 usual catastrophic criteria keep null points; the odd one keeps its −4.
    catastrophic = models.RubricItem.objects.filter(ability="catastrophic")
    assert catastrophic.filter(points__isnull=True).count() == 295
    assert list(catastrophic.exclude(points__isnull=True).values_list("points", flat=True)) == [-4]

    before = table_counts()
    assert "already imported as question_all v1" in run(
        "import_dataset", str(shared_data / "question_all.jsonl")
    )
    assert table_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize(("difficulty", "cases"), [("hard", 84), ("normal", 212)])
def test_the_released_split_files_take_their_difficulty_from_the_file_name(
    shared_data, difficulty, cases
):
    # question_hard.jsonl and question_normal.jsonl carry no "difficulty" field.
    path = shared_data / f"question_{difficulty}.jsonl"
    output = run("import_dataset", str(path))
    assert f"{cases} cases ({cases} {difficulty})" in output
    dataset = models.Dataset.objects.get()
    assert set(dataset.cases.values_list("difficulty", flat=True)) == {difficulty}
    assumed = [w for w in dataset.warnings if w["kind"] == "difficulty_assumed"]
    assert len(assumed) == 1 and assumed[0]["line"] == 1
    assert (
        f'no "difficulty" on {cases} of {cases} cases: taken as "{difficulty}" '
        f"from the file name {path.name}"
    ) in assumed[0]["message"]
    assert f"warning: line 1: {assumed[0]['message']}" in output


@pytest.mark.django_db
def test_a_file_without_difficulty_needs_one_given_and_keeps_the_lines_own(tmp_path):
    lines = BASE_DATASET.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    del rows[0]["difficulty"]
    path = tmp_path / "pilot.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    assert_refused("import_dataset", path, 1, 'missing required field "difficulty"')
    output = run("import_dataset", str(path), "--difficulty", "hard")
    assert 'no "difficulty" on 1 of 3 cases: taken as "hard" as given' in output
    stored = dict(models.Case.objects.values_list("question_id", "difficulty"))
    assert stored[rows[0]["question_id"]] == "hard"
    assert [stored[r["question_id"]] for r in rows[1:]] == [r["difficulty"] for r in rows[1:]]
    with pytest.raises(CommandError, match="invalid choice: 'easy'"):
        run("import_dataset", str(path), "--difficulty", "easy")


def _console(*args: str, cwd: Path, data_dir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["HEARTBENCH_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-c", "from config.cli import main; main()", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_console_script_imports_a_split_file_and_refuses_a_bad_line(tmp_path, shared_data):
    """The real `heartbench` entry point, in its own process, on its own SQLite file."""
    project = Path(__file__).resolve().parents[2]
    assert _console("migrate", "-v0", cwd=project, data_dir=tmp_path).returncode == 0
    ok = _console("import-dataset", str(BASE_DATASET), cwd=project, data_dir=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert "imported base-dataset v1" in ok.stdout
    for name in ("dataset-crlf-error.jsonl", "dataset-bom.jsonl", "dataset-duplicate-ids.jsonl"):
        line, reason = DATASET_CORPUS[name]
        bad = _console("import-dataset", str(CORPUS / name), cwd=project, data_dir=tmp_path)
        assert bad.returncode != 0
        assert f"{CORPUS / name}:{line}: " in bad.stderr and reason in bad.stderr
    answers = CORPUS / "answers-unknown-id.jsonl"
    bad = _console("import-answers", str(answers), "--model", "m", cwd=project, data_dir=tmp_path)
    assert bad.returncode != 0 and f"{answers}:2: unknown question_id" in bad.stderr
    hard = shared_data / "question_hard.jsonl"
    split = _console("import-dataset", str(hard), cwd=project, data_dir=tmp_path)
    assert split.returncode == 0, split.stderr
    assert "imported question_hard v1: 84 cases (84 hard)" in split.stdout
