"""The whole `heartbench judge` command against our fake endpoint, next to the engine's wall.

    python benchmarks/judge_command.py [--repeats 3] [--code PATH ...] [--timeline]

Builds the 296 released cases (one synthetic answer each) in a throw-away SQLite database, starts
the fake endpoint in this process (0.5 s latency) and runs the judge command as a subprocess,
once per pass and per code tree given with ``--code`` (put on ``PYTHONPATH``; default: this
one), interleaved so that every tree sees the same machine load. Passes:

- clean: a declared limit of ``--rps`` requests/s (``--rpm``), concurrency 32;
- faults: the same with ``--fault-rate`` of 500s, unusable and short replies;
- learnt: the same faults, no ``--rpm``; the endpoint itself answers 429 past ``--rps``
  requests in any second, and the command has to find the rate.

In each repeat every tree meets the same fault draws (the fake endpoint reseeded with the
repeat's number), so trees are compared on the same luck.

Floor = max(N × latency / concurrency, N / rate). Reported per pass and tree: the median (and
range) of the whole command's wall time, of the engine's own (the run's ``wall_seconds``), and
their ratios to the floor, with requests per answer and the verdicts that differ from the fake
judge's. ``--timeline`` prints, per run, where its time went (:func:`timeline`).
"""

import argparse
import bisect
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_throughput import ROOT, load_cases, setup_django

PASSES = ("clean", "faults", "learnt")
FAULT_MIX = ("server_error", "malformed", "wrong_count")


def timeline(requests, *, started: float, ended: float, n: int) -> str:
    """Where one run's time went, from the fake endpoint's log (seconds from the command's
    start): first request, the n-th, the last, the last reply, the exit; requests after the
    n-th, 429s, the most sent in any one second, the sends per second, and the requests (retries
    and re-asks) of the answer whose reply came last."""
    sends = sorted(r.started - started for r in requests)
    last_reply = max(r.answered or 0.0 for r in requests) - started
    busiest = max(bisect.bisect_left(sends, t + 1.0) - i for i, t in enumerate(sends))
    per_second = Counter(int(t) for t in sends)
    refused = sum(r.status == 429 for r in requests)
    last = max(requests, key=lambda r: r.answered or 0.0)
    asked = sorted((r for r in requests if r.unit == last.unit), key=lambda r: r.started)
    return (
        f"first {sends[0]:.2f}, {n}th {sends[n - 1]:.2f}, last {sends[-1]:.2f} "
        f"(+{len(sends) - n} after the {n}th), last reply {last_reply:.2f}, "
        f"exit {ended - started - last_reply:.2f}; 429s {refused}; busiest second {busiest}; "
        f"per second {[per_second[s] for s in range(int(sends[-1]) + 1)]}; the last answer's "
        f"requests: {', '.join(f'{r.fault} {r.started - started:.2f}' for r in asked)}"
    )


def command_run(*, code: Path, fake, judge_model: str, args, declared: bool) -> float:
    env = {**os.environ, "PYTHONPATH": str(code), "HEARTBENCH_API_KEY": "bench"}
    argv = [
        sys.executable,
        "-c",
        "from config.cli import main; main()",
        "judge",
        "--model",
        "bench-model",
        "--judge-model",
        judge_model,
        "--base-url",
        fake.base_url,
        "--concurrency",
        str(args.concurrency),
        "--no-progress",
    ]
    if declared:
        argv += ["--rpm", f"{args.rps * 60:g}"]
    if args.hedge:
        argv += ["--hedge", f"{args.hedge:g}"]
    sent = fake.count()
    started = time.monotonic()
    done = subprocess.run(argv, env=env, cwd=code, capture_output=True, text=True)
    ended = time.monotonic()
    if done.returncode not in (0, 1):  # 1: finished, some criteria in error (counted below)
        sys.exit(f"{code}: judge exited {done.returncode}\n{done.stdout}\n{done.stderr}")
    if args.timeline:
        requests = fake.requests[sent:]
        print(f"{judge_model}: {timeline(requests, started=started, ended=ended, n=args.n)}")
    return ended - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=ROOT.parent / "shared/heartbench-data/question_all.jsonl"
    )
    parser.add_argument("--code", type=Path, action="append", help="a code tree (repeatable)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rps", type=float, default=60)
    parser.add_argument("--fault-rate", type=float, default=0.08)
    parser.add_argument("--passes", default=",".join(PASSES))
    parser.add_argument("--hedge", type=float, help="pass --hedge QUANTILE (newer trees only)")
    parser.add_argument("--timeline", action="store_true", help="print where each run's time went")
    args = parser.parse_args()
    if not args.data.exists():
        parser.error(f"{args.data}: no such file (pass --data)")
    codes = [path.resolve() for path in (args.code or [ROOT])]
    passes = args.passes.split(",")
    setup_django(None)
    from benchmark.llm.fake_server import FakeLLM, collector_paused, fake_verdict
    from benchmark.models import JudgeRun, Verdict

    _, model = load_cases(args.data)
    n = args.n = model.responses.count()
    floor = max(n * args.latency / args.concurrency, n / args.rps)
    results: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    wrong = 0
    with FakeLLM(latency=args.latency, retry_after=1.0, fault_mix=FAULT_MIX) as fake:
        for repeat in range(args.repeats):
            for name in passes:
                for index, code in enumerate(codes):
                    fake.fault_rate = 0 if name == "clean" else args.fault_rate
                    fake.limit_per_second = args.rps if name == "learnt" else None
                    fake.reseed(repeat)  # every tree of a repeat meets the same faults
                    judge_model = f"bench-{name}-{index}-{repeat}"
                    sent = fake.count()
                    with collector_paused():  # the fake endpoint's clock runs in this process
                        wall = command_run(
                            code=code,
                            fake=fake,
                            judge_model=judge_model,
                            args=args,
                            declared=name != "learnt",
                        )
                    run = JudgeRun.objects.get(judge__model=judge_model)
                    results.setdefault((name, index), []).append(
                        (wall, run.wall_seconds, (fake.count() - sent) / n, run.errors)
                    )
                    for state, text in Verdict.objects.filter(run=run).values_list(
                        "state", "rubric_item__text"
                    ):
                        wrong += state != ("met" if fake_verdict(text) else "not_met")
    print(
        f"N = {n} answers, latency {args.latency:g} s, concurrency {args.concurrency}, "
        f"{args.rps:g} requests/s, faults {args.fault_rate:.0%} of {', '.join(FAULT_MIX)}; "
        f"floor = {floor:.2f} s; {args.repeats} repeats, median [min–max]"
        + (f"; --hedge {args.hedge:g}" if args.hedge else "")
        + "\n"
    )
    print(
        "| pass | code | whole command (s) | × floor | engine (s) | × floor | requests/answer "
        "| criteria in error (all repeats) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in passes:
        for index, code in enumerate(codes):
            rows = results[(name, index)]
            cells = []
            for column in (0, 1):
                values = [row[column] for row in rows]
                median = statistics.median(values)
                cells.append(
                    f"{median:.2f} [{min(values):.2f}–{max(values):.2f}] | {median / floor:.2f}"
                )
            per_answer = statistics.median(row[2] for row in rows)
            errors = sum(row[3] for row in rows)
            print(
                f"| {name} | {code.name if len(codes) == 1 else code} | "
                f"{' | '.join(cells)} | {per_answer:.3f} | {errors} |"
            )
    print(f"\nverdicts differing from the fake judge's (errors included): {wrong}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
