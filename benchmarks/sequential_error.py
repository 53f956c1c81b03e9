"""The overall type-I error of a monitored study, looks and report together (issue 42 item 2).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/sequential_error.py [--draws 40000]

Simulated studies as in ``benchmarks/sequential_simulation.py`` (the released dataset's case
sizes, per-case disagreement from a beta law with ICC 0.10, the cluster-robust linearised SE
of the agreement), true agreement on the gate's threshold (0.75), planned 120 cases. Every
decision is an error; the nominal overall error is 5 %.

The dashboard looks every k cases and the study stops at the first look that decides the
condition (``condition_monitor``'s rule: value ± c_j · SE, c_j carried to Student's t on
cases − 1 df). A study that reaches its planned size is then decided by its report:

- the report's rule (now): at the design's final boundary, ``close_look``'s critical value;
- the old rule: at a plain 95 % interval, whatever the design.

Each design runs twice on the same studies: with each look's SE known (the estimator's SD
over all the draws: the design's own error, which the boundaries hold at 5 %) and estimated by
the study (what a study has: the interval's own small-sample error, the fixed design's, is
added). A study stopped early is decided alike by both (its look's interval excludes the threshold,
and so does any narrower one). The report decides on its bootstrap at the boundary's level;
the linearised interval stands in for it here (``--bootstrap N`` checks on N studies that the
project's own ``cluster_bootstrap`` at that level takes the same decision).
"""

import argparse
import math
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

from benchmarks.sequential_simulation import (  # noqa: E402
    dataset_sizes,
    prefix_estimates,
    studies_draw,
)
from validation.statistics.sequential import (  # noqa: E402
    FAILED,
    PASSED,
    Condition,
    close_look,
    condition_monitor,
)

PLANNED, THRESHOLD, ICC = 120, 0.75, 0.10


def decides(p: np.ndarray, se: np.ndarray, *, critical: float, cases: int | None) -> np.ndarray:
    """Whether value ± c · SE (c carried to t on cases − 1 df; as it is when the SE is
    known, ``cases`` None) excludes the threshold."""
    c = critical if cases is None else stats.t.isf(stats.norm.sf(critical), cases - 1)
    return np.abs(p - THRESHOLD) >= c * se


def check_monitor(p, se, *, critical: float, cases: int, rows: int = 200) -> None:
    """The vectorised rule is ``condition_monitor``'s, draw by draw."""
    fast = decides(p[:rows], se[:rows], critical=critical, cases=cases)
    for i in range(min(rows, p.size)):
        status = condition_monitor(
            condition=Condition("agreement", p[i], se[i], THRESHOLD, df=cases - 1),
            critical=critical,
            fraction=cases / PLANNED,
            final_critical=critical,
        ).status
        assert (status in (PASSED, FAILED)) == fast[i], (i, status)


def design_run(m: np.ndarray, d: np.ndarray, *, every: int, known_se: bool = False) -> dict:
    """Overall error of the monitored study under both report rules, on the same studies.
    ``known_se``: each look's SE is the estimator's true spread (its SD over all the draws)
    instead of the study's own estimate, which isolates the design's error from the
    interval's."""
    draws = m.shape[0]
    design = close_look(completed=PLANNED, planned=PLANNED, every=every)
    looks = [round(t * PLANNED) for t in design.fractions]

    def look(cases: int) -> tuple[np.ndarray, np.ndarray, int | None]:
        p, se = prefix_estimates(m, d, cases)
        if known_se:
            return p, np.full(draws, p.std(ddof=1)), None
        return p, se, cases

    stopped = np.zeros(draws, dtype=bool)
    for cases, critical in zip(looks[:-1], design.critical[:-1], strict=True):
        p, se, df_cases = look(cases)
        if not known_se:
            check_monitor(p, se, critical=critical, cases=cases)
        stopped |= decides(p, se, critical=critical, cases=df_cases)
    p, se, df_cases = look(PLANNED)
    if not known_se:
        check_monitor(p, se, critical=design.final_critical, cases=PLANNED)
    z95 = float(stats.norm.isf(0.025))
    now = stopped | decides(p, se, critical=design.final_critical, cases=df_cases)
    old = stopped | decides(p, se, critical=z95, cases=df_cases)
    return {
        "every": every,
        "looks": len(looks),
        "final_critical": design.final_critical,
        "level": design.level,
        "stopped_early": float(stopped.mean()),
        "error_now": float(now.mean()),
        "error_old": float(old.mean()),
        # One look at the planned size, 95 %: the interval's own error, no design.
        "error_fixed": float(decides(p, se, critical=z95, cases=df_cases).mean()),
    }


def bootstrap_check(m, d, *, every: int, studies: int, resamples: int) -> tuple[int, int]:
    """Of ``studies`` simulated studies at their planned size, how many the project's BCa at
    the final boundary's level decides as the linearised stand-in does."""
    from validation.statistics import BootstrapSettings, cluster_bootstrap

    design = close_look(completed=PLANNED, planned=PLANNED, every=every)
    settings = BootstrapSettings(resamples=resamples, level=design.level)
    p, se = prefix_estimates(m[:studies], d[:studies], PLANNED)
    linear = decides(p, se, critical=design.final_critical, cases=PLANNED)
    same = 0
    for i in range(studies):
        tables = np.stack([m[i] - d[i], m[i]], axis=1).astype(float)

        def statistic(weights, tables=tables):
            sums = np.tensordot(weights, tables, axes=([-1], [0]))
            return (sums[..., 0] / sums[..., 1])[None]

        (interval,) = cluster_bootstrap(statistic=statistic, n_clusters=PLANNED, settings=settings)
        boot = interval.low >= THRESHOLD or interval.high < THRESHOLD
        same += bool(boot) == bool(linear[i])
    return same, studies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=40000)
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--every", type=int, nargs="+", default=[12, 24, 30, 40])
    parser.add_argument("--bootstrap", type=int, default=200, help="studies to check (0: none)")
    args = parser.parse_args()
    started = time.perf_counter()
    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
        f"{os.cpu_count()} cores, draws {args.draws}, seed {args.seed}"
    )
    rng = np.random.default_rng(args.seed)
    m, d = studies_draw(
        rng=rng, sizes=dataset_sizes(), cases=PLANNED, draws=args.draws, agreement=THRESHOLD,
        icc=ICC,
    )  # fmt: skip
    print(f"true agreement {THRESHOLD} = the threshold, planned {PLANNED} cases, ICC {ICC}")
    print()
    print("| SE | looks | final boundary | its level | stopped early | overall error, report "
          "at the boundary (now) | overall error, report at 95 % (old) | fixed design, "
          "one look at 95 % |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")

    def pct(share: float) -> str:
        mc = math.sqrt(share * (1 - share) / args.draws)
        return f"{share:.2%} ± {mc:.2%}"

    for known_se, name in ((True, "known"), (False, "estimated")):
        for every in args.every:
            r = design_run(m, d, every=every, known_se=known_se)
            print(
                f"| {name} | every {every} ({r['looks']}) | {r['final_critical']:.3f} | "
                f"{r['level']:.2%} | {r['stopped_early']:.2%} | {pct(r['error_now'])} | "
                f"{pct(r['error_old'])} | {pct(r['error_fixed'])} |"
            )
    if args.bootstrap:
        every = args.every[0]
        same, n = bootstrap_check(m, d, every=every, studies=args.bootstrap, resamples=2000)
        print(
            f"\nBCa (2000 resamples) at the final boundary's level, every {every}: the same "
            f"decision as the linearised interval in {same} of {n} studies"
        )
    print(f"\n{time.perf_counter() - started:.0f} s (± is one Monte Carlo standard error)")


if __name__ == "__main__":
    main()
