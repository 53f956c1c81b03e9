"""Time CI's whole run from a fresh clone: `CI=true bash .ci/run`, set-up included.

    python benchmarks/ci_time.py [--repo PATH] REV [REV ...]

Each REV (a commit of this repository, or of --repo) is cloned into a new folder beside the
repository (so that `../shared` is where the tests look for the released data), and its
`.ci/run` is timed, one revision after the other; the clone is removed afterwards. Prints,
per revision, the exit status, the wall time and each pytest pass's closing line; the full
output of each run is kept in `test-artifacts/ci-time-REV.log`. docs/benchmarks.md, "Test
suite time"."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLOSING = re.compile(r"^=+ .*\b(passed|failed|error)\b.* in [\d.]+s.* =+$")


def ci_time(rev: str, *, repo: Path = ROOT) -> dict:
    short = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    clone = repo.parent / f"ci-time-{short}"
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", short], cwd=clone, check=True)
    log = ROOT / "test-artifacts" / f"ci-time-{short}.log"
    log.parent.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            ["bash", ".ci/run"], cwd=clone, env={**env, "CI": "true"}, stdout=out, stderr=out
        )
    wall = time.monotonic() - started
    shutil.rmtree(clone, ignore_errors=True)
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return {
        "rev": short,
        "exit": done.returncode,
        "wall": wall,
        "passes": [line.strip("= ") for line in lines if CLOSING.match(line)],
        "log": log,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("revs", nargs="+")
    args = parser.parse_args(argv)
    worst = 0
    for rev in args.revs:
        result = ci_time(rev, repo=args.repo.resolve())
        minutes, seconds = divmod(round(result["wall"]), 60)
        print(f"{result['rev']}: exit {result['exit']}, wall {minutes}:{seconds:02d} "
              f"({result['wall']:.0f} s); log {result['log'].relative_to(ROOT)}")  # fmt: skip
        for line in result["passes"]:
            print(f"  {line}")
        worst = worst or result["exit"]
    return worst


if __name__ == "__main__":
    sys.exit(main())
