"""`make run` installs what running needs and nothing of the test extra; `make test` adds it."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _planned(target: str) -> list[str]:
    if shutil.which("make") is None:
        pytest.skip("needs make")
    done = subprocess.run(
        ["make", "--dry-run", "--always-make", target],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return [line for line in done.stdout.splitlines() if "pip install" in line]


def test_make_run_installs_the_project_without_the_test_tools():
    installs = _planned("run")
    assert installs and installs[-1].endswith("pip install --quiet --editable .")
    assert not any("[test]" in line for line in installs)


def test_make_test_installs_the_test_tools():
    assert any(line.endswith("--editable '.[test]'") for line in _planned("setup"))
