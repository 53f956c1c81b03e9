"""Time a test run: wall time, tests run, and the files that took longest.

    python benchmarks/test_suite_time.py [--top N] -- PYTEST-ARGS ...

Runs pytest with PYTEST-ARGS (under `python -m tests.services ... --` for the services a pass
needs) and a JUnit XML report, then prints the wall time and each file's summed test time
(set-up and tear-down included), the slowest first. docs/benchmarks.md, "Test suite time".
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path


def file_times(report: Path) -> tuple[collections.Counter, collections.Counter]:
    seconds: collections.Counter = collections.Counter()
    tests: collections.Counter = collections.Counter()
    for case in ET.parse(report).iter("testcase"):
        name = case.get("classname", "").replace(".", "/") + ".py"
        seconds[name] += float(case.get("time", 0))
        tests[name] += 1
    return seconds, tests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", f"--junitxml={report}", *pytest_args]
        )
        wall = time.monotonic() - start
        seconds, tests = file_times(report)
    print(f"exit {done.returncode}; wall {wall:.0f} s; {sum(tests.values())} tests; "
          f"load average {os.getloadavg()[0]:.1f} (1 min, at the end)")  # fmt: skip
    for name, spent in seconds.most_common(args.top):
        print(f"{spent:8.1f} s {tests[name]:5d} tests  {name}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
