"""Reading the comparisons CSV of `heartbench pairwise rank`: columns
``case,model_a,model_b,winner`` (header required, any order, a UTF-8 BOM allowed), winner
``a``, ``b`` or ``tie`` in any case. The header, the encoding, blank fields and the field
count are checked as for the agreement files (``validation.ratings_csv``); any problem is a
``RatingsFileError`` naming the file, the line and the reason, raised before anything is
computed."""

from pathlib import Path

from validation.ratings_csv import RatingsFileError, _rows, _text
from validation.statistics.preference import WINNERS, Comparison

COMPARISON_COLUMNS = ("case", "model_a", "model_b", "winner")


def _refuse_nul(path: Path) -> None:
    # Python's csv reader takes NUL as an ordinary character; in a text file it is corruption.
    text = _text(path)
    at = text.find("\x00")
    if at >= 0:
        raise RatingsFileError(path=path, line=text.count("\n", 0, at) + 1, reason="NUL byte")


def comparisons_csv_read(*, path: Path) -> list[Comparison]:
    """Every comparison of the file, in file order; at least one."""
    _refuse_nul(path)
    comparisons = []
    for line, row in _rows(path, COMPARISON_COLUMNS):
        winner = row["winner"].lower()
        if winner not in WINNERS:
            raise RatingsFileError(
                path=path, line=line, reason=f"winner {row['winner']!r} is not a, b or tie"
            )
        if row["model_a"] == row["model_b"]:
            raise RatingsFileError(
                path=path, line=line, reason=f"model {row['model_a']!r} against itself"
            )
        comparisons.append(Comparison(row["case"], row["model_a"], row["model_b"], winner))
    if not comparisons:
        raise RatingsFileError(path=path, line=1, reason="no comparisons after the header")
    return comparisons
