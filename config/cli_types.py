"""Argument types shared by every `heartbench` command (argparse ``type=`` callables).

A bad value is refused while the command line is parsed, before anything is read or written:
argparse prints one line naming the option (``argument --lease-minutes: -5 is not a positive
whole number``) and exits with status 2; ``call_command`` raises ``CommandError`` instead.
Each helper raises ``argparse.ArgumentTypeError`` only — anything else escaping a type callable
would be a traceback. Floats must be finite ("nan" and "inf" are refused).
"""

import argparse
import math
from collections.abc import Callable
from datetime import date
from decimal import Decimal, InvalidOperation


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_int(text: str) -> int:
    """A whole number ≥ 1 (counts, minutes, workers)."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def non_negative_int(text: str) -> int:
    """A whole number ≥ 0 (seeds, retries, positions)."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; give a whole number ≥ 0")
    return value


def int_at_least(minimum: int) -> Callable[[str], int]:
    """A whole number ≥ ``minimum`` (for instance bootstrap resamples ≥ 100)."""

    def parse(text: str) -> int:
        value = _int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text} is below the minimum of {minimum}")
        return value

    parse.__name__ = f"int_at_least_{minimum}"
    return parse


def port_number(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    value = _int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port (0 to 65535)")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (limits, timeouts, budgets)."""
    value = _float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def non_negative_float(text: str) -> float:
    """A finite number ≥ 0 (prices, latencies)."""
    value = _float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; give a number ≥ 0")
    return value


def fraction_0_1(text: str) -> float:
    """A share from 0 to 1, both included (thresholds, rates, coverage)."""
    value = _float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def positive_fraction(text: str) -> float:
    """A share above 0 and at most 1 (a sampling fraction: 0 would sample nothing)."""
    value = _float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not above 0 and at most 1")
    return value


def open_share(text: str) -> float:
    """A share strictly between 0 and 1 (an agreement, an interval's half-width)."""
    value = positive_fraction(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"{text} is not below 1")
    return value


def non_negative_amount(text: str) -> Decimal:
    """A finite decimal amount ≥ 0 (money; the service checks its precision and ceiling)."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not an amount") from None
    if not value.is_finite() or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not an amount ≥ 0")
    return value


def iso_date(text: str) -> date:
    """A calendar day written YYYY-MM-DD."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def comma_list(text: str) -> list[str]:
    """Comma-separated names, each non-empty and none twice (spaces around commas ignored)."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r} has an empty name between commas")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"{text!r} names {', '.join(repeated)} twice")
    return names
