"""Time the disagreement viewer and its CSV on a study of ~30,000 items, beside a study a
tenth of its size, on PostgreSQL.

    python -m tests.services --postgres -- .venv/bin/python benchmarks/disagreement_viewer.py

A scratch database is created on the server of ``DATABASE_URL`` (dropped afterwards),
migrated and filled with bulk inserts: per study, ``--cases`` cases × 15 criteria × two models
as units, each rated by three experts (one label per criterion, a note on one in ten), gold
for every criterion (a 2/1 split on one in eight, adjudicated on one in fifty with a senior's
reason), and one judge run per model with reasoning and a raw reply per verdict, wrong on one
in six. Each page is requested ``--requests`` times through Django's test client as a
logged-in admin after one warm-up request; the median and p95 are printed as a Markdown table
with the SQL queries per request. The page's work grows with the page, not the study: the
ratio of the large study's times to the small one's is the figure to read.
"""

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ABILITIES = ["verbal_expression", "curiosity", "warmth", "first_person", "autonomy", "humor",
             "self_awareness", "emotional_coping", "emotional_understanding",
             "emotional_perception", "emotional_reaction", "proactivity",
             "relationship_building", "motivation", "catastrophic"]  # fmt: skip
BATCH = 5000


def setup_django(database_url: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def generate(*, name: str, cases: int, seed: int) -> int:
    """One study of ``cases`` × 15 criteria × 2 models gold items; returns the item count."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from annotation.models import Assignment, Expert, Label, Pool, Submission, Unit
    from benchmark.models import (
        Case,
        Dataset,
        Judge,
        JudgeRun,
        ModelUnderTest,
        Response,
        RubricItem,
        Verdict,
    )  # fmt: skip
    from validation.models import GoldLabel, Study, StudyUnit

    rng = random.Random(seed)
    now = timezone.now()
    dialogue = [{"role": "A", "content": "最近工作压力很大，晚上总是睡不着。" * 3},
                {"role": "B", "content": "听起来你最近很辛苦，能多说说吗？"},
                {"role": "A", "content": "我也不知道从哪里说起。" * 4}]  # fmt: skip
    with transaction.atomic():
        dataset = Dataset.objects.create(name=name, version=1, content_hash="0" * 64)
        Case.objects.bulk_create(
            Case(dataset=dataset, question_id=f"{name}-q{i}", position=i, dialogue=dialogue,
                 difficulty="normal")
            for i in range(cases)
        )  # fmt: skip
        case_ids = list(
            Case.objects.filter(dataset=dataset).order_by("position").values_list("pk", flat=True)
        )
        RubricItem.objects.bulk_create(
            (RubricItem(case_id=c, position=p, ability=a, text=f"criterion {p}: 使用温暖的语气",
                        points=None if a == "catastrophic" else rng.choice([-3, 1, 3, 5]))
             for c in case_ids for p, a in enumerate(ABILITIES)),
            batch_size=BATCH,
        )  # fmt: skip
        items_of: dict[int, list[int]] = {}
        for pk, case_id in (
            RubricItem.objects.filter(case__dataset=dataset)
            .order_by("case_id", "position")
            .values_list("pk", "case_id")
        ):
            items_of.setdefault(case_id, []).append(pk)
        models = [ModelUnderTest.objects.create(name=f"{name}-model-{m}") for m in range(2)]
        Response.objects.bulk_create(
            (Response(model=m, case_id=c, text="我听见了你的感受。" * 20)
             for m in models for c in case_ids),
            batch_size=BATCH,
        )  # fmt: skip
        responses = list(
            Response.objects.filter(case__dataset=dataset).values_list("pk", "case_id", "model_id")
        )
        users = get_user_model().objects.bulk_create(
            get_user_model()(username=f"{name}-expert-{i}", password="!") for i in range(4)
        )
        experts = Expert.objects.bulk_create(Expert(user=u, display_name=u.username) for u in users)
        raters, senior = experts[:3], experts[3]
        pool = Pool.objects.create(name=name, status=Pool.Status.CLOSED)
        pool.experts.set(experts)
        Unit.objects.bulk_create(Unit(pool=pool, response_id=r[0]) for r in responses)
        unit_of = dict(Unit.objects.filter(pool=pool).values_list("response_id", "pk"))
        study = Study.objects.create(name=name, pool=pool, dataset=dataset, seed=seed)
        study.models_under_test.set(models)
        judge = Judge.objects.create(name=f"{name}-judge")
        runs = {m.pk: JudgeRun.objects.create(judge=judge, model=m, dataset=dataset)
                for m in models}  # fmt: skip
        study.judge_runs.set(runs.values())
        StudyUnit.objects.bulk_create(
            (StudyUnit(study=study, unit_id=unit_of[r], case_id=c, model_id=m, stratum="x",
                       state=StudyUnit.State.GOLD)
             for r, c, m in responses),
            batch_size=BATCH,
        )  # fmt: skip
        study_unit_of = dict(study.units.values_list("unit_id", "pk"))
        Assignment.objects.bulk_create(
            (Assignment(pool=pool, unit_id=unit_of[r], expert=e, slot=slot,
                        status=Assignment.Status.SUBMITTED, lease_expires_at=now)
             for r, _c, _m in responses for slot, e in enumerate(raters, start=1)),
            batch_size=BATCH,
        )  # fmt: skip
        Submission.objects.bulk_create(
            (Submission(assignment_id=a, unit_id=u, expert_id=e, kind="rating", slot=s)
             for a, u, e, s in Assignment.objects.filter(pool=pool).values_list(
                 "pk", "unit_id", "expert_id", "slot")),
            batch_size=BATCH,
        )  # fmt: skip
        submissions = list(Submission.objects.filter(unit__pool=pool).values_list("pk", "unit_id"))
        case_of_unit = {unit_of[r]: c for r, c, _m in responses}
        truth = {}
        labels, gold, verdicts = [], [], []
        for pk, unit_id in submissions:
            for item in items_of[case_of_unit[unit_id]]:
                true = truth.setdefault((unit_id, item), rng.random() < 0.4)
                split = rng.random() < 0.04  # each rater: ~1 in 8 items have a dissenter
                note = "这条标准理解有分歧" if rng.random() < 0.1 else ""
                labels.append(Label(submission_id=pk, rubric_item_id=item, hit=true != split,
                                    note=note))  # fmt: skip
        Label.objects.bulk_create(labels, batch_size=BATCH)
        for r, c, m in responses:
            for item in items_of[c]:
                unit_id = unit_of[r]
                true = truth[(unit_id, item)]
                adjudicated = rng.random() < 0.02
                provenance = "adjudicated" if adjudicated else rng.choice(["3/3"] * 7 + ["2/1"])
                gold.append(GoldLabel(study_unit_id=study_unit_of[unit_id], rubric_item_id=item,
                                      hit=true, provenance=provenance))  # fmt: skip
                wrong = rng.random() < 1 / 6
                verdicts.append(Verdict(
                    run=runs[m], response_id=r, rubric_item_id=item,
                    state="met" if true != wrong else "not_met",
                    reasoning="回应体现了对用户处境的理解。" * 3,
                    raw_reply='{"verdicts": [{"criterion": 1, "met": true}]}' * 10,
                ))  # fmt: skip
        GoldLabel.objects.bulk_create(gold, batch_size=BATCH)
        Verdict.objects.bulk_create(verdicts, batch_size=BATCH)
        # One senior's decision per unit, holding each of its adjudicated criteria.
        decided: dict[int, list[GoldLabel]] = {}
        for g in gold:
            if g.provenance == "adjudicated":
                decided.setdefault(g.study_unit_id, []).append(g)
        unit_of_study_unit = {s: u for u, s in study_unit_of.items()}
        for study_unit_id, golds in decided.items():
            unit_id = unit_of_study_unit[study_unit_id]
            assignment = Assignment.objects.create(
                pool=pool, unit_id=unit_id, expert=senior, kind="adjudication",
                status=Assignment.Status.SUBMITTED, lease_expires_at=now,
            )  # fmt: skip
            submission = Submission.objects.create(
                assignment=assignment, unit_id=unit_id, expert=senior, kind="adjudication"
            )
            Label.objects.bulk_create(
                Label(submission=submission, rubric_item_id=g.rubric_item_id, hit=g.hit,
                      note="资深专家的理由")
                for g in golds
            )  # fmt: skip
    return len(gold)


def _timed(client, url: str, requests: int) -> tuple[float, float]:
    times = []
    for _ in range(requests):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def time_pages(*, name: str, items: int, requests: int) -> list[tuple]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    admin = get_user_model().objects.get_or_create(
        username="viewer-admin", defaults={"is_staff": True, "is_superuser": True}
    )[0]
    client = Client()
    client.force_login(admin)
    base = f"/admin/studies/{name}/disagreements/"
    last = -(-items // 25)
    pages = [
        ("page 1", base),
        ("middle page", f"{base}?page={last // 2}"),
        ("last page", f"{base}?page={last}"),
        ("disagreements, page 2", f"{base}?agreement=disagree&page=2"),
        ("warmth × 2/1", f"{base}?ability=warmth&provenance=2/1"),
        ("CSV, disagreements", f"/admin/studies/{name}/disagreements.csv?agreement=disagree"),
        ("CSV, everything", f"/admin/studies/{name}/disagreements.csv"),
    ]
    results = []
    for label, url in pages:
        queries = []
        with connection.execute_wrapper(
            lambda execute, sql, *rest, seen=queries: (seen.append(sql), execute(sql, *rest))[1]
        ):
            first = client.get(url)  # warm-up, and the query count
        assert first.status_code == 200, (url, first.status_code)
        n = requests if "CSV" not in label else max(3, requests // 4)
        results.append((label, *_timed(client, url, n), len(queries), len(first.content)))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="of the large study")
    parser.add_argument("--requests", type=int, default=12)
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        print("needs PostgreSQL: run under `python -m tests.services --postgres --` or set "
              "DATABASE_URL", file=sys.stderr)  # fmt: skip
        return 2
    sys.path.insert(0, str(ROOT))
    from tests.services import scratch_database

    with scratch_database(base, prefix="heartbench_viewer") as url:
        setup_django(url)
        sizes = {}
        for name, cases in (("viewer-small", args.cases // 10), ("viewer-large", args.cases)):
            start = time.perf_counter()
            sizes[name] = (
                generate(name=name, cases=cases, seed=cases),
                time.perf_counter() - start,
            )
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        results = {n: time_pages(name=n, items=sizes[n][0], requests=args.requests) for n in sizes}
        server = connection.cursor().connection.info.server_version
        connection.close()
    print(f"Machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, PostgreSQL {server // 10000}."
          f"{server % 10000}; {time.strftime('%Y-%m-%d %H:%M')}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    small, large = sizes["viewer-small"][0], sizes["viewer-large"][0]
    print(
        f"Data: {small:,} and {large:,} items (gold × one judge), three labels each; "
        f"generated in {sizes['viewer-small'][1]:.0f} s and {sizes['viewer-large'][1]:.0f} s"
    )
    print()
    print(f"| request | {small:,} items: median / p95 ms | {large:,} items: median / p95 ms | "
          "ratio of medians | SQL queries | bytes (large) |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for (label, m1, p1, _q1, _b1), (_l, m2, p2, q2, b2) in zip(
        results["viewer-small"], results["viewer-large"], strict=True
    ):
        print(f"| {label} | {m1:.0f} / {p1:.0f} | {m2:.0f} / {p2:.0f} | {m2 / m1:.2f} | {q2} | "
              f"{b2:,} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
