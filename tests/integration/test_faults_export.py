"""Disk full on export: a clear error, no partial file, and an earlier file left as it was.

The disk fills up for real as far as the write is concerned: the process's file size limit
(RLIMIT_FSIZE, no root needed) is lowered below the export's size for the command only, with
SIGXFSZ ignored, so the write fails with EFBIG as it fails with ENOSPC on a full disk.
"""

import contextlib
import io
import resource
import signal
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from tests.builders.studies import rated_study

pytestmark = pytest.mark.django_db
LIMIT = 4096  # bytes any file may grow to while the limit holds


@contextlib.contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def study_command(*args: str) -> None:
    # Both streams in memory: nothing but the export itself touches a file under the limit.
    call_command("study", *args, stdout=io.StringIO(), stderr=io.StringIO())


@pytest.mark.parametrize(
    ("action", "extra"),
    [
        ("export", ("--format", "csv")),
        ("export", ("--format", "jsonl")),
        ("report", ("--format", "html", "--resamples", "100")),
    ],
)
def test_a_full_disk_leaves_no_partial_file_and_says_so(tmp_path, action, extra):
    study = rated_study()
    target = tmp_path / "out"
    study_command(action, study.name, *extra, "--output", str(target))
    assert target.stat().st_size > 2 * LIMIT, "the export must be larger than the space left"
    target.write_text("the export of yesterday\n", encoding="utf-8")

    with file_size_limit(LIMIT), pytest.raises(CommandError) as refused:
        study_command(action, study.name, *extra, "--output", str(target))

    assert str(refused.value) == (f"could not write {target}: File too large; no file was written")
    # The earlier file is untouched and no partial file is left beside it.
    assert target.read_text(encoding="utf-8") == "the export of yesterday\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    # With room again the same command writes the whole file.
    study_command(action, study.name, *extra, "--output", str(target))
    assert target.stat().st_size > 2 * LIMIT


def test_an_unwritable_folder_is_a_clear_error_too(tmp_path):
    study = rated_study()
    target = tmp_path / "missing-folder" / "out.csv"
    with pytest.raises(CommandError, match=r"could not write .*: No such file or directory"):
        study_command("export", study.name, "--output", str(target))
    assert list(tmp_path.iterdir()) == []
