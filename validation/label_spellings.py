"""The labels `heartbench agreement` reads: the usual spellings of a binary label, and a scheme
declared with ``--categories`` (pure: no file, no database).

Binary spellings, each a (hit, miss) pair, compared case-insensitively after trimming, with
``_`` and ``-`` read as a space (``Not_Met`` is ``not met``)::

    1 / 0   true / false   yes / no   hit / miss   met / not met   是 / 否   命中 / 未命中

Without a declared scheme, a file whose first label is one of these is a binary file: every
label must then be a spelling **of the same pair** (``1`` on one line and ``hit`` on another is
refused, naming both lines), read as ``hit`` / ``miss``. A file whose first label is none of
them keeps its labels as they are (a nominal scheme of its own words), and a binary spelling
later in it is refused. A judge file is read the same way and must be binary exactly when the
ratings file is.

With ``--categories A,B,...`` the labels must be those categories (any case). When the two
declared categories are a hit and a miss spelling (``hit,miss``, ``命中,未命中``, ``miss,hit``),
every spelling above maps onto them by meaning, still one pair per file.
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

HIT, MISS = "hit", "miss"
# How the exports write a label: as the judge's verdicts are written (met / not_met / error).
MET, NOT_MET = "met", "not_met"
BINARY_SPELLINGS: tuple[tuple[str, str], ...] = (
    ("1", "0"),
    ("true", "false"),
    ("yes", "no"),
    ("hit", "miss"),
    ("met", "not met"),
    ("是", "否"),
    ("命中", "未命中"),
)


class LabelSchemeError(ValueError):
    """A label (or a declared scheme) the rules above refuse; the message is one line."""


def label_key(text: str) -> str:
    """How a label is compared: trimmed, case-folded, ``_``/``-``/spaces as one space."""
    return re.sub(r"[\s_\-]+", " ", text.strip().casefold()).strip()


# key -> (pair index, True for the hit spelling)
_MEANING: dict[str, tuple[int, bool]] = {
    key: (pair, positive)
    for pair, spellings in enumerate(BINARY_SPELLINGS)
    for key, positive in zip(spellings, (True, False), strict=True)
}


@dataclass(frozen=True)
class LabelScheme:
    """A declared scheme: its categories in the order given, and when it is a hit/miss pair,
    (hit name, miss name)."""

    categories: tuple[str, ...]
    binary: tuple[str, str] | None


def scheme_declare(names: Sequence[str]) -> LabelScheme:
    """The scheme ``--categories`` declares; refuses fewer than two categories, the same one
    twice (in any case), or two names of the same side of a binary label."""
    names = [name.strip() for name in names]
    if len(names) < 2:
        raise LabelSchemeError("declare at least two categories")
    seen: dict[str, str] = {}
    for name in names:
        if label_key(name) in seen:
            raise LabelSchemeError(f"{seen[label_key(name)]!r} and {name!r} are the same category")
        seen[label_key(name)] = name
    meanings = [_MEANING.get(label_key(name)) for name in names]
    if len(names) == 2 and all(meanings):
        (_, first), (_, second) = meanings  # type: ignore[misc]
        if first == second:
            side = HIT if first else MISS
            raise LabelSchemeError(f"{names[0]!r} and {names[1]!r} both mean {side}")
        hit, miss = names if first else names[::-1]
        return LabelScheme(categories=tuple(names), binary=(hit, miss))
    return LabelScheme(categories=tuple(names), binary=None)


def label_word(hit: bool | None) -> str:
    """A label as the exports write it: ``met``, ``not_met``, or empty for none. Read back,
    ``not_met`` is the ``met / not met`` spelling (``_`` is a space)."""
    return "" if hit is None else (MET if hit else NOT_MET)


def _pair_text(pair: int) -> str:
    return "/".join(BINARY_SPELLINGS[pair])


class LabelReader:
    """Reads the labels of one file in line order, remembering the spelling it met first."""

    def __init__(self, *, scheme: LabelScheme | None) -> None:
        self.scheme = scheme
        self.pair: int | None = None  # the binary pair this file spells, once known
        self.free: bool | None = None  # undeclared: the file's own words, once known
        self.first: tuple[int, str] | None = None  # (line, label) that fixed the spelling

    @property
    def spelling(self) -> str | None:
        """The binary pair this file spells ("1/0"), or None (its own words, or no label)."""
        return None if self.pair is None else _pair_text(self.pair)

    @property
    def binary(self) -> bool:
        """Whether the labels read are hit/miss (whatever their spelling)."""
        if self.scheme is not None:
            return self.scheme.binary is not None
        return self.pair is not None

    def categories(self) -> tuple[str, ...] | None:
        """The categories to count with (declared, or hit/miss for a binary file), or None
        for a file of its own words (the labels seen are then the scheme)."""
        if self.scheme is not None:
            return self.scheme.categories
        return (HIT, MISS) if self.pair is not None else None

    def read(self, label: str, *, line: int) -> str:
        """The category ``label`` on ``line`` stands for; raises LabelSchemeError."""
        key = label_key(label)
        meaning = _MEANING.get(key)
        scheme = self.scheme
        if scheme is not None and scheme.binary is None:
            for name in scheme.categories:
                if label_key(name) == key:
                    return name
            raise LabelSchemeError(
                f"label {label!r} is not one of the declared categories "
                f"{', '.join(scheme.categories)}"
            )
        if meaning is None:
            if scheme is not None:
                raise LabelSchemeError(
                    f"label {label!r} is not a spelling of {' or '.join(scheme.binary or ())} "
                    f"(spellings: {', '.join(_pair_text(p) for p in range(len(BINARY_SPELLINGS)))})"
                )
            if self.pair is not None:
                where, first = self.first  # type: ignore[misc]
                raise LabelSchemeError(
                    f"label {label!r} is not a spelling of hit/miss, and line {where} wrote "
                    f"{first!r}; declare the scheme with --categories to use other labels"
                )
            self.free = True
            self.first = self.first or (line, label)
            return label.strip()
        pair, positive = meaning
        if self.free:
            where, first = self.first  # type: ignore[misc]
            raise LabelSchemeError(
                f"label {label!r} is a binary label, but line {where} wrote {first!r}; "
                "declare the scheme with --categories, or write one scheme throughout the file"
            )
        if self.pair is None:
            self.pair, self.first = pair, (line, label)
        elif pair != self.pair:
            where, first = self.first  # type: ignore[misc]
            raise LabelSchemeError(
                f"label {label!r} mixes spellings: line {where} wrote {first!r} "
                f"({_pair_text(self.pair)}); write one spelling of hit/miss throughout the file"
            )
        if scheme is not None and scheme.binary is not None:
            return scheme.binary[0] if positive else scheme.binary[1]
        return HIT if positive else MISS


class NumberReader:
    """Reads labels that are numbers (`heartbench agreement --level interval|ratio`, and
    ``ordinal`` without declared categories): each label a finite number, not negative for
    ratio data; a label is kept in one spelling per value (``3`` for ``3.0``), and the
    categories are the values seen, smallest first. Same interface as ``LabelReader``."""

    spelling = None
    binary = False

    def __init__(self, *, level: str) -> None:
        self.level = level
        self.first: tuple[int, str] | None = None
        self.values: dict[str, float] = {}

    def read(self, label: str, *, line: int) -> str:
        try:
            value = float(label.strip())
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            order = "; declare the order with --categories" if self.level == "ordinal" else ""
            raise LabelSchemeError(f"label {label!r} is not a number (--level {self.level}){order}")
        if self.level == "ratio" and value < 0:
            raise LabelSchemeError(f"label {label!r} is negative: ratio data never is")
        name = str(int(value)) if value.is_integer() else repr(value)
        self.values[name] = value
        self.first = self.first or (line, label)
        return name

    def categories(self) -> tuple[str, ...]:
        return tuple(sorted(self.values, key=self.values.__getitem__))
