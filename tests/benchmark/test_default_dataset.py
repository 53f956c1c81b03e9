"""Which dataset a command reads without `--dataset`: never simply the newest import. And the same
content under a second name is refused unless a copy is asked for."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark import models
from benchmark.llm.fake_server import FakeLLM
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve
from tests.builders.importing import BASE_DATASET
from tests.builders.llm import answered_dataset

pytestmark = pytest.mark.django_db


def imported(path, *args: str) -> str:
    out = io.StringIO()
    call_command("import_dataset", str(path), *args, stdout=out)
    return out.getvalue()


def other_content(tmp_path, name: str):
    rows = [json.loads(line) for line in BASE_DATASET.read_text(encoding="utf-8").splitlines()]
    rows[0]["question_id"] = f"{name}-01"
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_one_dataset_is_the_default_in_all_its_versions(tmp_path):
    imported(BASE_DATASET, "--name", "pilot")
    imported(other_content(tmp_path, "changed"), "--name", "pilot")
    assert dataset_resolve(name=None).version == 2


def test_a_later_import_does_not_become_the_default(tmp_path, settings):
    imported(BASE_DATASET, "--name", "question_all")
    imported(other_content(tmp_path, "test-import"))
    with pytest.raises(DatasetNotFound) as refused:
        dataset_resolve(name=None)
    assert "2 datasets (question_all, test-import)" in str(refused.value)
    assert "--dataset" in str(refused.value) and "HEARTBENCH_DEFAULT_DATASET" in str(refused.value)
    with pytest.raises(CommandError) as usage:
        call_command("leaderboard", stdout=io.StringIO())
    assert usage.value.returncode == 2
    settings.HEARTBENCH_DEFAULT_DATASET = "question_all"
    assert dataset_resolve(name=None).name == "question_all"


def test_demo_data_is_never_the_default_beside_real_data(tmp_path):
    imported(other_content(tmp_path, "real"))
    imported(BASE_DATASET, "--name", "demo", "--demo")  # the newest import
    assert dataset_resolve(name=None).name == "real"


def test_the_same_content_under_a_new_name_is_refused_unless_a_copy_is_asked_for():
    imported(BASE_DATASET, "--name", "question_all")
    with pytest.raises(CommandError) as refused:
        imported(BASE_DATASET, "--name", "copy")
    assert refused.value.returncode == 2
    assert "already imported as question_all v1" in str(refused.value)
    assert "--allow-copy" in str(refused.value)
    assert models.Dataset.objects.count() == 1
    assert "imported copy v1" in imported(BASE_DATASET, "--name", "copy", "--allow-copy")
    assert models.Dataset.objects.count() == 2


def test_a_judge_run_says_which_dataset_it_read():
    dataset, model = answered_dataset(cases=1)
    out = io.StringIO()
    with FakeLLM() as fake:
        call_command("judge", "--model", model.name, "--judge-model", "j", "--base-url",
                     fake.base_url, "--no-progress", stdout=out)  # fmt: skip
    assert f"  dataset {dataset}\n" in out.getvalue()


def test_the_leaderboard_says_which_dataset_it_read():
    imported(BASE_DATASET, "--name", "pilot")
    out = io.StringIO()
    call_command("leaderboard", "--format", "table", stdout=out)
    assert "pilot v1" in out.getvalue()
