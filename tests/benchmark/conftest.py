import json

import pytest

from benchmark.services.imports import dataset_import


@pytest.fixture
def released(shared_data):
    """The released dataset imported, with its rows as parsed from the file."""
    path = shared_data / "question_all.jsonl"
    dataset = dataset_import(path=path).dataset
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return dataset, rows
