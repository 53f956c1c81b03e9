"""CPU of the submit's inserts: ``bulk_create`` against ``rows_insert``, in one run.

    .venv/bin/python benchmarks/row_inserts.py                        # embedded SQLite
    python -m tests.services --postgres -- .venv/bin/python benchmarks/row_inserts.py

The last rating of a unit writes the expert's labels, the unit's gold labels and the raters'
peer-agreement rows. Each shape (``--rows`` rows: a case's criteria, or the three raters) is
written ``--calls`` times by each method, the two alternating call by call so that the
machine's noise falls on both, each call in a transaction rolled back (foreign keys are
checked at commit, so the ids need no rows behind them). Printed: the process's CPU ms per
call (median and p90) and the ratio of the medians.
"""

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime


def shapes(rows: int):
    """(name, model, columns, rows of values) of each insert of the last rating."""
    from annotation.models import Label, PeerAgreement
    from validation.models import GoldLabel

    at = datetime(2026, 11, 28, tzinfo=UTC)
    return [
        (
            "labels",
            Label,
            ("submission_id", "rubric_item_id", "hit", "note", "rubric_version"),
            [(1, 10 + i, i % 2 == 0, "", 1) for i in range(rows)],
        ),
        (
            "gold labels",
            GoldLabel,
            ("study_unit_id", "rubric_item_id", "hit", "provenance", "created_at"),
            [(1, 10 + i, i % 2 == 0, "2/1", at) for i in range(rows)],
        ),
        (
            "peer agreement",
            PeerAgreement,
            ("submission_id", "pool_id", "expert_id", "agreed", "compared"),
            [(1 + i, 1, 1 + i, rows - 1, rows) for i in range(3)],
        ),
    ]


def measure(*, calls: int, rows: int) -> list[tuple[str, list[float], list[float]]]:
    from django.db import transaction

    from annotation.services import rows_insert

    def bulk(model, columns, values):
        model.objects.bulk_create(model(**dict(zip(columns, v, strict=True))) for v in values)

    def ours(model, columns, values):
        rows_insert(model, columns, values)

    results = []
    for name, model, columns, values in shapes(rows):
        cpu: dict[str, list[float]] = {"bulk_create": [], "rows_insert": []}
        for _ in range(calls):
            for method, write in (("bulk_create", bulk), ("rows_insert", ours)):
                with transaction.atomic():
                    start = time.process_time()
                    write(model, columns, values)
                    cpu[method].append(time.process_time() - start)
                    transaction.set_rollback(True)
        results.append((name, cpu["bulk_create"], cpu["rows_insert"]))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--rows", type=int, default=12, help="criteria of a case")
    args = parser.parse_args()
    from expert_requests import machine, ms_median_p90, scratch_database

    with scratch_database():
        results = measure(calls=args.calls, rows=args.rows)
        from django.db import connection

        vendor = connection.vendor
    print(machine(vendor, f"{args.calls} calls each, {args.rows} criteria"))
    print("| insert | bulk_create CPU ms median / p90 | rows_insert CPU ms median / p90 | ratio |")
    print("|---|---|---|---|")

    def ms(cpu: list[float]) -> str:
        return " / ".join(ms_median_p90(cpu))

    for name, bulk, ours in results:
        ratio = statistics.median(ours) / statistics.median(bulk)
        print(f"| {name} | {ms(bulk)} | {ms(ours)} | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
