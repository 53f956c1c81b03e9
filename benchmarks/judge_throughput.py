"""Judge throughput: a full 296-answer judge pass against our fake endpoint.

    python benchmarks/judge_throughput.py [--data ../shared/heartbench-data/question_all.jsonl]

Builds the released cases in a throw-away SQLite database (nothing is copied into the project),
gives one synthetic answer per case, and judges them with a fixed endpoint latency:

1. concurrency 32 under a request-rate limit, compared with the floor
   max(N × latency / concurrency, N / rate);
2. the same with 5% injected faults (429, 500, garbled body, malformed and wrong-length
   replies), counting requests per answer;
3. a re-run of pass 1, which must send nothing;
4. the upstream way: 2 requests at a time.
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_django(database_url: str | None) -> None:
    sys.path.insert(0, str(ROOT))
    folder = tempfile.mkdtemp(prefix="heartbench-bench-")
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{folder}/bench.sqlite3"
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def load_cases(path: Path):
    """The released cases straight into the ORM, with one synthetic answer each."""
    from benchmark.models import Case, Dataset, ModelUnderTest, Response, RubricItem
    from benchmark.taxonomy import ability_code

    dataset = Dataset.objects.create(name="bench", version=1, content_hash="bench")
    model = ModelUnderTest.objects.create(name="bench-model")
    with path.open(encoding="utf-8") as lines:
        for position, line in enumerate(lines):
            row = json.loads(line)
            case = Case.objects.create(
                dataset=dataset,
                question_id=row["question_id"],
                position=position,
                dialogue=row["dialogue"],
                difficulty=row["difficulty"],
            )
            RubricItem.objects.bulk_create(
                RubricItem(
                    case=case,
                    position=i,
                    ability=ability_code(item["dimension"]),
                    points=item["score"],
                    text=item["content"],
                )
                for i, item in enumerate(row["rubric"])
            )
            Response.objects.create(
                model=model, case=case, text=f"我在听，你愿意多说一点吗？（{position}）"
            )
    return dataset, model


def judge_pass(fake, dataset, model, *, judge_model: str, concurrency: int, rpm: float | None):
    from benchmark.llm.client import RetryPolicy
    from benchmark.llm.prompts import DEFAULT_JUDGE_TEMPLATE, template_load
    from benchmark.services.judging import (
        EngineOptions,
        judge_resolve,
        judge_run_execute,
        judge_run_start,
    )

    judge = judge_resolve(
        name=judge_model,
        endpoint_model=judge_model,
        base_url=fake.base_url,
        template=template_load(DEFAULT_JUDGE_TEMPLATE),
    )
    sent = fake.count()
    started = time.monotonic()
    run, todo = judge_run_start(judge=judge, model=model, dataset=dataset)
    if todo:
        judge_run_execute(
            run_id=run.pk,
            options=EngineOptions(
                base_url=fake.base_url,
                concurrency=concurrency,
                rpm=rpm,
                timeout=30,
                retry=RetryPolicy(backoff_base=0.2),
            ),
        )
    run.refresh_from_db()
    return {"wall": time.monotonic() - started, "requests": fake.count() - sent, "run": run}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=ROOT.parent / "shared/heartbench-data/question_all.jsonl"
    )
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rpm", type=float, default=2400)
    parser.add_argument("--fault-rate", type=float, default=0.05)
    parser.add_argument("--skip-upstream", action="store_true")
    parser.add_argument("--database-url", help="default: a temporary SQLite file")
    args = parser.parse_args()
    if not args.data.exists():
        parser.error(f"{args.data}: no such file (pass --data)")
    setup_django(args.database_url)
    from benchmark.llm.fake_server import FakeLLM, fake_verdict
    from benchmark.models import Verdict

    dataset, model = load_cases(args.data)
    n = model.responses.count()
    floor = max(n * args.latency / args.concurrency, n / (args.rpm / 60))
    rows = []
    with FakeLLM(latency=args.latency, retry_after=0.5) as fake:
        clean = judge_pass(
            fake,
            dataset,
            model,
            judge_model="bench-clean",
            concurrency=args.concurrency,
            rpm=args.rpm,
        )
        rows.append((f"clean, concurrency {args.concurrency}, {args.rpm:g} rpm", clean))
        fake.fault_rate = args.fault_rate
        faulty = judge_pass(
            fake,
            dataset,
            model,
            judge_model="bench-faults",
            concurrency=args.concurrency,
            rpm=args.rpm,
        )
        rows.append((f"{args.fault_rate:.0%} faults, same settings", faulty))
        fake.fault_rate = 0
        again = judge_pass(
            fake,
            dataset,
            model,
            judge_model="bench-clean",
            concurrency=args.concurrency,
            rpm=args.rpm,
        )
        rows.append(("re-run of the clean pass", again))
        if not args.skip_upstream:
            upstream = judge_pass(
                fake, dataset, model, judge_model="bench-upstream", concurrency=2, rpm=None
            )
            rows.append(("upstream way, 2 at a time", upstream))

    wrong = 0
    for name in ("bench-clean", "bench-faults"):
        for state, text in Verdict.objects.filter(run__judge__name=name).values_list(
            "state", "rubric_item__text"
        ):
            wrong += state != ("met" if fake_verdict(text) else "not_met")
    print(
        f"N = {n} answers, latency {args.latency:g} s, floor = max({n}×{args.latency:g}/"
        f"{args.concurrency}, {n}/{args.rpm / 60:g} per s) = {floor:.2f} s\n"
    )
    print("| pass | wall (s) | × floor | requests | requests/answer | errors | parse failures |")
    print("|---|---|---|---|---|---|---|")
    for label, r in rows:
        run = r["run"]
        print(
            f"| {label} | {r['wall']:.2f} | {r['wall'] / floor:.2f} | {r['requests']} | "
            f"{r['requests'] / n:.3f} | {run.errors} | "
            f"{run.parse_failures} |"
        )
    print(f"\nverdicts differing from the fake judge's (errors included): {wrong}")
    ok = rows[0][1]["wall"] <= 1.3 * floor and rows[1][1]["requests"] / n <= 1.25
    ok = ok and rows[2][1]["requests"] == 0
    print(
        "targets (≤ 1.3 × floor, ≤ 1.25 requests/answer with faults, 0 on re-run):",
        "met" if ok else "NOT met",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
