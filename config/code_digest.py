"""A digest of the source of the apps a kept figure is computed by: a key carrying it is never
served by a deploy that changed the computing code (the one owner of that rule; used by
``benchmark.services.stored_board`` and ``validation.selectors.report``)."""

import hashlib
from functools import cache as once
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@once
def code_digest(*, packages: tuple[str, ...]) -> str:
    """A digest of every ``.py`` file of ``packages`` but their migrations (read once a
    process per set of packages)."""
    digest = hashlib.sha256()
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
