"""Time the next-unit claim on a small and a large pool in one run, on PostgreSQL.

    python -m tests.services --postgres -- .venv/bin/python benchmarks/claim_scale.py
    python -m tests.services --postgres -- .venv/bin/python benchmarks/claim_scale.py --filled 0.9

"A claim's cost does not depend on the pool's size." A scratch database is created on the
server of ``DATABASE_URL`` (and dropped afterwards), migrated, and filled with bulk inserts:
one synthetic dataset of ``--large`` cases (four criteria each, one model), a pool over the
first ``--small`` answers and one over all of them, each open to the same ``--experts``
experts; ``--filled`` of each pool's units (the first ones) already have their three ratings.
Then, alternating small and large so both see the same machine, one expert after another
claims in this process what next-unit serves (``assignment_claim_next_in_study`` by the
pool's name, then ``study_progress``, the line its answer carries) and gives the unit back
(its assignment released, so the pool stays as it was); the median and p95 wall time and the SQL
statements per claim are printed. Run it with another tree on ``PYTHONPATH`` to time that
tree's claim on the same data.
"""

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BATCH = 5000


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def generate(*, small: int, large: int, experts: int, filled: float) -> dict[str, object]:
    """Bulk-insert the dataset, the experts and the two open pools; returns the pools."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.db.models import Count, Max, Min
    from django.utils import timezone

    from annotation.models import Assignment, Expert, Pool, Unit
    from benchmark.models import Case, Dataset, ModelUnderTest, Response, RubricItem

    now = timezone.now()
    with transaction.atomic():
        dataset = Dataset.objects.create(
            name="scale", version=1, content_hash="0" * 64, case_count=large
        )
        Case.objects.bulk_create(
            (
                Case(dataset=dataset, question_id=f"q{i}", position=i, dialogue=[],
                     difficulty="hard" if i % 3 == 0 else "normal", primary_scene=f"s{i % 7}")
                for i in range(large)
            ),
            batch_size=BATCH,
        )  # fmt: skip
        cases = list(Case.objects.order_by("position").values_list("pk", flat=True))
        RubricItem.objects.bulk_create(
            (
                RubricItem(case_id=c, position=p, ability="warmth", text=f"criterion {p}")
                for c in cases
                for p in range(4)
            ),
            batch_size=BATCH,
        )
        model = ModelUnderTest.objects.create(name="scale-model")
        Response.objects.bulk_create(
            (Response(model=model, case_id=c, text="…") for c in cases), batch_size=BATCH
        )
        responses = list(Response.objects.order_by("case__position").values_list("pk", flat=True))
        user_model = get_user_model()
        user_model.objects.bulk_create(
            user_model(username=f"scale-{i}", password="!") for i in range(experts + 3)
        )
        users = user_model.objects.filter(username__startswith="scale-").order_by("pk")
        Expert.objects.bulk_create(
            Expert(user=u, display_name=u.username, daily_capacity=10**6) for u in users
        )
        people = list(Expert.objects.select_related("user").order_by("pk"))
        raters, fillers = people[:experts], people[experts:]
        pools = {}
        for label, size in (("small", small), ("large", large)):
            pool = Pool.objects.create(name=f"scale-{label}", status=Pool.Status.OPEN)
            pool.experts.set(raters + fillers)
            Unit.objects.bulk_create(
                (Unit(pool=pool, response_id=r) for r in responses[:size]), batch_size=BATCH
            )
            full = Unit.objects.filter(pool=pool).order_by("pk")[: int(size * filled)]
            Assignment.objects.bulk_create(
                (
                    Assignment(pool=pool, unit_id=u, expert=e, slot=slot, lease_expires_at=now,
                               status=Assignment.Status.SUBMITTED, submitted_at=now)
                    for u in full.values_list("pk", flat=True)
                    for slot, e in enumerate(fillers, start=1)
                ),
                batch_size=BATCH,
            )  # fmt: skip
            if hasattr(Unit, "ratings_complete"):  # as their last submit marks them
                Unit.objects.filter(pk__in=full.values("pk")).update(ratings_complete=True)
            if hasattr(Pool, "units_total"):  # the pool's record of its units, and its tally
                from annotation.models import PoolTally

                ends = Unit.objects.filter(pool=pool).aggregate(
                    first=Min("pk"), last=Max("pk"), total=Count("pk")
                )
                Pool.objects.filter(pk=pool.pk).update(
                    unit_id_first=ends["first"],
                    unit_id_last=ends["last"],
                    units_total=ends["total"],
                )
                PoolTally.objects.create(pool=pool, units_complete=int(size * filled))
            pools[label] = pool
    return {"pools": pools, "raters": raters}


def time_claims(*, pools: dict, raters: list, rounds: int) -> dict[str, tuple[list, list]]:
    """Per pool: the wall time (ms) and the SQL statements of each claim."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation.models import Assignment
    from annotation.selectors.work import study_progress
    from annotation.services import assignment_claim_next_in_study

    results = {label: ([], []) for label in pools}
    for round_ in range(rounds + 1):
        for label, pool in pools.items():
            expert = raters[round_ % len(raters)]
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                # What next-unit serves: the claim in the study of that name, then the
                # progress line its answer carries.
                pool, claim = assignment_claim_next_in_study(user=expert.user, name=pool.name)
                assignment = claim.assignment
                if assignment is not None:
                    study_progress(expert=expert, pool=pool)
                elapsed = (time.perf_counter() - start) * 1000
            assert assignment is not None, f"nothing handed out in {label}"
            Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.RELEASED)
            if round_:  # the first round warms the connection and the caches
                results[label][0].append(elapsed)
                results[label][1].append(len(queries.captured_queries))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=500)
    parser.add_argument("--large", type=int, default=50_000)
    parser.add_argument("--experts", type=int, default=20)
    parser.add_argument("--filled", type=float, default=0.0, help="share of units complete")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    if not 0 <= args.filled < 1:
        parser.error(f"--filled is a share from 0 to below 1, got {args.filled}")
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        parser.error("needs PostgreSQL: run under `python -m tests.services --postgres --`")
    sys.path.append(str(ROOT))  # tests.services; the tree timed is the one on PYTHONPATH
    from tests.services import scratch_database

    with scratch_database(base, prefix="heartbench_claims") as url:
        setup_django(url)
        made = generate(
            small=args.small, large=args.large, experts=args.experts, filled=args.filled
        )
        from django.db import connection

        with connection.cursor() as cursor:  # the statistics autovacuum would take on a server
            cursor.execute("ANALYZE")
        results = time_claims(pools=made["pools"], raters=made["raters"], rounds=args.rounds)
        server = connection.cursor().connection.info.server_version
        connection.close()
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, PostgreSQL {server // 10000}."
        f"{server % 10000}, {time.strftime('%Y-%m-%d %H:%M')}, load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; {args.filled:.0%} of units complete; "
        f"{args.rounds} claims per pool\n"
    )
    print("| pool | units | claim median ms | p95 ms | SQL statements |")
    print("|---|---|---|---|---|")
    medians = {}
    for label, (times, queries) in results.items():
        size = args.small if label == "small" else args.large
        medians[label] = statistics.median(times)
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"| {label} | {size:,} | {medians[label]:.1f} | {p95:.1f} | {max(queries)} |")
    print(f"\nlarge / small (medians): {medians['large'] / medians['small']:.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
