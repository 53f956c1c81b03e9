"""Text that neither database can store, and where a parsed JSON value holds it (pure).

A NUL cannot be held by PostgreSQL's text or jsonb, and half of a surrogate pair has no UTF-8
encoding, so SQLite refuses it too. The one rule for every door text comes in by: requests
(``config.request_text``) and imported files (``benchmark.importing.reader``).
"""

import re
from dataclasses import dataclass

UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


@dataclass(frozen=True)
class Fault:
    path: str  # where, as ``labels[0].note`` (empty: the value itself)
    field: str | None  # the top-level key of the object that holds it
    deep: bool = False  # nested deeper than allowed, rather than text that cannot be stored


def shown(text: str) -> str:
    """``text`` with what cannot be stored written as ``\\u0000``: safe to quote in a message."""
    return UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_fault(value: object, *, max_depth: int | None = None) -> Fault | None:
    """A string or key of a parsed JSON value that cannot be stored, or a container past
    ``max_depth`` (the first found, in the text's order); walked without recursion, so depth
    alone cannot crash it."""
    stack: list[tuple[object, str, str | None, int]] = [(value, "", None, 0)]
    while stack:
        item, path, field, depth = stack.pop()
        if isinstance(item, str):
            if UNSTORABLE.search(item):
                return Fault(shown(path), field)
        elif isinstance(item, dict | list):
            if max_depth is not None and depth >= max_depth:
                return Fault(shown(path), field, deep=True)
            children = item.items() if isinstance(item, dict) else enumerate(item)
            # Reversed onto the stack, so the first fault found is the first in the text.
            for key, child in reversed(list(children)):
                named = isinstance(key, str)
                here = (f"{path}.{key}" if path else key) if named else f"{path}[{key}]"
                under = field if path else (shown(key) if named else None)
                if named and UNSTORABLE.search(key):
                    return Fault(shown(here), under)
                stack.append((child, here, under, depth + 1))
    return None
