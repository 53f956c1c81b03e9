"""Time `benchmark.saturation.saturation_compute` on the released rubric (296 cases, 3,114
criteria) for 3 and for 13 models, with random verdicts (no judge involved).

    python benchmarks/saturation.py [--repeats 5]

Reads ../shared/heartbench-data/question_all.jsonl in place. Prints a Markdown table for
docs/benchmarks.md: best-of-N seconds per model count and their ratio (one run, so the ratio
holds whatever else the machine is doing).
"""

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmark.importing import iter_cases  # noqa: E402
from benchmark.saturation import saturation_compute  # noqa: E402
from benchmark.scoring import Criterion, RubricLayout  # noqa: E402

DATA = ROOT.parent / "shared" / "heartbench-data" / "question_all.jsonl"


def best_of(repeats: int, work) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    cases = list(iter_cases(DATA))
    layout = RubricLayout.build([[Criterion(c.ability, c.points) for c in k.rubric] for k in cases])
    ids = [k.question_id for k in cases]
    rng = random.Random(7)
    rows = []
    for count in (3, 13):
        hits = {f"m{i}": [rng.random() < 0.45 for _ in layout.points] for i in range(count)}
        seconds = best_of(
            args.repeats,
            lambda hits=hits: saturation_compute(question_ids=ids, layout=layout, hits=hits),
        )
        rows.append((count, seconds))
    print(f"{platform.node()} {platform.machine()}, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{len(cases)} cases, {len(layout.points)} criteria, best of {args.repeats}\n")
    print("| models | seconds |\n|---|---|")
    for count, seconds in rows:
        print(f"| {count} | {seconds:.4f} |")
    print(f"\n13 models / 3 models: {rows[1][1] / rows[0][1]:.2f}")


if __name__ == "__main__":
    main()
