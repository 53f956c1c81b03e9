"""Time the study report's stability section (one judge with repeats) at the issue's scale.

    python benchmarks/judge_stability.py [--models 13] [--cases 89] [--repeats 3 5]
                                         [--resamples 2000]

Synthetic labels (no HeartBench data): 13 models × 89 cases × ~10.5 criteria per case, a gold
label per item, and a judge asked N times whose verdicts flip more in some cases than in
others; Fleiss' κ across repeats with its case-clustered BCa interval, flip rates per criterion
and ability, and the noise/bias split. Prints a Markdown table for docs/benchmarks.md.
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation.statistics import BootstrapSettings
from validation.statistics.stability import judge_stability


def synthetic(*, models: int, cases: int, repeats: int, seed: int = 5) -> dict:
    rng = np.random.default_rng(seed)
    per_case = rng.integers(5, 17, size=cases)
    case = np.repeat(np.arange(cases), per_case)
    criterion = np.arange(case.size)
    ability = rng.integers(0, 16, size=case.size)
    case, criterion, ability = (np.tile(a, models) for a in (case, criterion, ability))
    gold = (rng.random(case.size) < 0.35).astype(np.int64)
    bias = rng.random(case.size) < 0.08  # the judge's stable mistakes
    leaning = np.where(bias, 1 - gold, gold)
    flip = rng.beta(0.5, 6.0, size=cases)[case]  # unstable cases
    codes = np.stack(
        [np.where(rng.random(case.size) < flip, 1 - leaning, leaning) for _ in range(repeats)],
        axis=1,
    )
    return {"codes": codes, "gold": gold, "criterion": criterion, "ability": ability,
            "clusters": case}  # fmt: skip


def best_of(runs: int, work) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=13)
    parser.add_argument("--cases", type=int, default=89)
    parser.add_argument("--repeats", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    settings = BootstrapSettings(resamples=args.resamples)
    print(f"{platform.python_version()}, numpy {np.__version__}, load {os.getloadavg()}")
    print("| repeats | items | Fleiss' κ [95% CI] | flip rate | noise | bias | best of 3 s |")
    print("|---|---|---|---|---|---|---|")
    for repeats in args.repeats:
        data = synthetic(models=args.models, cases=args.cases, repeats=repeats)
        seconds, found = best_of(
            3,
            lambda data=data: judge_stability(
                categories=("hit", "miss"), bootstrap=settings, **data
            ),
        )
        k = found.fleiss_kappa
        split = found.gold_split
        print(
            f"| {repeats} | {found.items:,} | {k.value:.3f} [{k.interval.low:.3f}, "
            f"{k.interval.high:.3f}] | {found.flip_rate.rate:.3f} | {split.noise:.3f} | "
            f"{split.bias:.3f} | {seconds:.3f} |"
        )


if __name__ == "__main__":
    main()
