"""Simulated studies: the planner's sample size and the group-sequential gate.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/sequential_simulation.py [--draws 4000]

A simulated study samples cases of the released HeartBench dataset (criteria per case × two
models = items per case, read from ../shared/heartbench-data) and draws, per case, a
disagreement rate from a beta law with mean 1 − agreement and intra-case correlation ICC, then
binomial judge–gold disagreements. The interval is the cluster-robust (linearised) one of a
ratio estimator, which is what the report's case-clustered bootstrap estimates (checked below
against ``cluster_bootstrap`` on a few studies).

(a) Type-I error: true agreement on the threshold; a look every k completed cases decides the
    condition with the Lan–DeMets O'Brien–Fleming boundaries (``study_monitor``'s rule); any
    decision is an error. Against the fixed design (one look at the end) and the naive design
    (the fixed design's 95 % rule at every look). Every design carries its critical value
    to Student's t with cases − 1 degrees of freedom, as ``condition_monitor`` does.
(b) Saving: true agreement below, at and above the threshold; mean cases until every
    condition is decided (or the planned size), against the planned size.
(c) Planner: studies of the planned size reach the wanted half-width in ≥ 90 % of draws; the
    plain formula (no assurance) for comparison.
"""

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from validation.statistics.planning import plan_cases  # noqa: E402
from validation.statistics.sequential import (  # noqa: E402
    FAILED,
    PASSED,
    Condition,
    boundaries_compute,
    condition_monitor,
)

DATA = ROOT.parent / "shared" / "heartbench-data" / "question_all.jsonl"
Z = 1.959963984540054


def dataset_sizes(*, models: int = 2) -> np.ndarray:
    """Items per case of the released dataset: its criteria × the models rated."""
    with DATA.open(encoding="utf-8") as lines:
        return np.array(
            [len(json.loads(line)["rubric"]) * models for line in lines if line.strip()]
        )


def studies_draw(
    *, rng, sizes: np.ndarray, cases: int, draws: int, agreement: float, icc: float
) -> tuple[np.ndarray, np.ndarray]:
    """(draws, cases) items and disagreements per case, cases in the order they complete."""
    m = np.stack([rng.choice(sizes, size=cases, replace=False) for _ in range(draws)])
    q = 1 - agreement
    if icc > 0:
        scale = (1 - icc) / icc
        rates = rng.beta(q * scale, (1 - q) * scale, size=m.shape)
    else:
        rates = np.full(m.shape, q)
    return m, rng.binomial(m, rates)


def prefix_estimates(m: np.ndarray, d: np.ndarray, upto: int) -> tuple[np.ndarray, np.ndarray]:
    """Agreement and its cluster-robust SE over the first ``upto`` cases of every study."""
    m, d = m[:, :upto], d[:, :upto]
    n = m.sum(axis=1)
    p = 1 - d.sum(axis=1) / n
    residual = (m - d) - p[:, None] * m
    k = upto
    se = np.sqrt(k / (k - 1) * (residual**2).sum(axis=1)) / n
    return p, se


def planner_check(
    *, sizes, agreement: float, half_width: float, icc: float, draws: int, seed: int
) -> dict:
    """Share of simulated studies of the planned size whose half-width is within the wanted."""
    plan = plan_cases(
        items_per_case=sizes, expected_agreement=agreement, half_width=half_width, icc=icc
    )
    plain = plan_cases(
        items_per_case=sizes,
        expected_agreement=agreement,
        half_width=half_width,
        icc=icc,
        assurance=0.5,
    )
    rng = np.random.default_rng(seed)
    result = {"agreement": agreement, "half_width": half_width, "icc": icc}
    for name, cases in (("planned", plan.cases), ("plain", plain.cases)):
        m, d = studies_draw(
            rng=rng, sizes=sizes, cases=cases, draws=draws, agreement=agreement, icc=icc
        )
        _, se = prefix_estimates(m, d, cases)
        result[name] = {"cases": cases, "hit": float(np.mean(Z * se <= half_width))}
    return result


def sequential_run(
    *,
    sizes,
    planned: int,
    every: int,
    threshold: float,
    agreement: float,
    icc: float,
    draws: int,
    seed: int,
) -> dict:
    """Outcomes of group-sequential, naive and fixed designs on the same simulated studies."""
    rng = np.random.default_rng(seed)
    m, d = studies_draw(
        rng=rng, sizes=sizes, cases=planned, draws=draws, agreement=agreement, icc=icc
    )
    looks = [*range(every, planned, every), planned]
    bounds = boundaries_compute(fractions=[c / planned for c in looks])
    final = bounds[-1]
    stopped_at = np.full(draws, planned)
    decision = np.array([""] * draws, dtype=object)
    naive = np.zeros(draws, dtype=bool)
    futile = np.zeros(draws, dtype=bool)
    fixed = None
    for at, critical in zip(looks, bounds, strict=True):
        p, se = prefix_estimates(m, d, at)
        # A single look's 95 % rule, with the same small-sample t as the sequential one.
        single = np.abs(p - threshold) >= stats.t.isf(0.025, at - 1) * se
        naive |= single
        if at == planned:
            fixed = single
        for i in np.flatnonzero(decision == ""):
            status = condition_monitor(
                condition=Condition(
                    name="agreement", value=p[i], se=se[i], threshold=threshold, df=at - 1
                ),
                critical=critical,
                fraction=at / planned,
                final_critical=final,
            )
            futile[i] |= status.futile
            if status.status in (PASSED, FAILED):
                decision[i], stopped_at[i] = status.status, at
    return {
        "agreement": agreement,
        "looks": len(looks),
        "boundaries": [round(b, 3) for b in bounds],
        "decided_sequential": float(np.mean(decision != "")),
        "passed_sequential": float(np.mean(decision == PASSED)),
        "decided_naive": float(naive.mean()),
        "decided_fixed": float(fixed.mean()),
        "futility_flagged": float(futile.mean()),
        "mean_cases": float(stopped_at.mean()),
        "saving": float(1 - stopped_at.mean() / planned),
    }


def bootstrap_agreement(*, sizes, cases: int, agreement: float, icc: float, seed: int) -> float:
    """Mean ratio of the project's bootstrap half-width to the linearised one, on 20 studies."""
    from validation.statistics import BootstrapSettings, cluster_bootstrap

    rng = np.random.default_rng(seed)
    m, d = studies_draw(rng=rng, sizes=sizes, cases=cases, draws=20, agreement=agreement, icc=icc)
    _, se = prefix_estimates(m, d, cases)
    ratios = []
    for i in range(20):
        tables = np.stack([m[i] - d[i], m[i]], axis=1).astype(float)

        def statistic(weights, tables=tables):
            sums = np.tensordot(weights, tables, axes=([-1], [0]))
            return (sums[..., 0] / sums[..., 1])[None]

        (interval,) = cluster_bootstrap(
            statistic=statistic, n_clusters=cases, settings=BootstrapSettings(resamples=2000)
        )
        ratios.append((interval.high - interval.low) / 2 / (Z * se[i]))
    return float(np.mean(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=20261125)
    args = parser.parse_args()
    sizes = dataset_sizes()
    started = time.perf_counter()
    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}, draws {args.draws}"
    )
    print(f"dataset: {sizes.size} cases, {sizes.mean():.1f} items per case (2 models)")
    print("\n(c) planner: share of studies of the planned size within the wanted half-width")
    for agreement, half_width, icc in [
        (0.85, 0.03, 0.10),
        (0.85, 0.03, 0.02),
        (0.85, 0.05, 0.10),
        (0.75, 0.04, 0.05),
        (0.90, 0.03, 0.10),
    ]:
        r = planner_check(
            sizes=sizes,
            agreement=agreement,
            half_width=half_width,
            icc=icc,
            draws=args.draws,
            seed=args.seed,
        )
        print(
            f"  p={agreement} h={half_width} icc={icc}: planned {r['planned']['cases']} cases "
            f"hit {r['planned']['hit']:.1%}; plain formula {r['plain']['cases']} cases "
            f"hit {r['plain']['hit']:.1%}"
        )
    ratio = bootstrap_agreement(sizes=sizes, cases=100, agreement=0.85, icc=0.1, seed=args.seed)
    print(f"  bootstrap (BCa, 2000) / linearised half-width, 20 studies of 100 cases: {ratio:.3f}")
    print("\n(a, b) gate at 0.75, planned 120 cases, ICC 0.10")
    for every in (6, 12, 24, 40):
        for agreement in (0.75, 0.70, 0.80, 0.85):
            r = sequential_run(
                sizes=sizes,
                planned=120,
                every=every,
                threshold=0.75,
                agreement=agreement,
                icc=0.10,
                draws=args.draws,
                seed=args.seed,
            )
            print(
                f"  every {every} ({r['looks']} looks) true {agreement}: decided "
                f"sequential {r['decided_sequential']:.1%} (passed {r['passed_sequential']:.1%}), "
                f"naive {r['decided_naive']:.1%}, fixed {r['decided_fixed']:.1%}; "
                f"mean cases {r['mean_cases']:.1f} of 120, saving {r['saving']:.1%}; "
                f"futility flagged {r['futility_flagged']:.1%}"
            )
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
