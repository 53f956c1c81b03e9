"""``scipy.stats`` and ``scipy.optimize``, imported at their first use.

Importing ``scipy.stats`` costs a second or more; every `heartbench study …` subcommand, a
served page that never computes a figure and the test suite's many command-line subprocesses
would pay it at start-up. The modules that need it at call time take these stand-ins instead
(``scipy.special`` is imported inside the functions that use it, as it always was).
"""

import importlib
from types import ModuleType
from typing import Any


class _Deferred:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)


stats = _Deferred("scipy.stats")
optimize = _Deferred("scipy.optimize")
