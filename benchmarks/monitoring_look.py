"""Time one look of a sequentially monitored study: every gate condition of every judge on the
look's cases (now) against each judge's agreement with the gold alone (before).

    python benchmarks/monitoring_look.py [--models 13] [--cases 89] [--judges 2] [--every 30]

The synthetic study of ``benchmarks/study_report.py`` (HeartBench-shaped, arrays as the
selector returns them); the look is the first ``every`` cases, as the dashboard takes it. The
figure is what a dashboard view costs when the look is not in the cache (after any rating,
since the look's key is the study report's fingerprint).
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from study_report import synthetic_study

from validation.dashboard.monitoring import look_conditions
from validation.report.data import CATEGORIES, study_data_for_cases
from validation.statistics import BootstrapSettings, pairwise_agreement
from validation.statistics.bootstrap import resample_weights


def best(work, repeat: int, *, cold: bool) -> float:
    """Best of ``repeat`` runs; cold: the resample weights drawn afresh each time (a worker's
    first look at these cases), warm: kept from the run before (the same look again)."""
    times = []
    for _ in range(repeat):
        if cold:
            resample_weights.cache_clear()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=13)
    parser.add_argument("--cases", type=int, default=89)
    parser.add_argument("--judges", type=int, default=2)
    parser.add_argument("--every", type=int, default=30)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = synthetic_study(models=args.models, cases=args.cases, judges=args.judges)
    cases = list(data.case_keys[: args.every])
    settings = BootstrapSettings(resamples=args.resamples)

    def agreement_only() -> None:
        look = study_data_for_cases(data=data, cases=cases)
        for judge in look.judges:
            pairwise_agreement(
                reference=look.gold,
                predicted=judge.codes,
                categories=CATEGORIES,
                clusters=look.case,
                bootstrap=settings,
            )

    def every_condition() -> None:
        look_conditions(data=data, cases=cases, bootstrap=settings)

    timings = {
        cold: (
            best(agreement_only, args.repeat, cold=cold),
            best(every_condition, args.repeat, cold=cold),
        )
        for cold in (True, False)
    }
    conditions = look_conditions(data=data, cases=cases, bootstrap=settings)
    load = os.getloadavg()[0]
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"load average {load:.2f}; numpy {np.__version__}"
    )
    print("| figure | value |\n|---|---|")
    print(f"| look: cases × models × judges | {len(cases)} × {args.models} × {args.judges} |")
    print(f"| resamples | {args.resamples:,} |")
    print(f"| gate conditions at the look | {len(conditions)} |")
    for cold, (before, now) in timings.items():
        kind = "weights drawn afresh" if cold else "weights cached"
        print(f"| agreement alone (before), {kind}, best of {args.repeat} | {before:.2f} s |")
        print(
            f"| every gate condition (now), {kind}, best of {args.repeat} | {now:.2f} s "
            f"({now / before:.1f}×) |"
        )


if __name__ == "__main__":
    main()
