"""Writing output files whole or not at all."""

from collections.abc import Callable
from pathlib import Path
from typing import TextIO


class FileWriteError(OSError):
    """A file could not be written; nothing was left at its path (an earlier file is kept)."""


def file_write_atomically(*, path: Path, write: Callable[[TextIO], None]) -> None:
    """Write text through ``write`` beside ``path`` and rename, so a failure (a full disk, a
    size limit, a missing folder) never leaves a partial file behind."""

    def write_text(partial: Path) -> None:
        with partial.open("w", encoding="utf-8", newline="") as out:
            write(out)

    file_produce_atomically(path=path, produce=write_text)


def file_produce_atomically(*, path: Path, produce: Callable[[Path], None]) -> None:
    """``file_write_atomically`` for a writer that wants a path rather than a text stream (a
    library writing its own file format): ``produce`` writes the file at the path it is given,
    which is renamed to ``path`` once whole."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.partial")
    try:
        produce(partial)
        partial.replace(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise FileWriteError(f"could not write {path}: {reason}; no file was written") from exc
    finally:
        partial.unlink(missing_ok=True)
