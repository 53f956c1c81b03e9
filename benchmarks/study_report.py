"""Time a whole study report at the issue's scale.

    python benchmarks/study_report.py [--models 13] [--cases 89] [--resamples 2000] [--judges 1]

Synthetic study shaped like HeartBench: 13 models × 30 % of 296 cases (89) × ~10.5 criteria
per case, each unit rated by three of nine experts, one or more judges; 15 abilities plus the
catastrophic criterion, normal/hard, signed points; errors concentrated in some cases. The
arrays are what ``validation.report.selectors.study_report_data`` returns, so the timing is the
report itself (statistics, breakdowns, scores, HTML and CSV), not the database read.
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from benchmark.taxonomy import ABILITIES  # noqa: E402
from validation.report import report_compute, report_csv, report_html  # noqa: E402
from validation.report.compute import judge_gate_compute  # noqa: E402
from validation.report.data import CATEGORIES, HIT, MISS, JudgeLabels, StudyData  # noqa: E402
from validation.statistics import MISSING, BootstrapSettings, pairwise_agreement  # noqa: E402

CODES = [a.code for a in ABILITIES]  # the last is the catastrophic criterion


def synthetic_study(*, models: int, cases: int, judges: int = 1, seed: int = 11) -> StudyData:
    rng = np.random.default_rng(seed)
    per_case = rng.integers(5, 17, size=cases)
    hard = rng.random(cases) < 0.3
    case_noise = rng.beta(0.6, 4.0, size=cases)
    rows = []
    unit = 0
    for case, n in enumerate(per_case):
        ability = np.append(rng.choice(CODES[:-1], size=n - 1), CODES[-1])
        points = np.append(rng.choice([-5, -3, -1, 1, 3, 5], size=n - 1), np.nan)
        criterion = case * 100 + np.arange(n)
        for model in range(models):
            rows.append((case, unit, model, criterion, ability, points))
            unit += 1
    case, unit_of, model, criterion, ability, points = (
        np.concatenate([np.broadcast_to(np.asarray(r[k]), (len(r[3]),)) for r in rows])
        for k in range(6)
    )
    size = case.size
    truth = np.where(ability == CODES[-1], rng.random(size) < 0.02, rng.random(size) < 0.3)
    noise = case_noise[case]
    experts = 9
    ratings = np.full((size, experts), MISSING, dtype=np.int64)
    for u in range(unit):
        rows_u = np.flatnonzero(unit_of == u)
        for column in rng.choice(experts, size=3, replace=False):
            flip = rng.random(rows_u.size) < noise[rows_u] * 0.8
            ratings[rows_u, column] = np.where(truth[rows_u] ^ flip, HIT, MISS)
    gold = np.where((ratings == HIT).sum(axis=1) >= 2, HIT, MISS)
    agree = (ratings == gold[:, None]).sum(axis=1)
    judge_sets = []
    for j in range(judges):
        flip = rng.random(size) < noise * (1 + 0.3 * j)
        judge_sets.append(
            JudgeLabels(
                name=f"judge-{j + 1}",
                runs=(j + 1,),
                codes=np.where(truth ^ flip, HIT, MISS),
                errors=0,
            )
        )
    return StudyData(
        study={
            "name": "synthetic",
            "dataset": "synthetic v1",
            "demo": True,
            "status": "closed",
            "seed": seed,
            "fraction": 0.3,
            "gate_threshold": 0.75,
            "closed_at": None,
        },
        case_keys=tuple(f"c{i}" for i in range(cases)),
        models=tuple(f"model-{m + 1}" for m in range(models)),
        experts=tuple(f"R-{e:02d}" for e in range(experts)),
        case=case.astype(np.int64),
        unit=unit_of.astype(np.int64),
        model=model.astype(np.int64),
        criterion=criterion.astype(np.int64),
        ability=ability.astype(object),
        points=points.astype(float),
        hard=hard[case],
        ratings=ratings,
        gold=gold,
        provenance=np.where(agree == 3, "3/3", "2/1").astype(object),
        unit_states={"gold": unit},
        judges=tuple(judge_sets),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=13)
    parser.add_argument("--cases", type=int, default=89)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--judges", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    settings = BootstrapSettings(resamples=args.resamples)
    data = synthetic_study(models=args.models, cases=args.cases, judges=args.judges)
    compute, render = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        report = report_compute(data=data, bootstrap=settings)
        middle = time.perf_counter()
        html, csv_text = report_html(report), report_csv(report)
        compute.append(middle - start)
        render.append(time.perf_counter() - middle)
    judge = report["judges"][0]
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, numpy {np.__version__}\n"
    )
    print("| figure | value |\n|---|---|")
    print(f"| items (unit × criterion) | {data.n_items:,} |")
    print(f"| cases × models × experts per unit | {args.cases} × {args.models} × 3 (of 9) |")
    print(f"| judges | {args.judges} |")
    print(f"| resamples | {args.resamples:,} |")
    print(f"| report computed, best of {args.repeat} | {min(compute):.2f} s (budget 5 s) |")
    print(
        f"| HTML ({len(html) / 1024:.0f} KiB) and CSV ({csv_text.count(chr(10))} rows) "
        f"rendered | {min(render):.2f} s |"
    )
    agreement = judge["vs_gold"]["agreement"]
    print(
        f"| judge agreement with gold | {agreement['value']:.3f} "
        f"[{agreement['low']:.3f}, {agreement['high']:.3f}] {agreement['method']} |"
    )
    tau = judge["score_effect"]["rank_agreement"]["kendall_tau"]
    print(f"| Kendall's τ of gold vs judge leaderboards | {tau:.3f} |")
    print(f"| gate decision (every condition) | {judge['gate']['decision']} |")
    badge_timings(data, settings, args.repeat)


def badge_timings(data: StudyData, settings: BootstrapSettings, repeat: int) -> None:
    """What the leaderboard badge computes now (the full gate) against what it computed before
    (agreement with gold alone), measured in the same run so that the ratio holds."""

    def best(work) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        return min(times)

    labels = data.judges[0]
    before = best(
        lambda: pairwise_agreement(
            reference=data.gold,
            predicted=labels.codes,
            categories=CATEGORIES,
            clusters=data.case,
            bootstrap=settings,
        )
    )
    now = best(lambda: judge_gate_compute(data=data, judge=labels, bootstrap=settings))
    print(f"| badge: agreement alone (before), best of {repeat} | {before:.2f} s |")
    print(f"| badge: the full gate (now), best of {repeat} | {now:.2f} s ({now / before:.1f}×) |")


if __name__ == "__main__":
    main()
