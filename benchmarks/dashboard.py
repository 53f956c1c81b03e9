"""Time every admin dashboard page and the runs JSON at the issue's scale on PostgreSQL.

    python -m tests.services --postgres -- .venv/bin/python benchmarks/dashboard.py
    DATABASE_URL=postgres://... .venv/bin/python benchmarks/dashboard.py   # a server of yours

"The dashboards answer in under 300 ms with 50 experts, 20 studies and 200,000 labels on
PostgreSQL." A scratch database is created on the server of ``DATABASE_URL`` (and dropped
afterwards), migrated, and filled with bulk inserts: one synthetic dataset (``--cases`` cases
× 10 criteria, two models), 50 experts, 20 studies of 15 experts each over 400 units, three
quarters of them rated by three experts and the rest by one, labels to ``--labels`` in all
(one expert in two studies labels carelessly), ratings spread over the last 60 days, a few
units whose leases keep expiring, judge runs with verdicts (one with many errors) and
generation runs. Every page is then requested ``--requests`` times through Django's test
client as a logged-in admin (after one warm-up request), and the median and p95 are printed
as a Markdown table, with the number of SQL queries per page.
"""

import argparse
import os
import platform
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ABILITIES = ["warmth", "curiosity", "emotional_coping", "emotional_understanding",
             "proactivity", "relationship_building", "motivation", "morality",
             "self_awareness", "catastrophic"]  # fmt: skip
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


def generate(
    *,
    cases: int,
    experts: int,
    studies: int,
    labels: int,
    model_count: int = 2,
    study_models: int = 2,
    units_per_study: int = 400,
    members_per_study: int = 15,
    seed: int = 5,
) -> dict:
    """Bulk-insert the synthetic platform; returns what was made (counts and names).

    Each study rates ``units_per_study`` responses: ``study_models`` of ``model_count`` models
    on the same sampled cases, with ``members_per_study`` of the experts; a label is one
    criterion's rating in one rating submission (an ``annotation.Label`` row). Units rated
    three times have gold in every closed study and in every other one of an open study
    (``GoldLabel`` rows, the majority); every model has a finished judge run the studies check
    and the first model also a running one with many errors."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.db.models import Count, F, OuterRef, Subquery
    from django.db.models.functions import Coalesce
    from django.utils import timezone

    from annotation.models import Assignment, Expert, Label, Pool, Submission, Unit
    from annotation.services.agreement import peer_agreements_backfill
    from benchmark.models import (
        Case,
        Dataset,
        GenerationRun,
        Judge,
        JudgeRun,
        ModelUnderTest,
        Response,
        RubricItem,
        Verdict,
    )
    from validation.models import GoldLabel, Study, StudyUnit

    rng = random.Random(seed)
    now = timezone.now()
    per_unit_items = len(ABILITIES)
    with transaction.atomic():
        dataset = Dataset.objects.create(name="dash", version=1, content_hash="0" * 64,
                                         case_count=cases,
                                         criterion_count=cases * per_unit_items)  # fmt: skip
        Case.objects.bulk_create(
            Case(dataset=dataset, question_id=f"q{i}", position=i, dialogue=[],
                 difficulty="hard" if i % 3 == 0 else "normal", primary_scene=f"scene{i % 7}")
            for i in range(cases)
        )  # fmt: skip
        case_ids = list(Case.objects.filter(dataset=dataset).order_by("position").values_list(
            "pk", flat=True))  # fmt: skip
        RubricItem.objects.bulk_create(
            (RubricItem(case_id=c, position=p, ability=a, text=f"criterion {p}",
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
        models = [
            ModelUnderTest.objects.create(name=f"dash-model-{m:02d}") for m in range(model_count)
        ]
        Response.objects.bulk_create(
            (Response(model=m, case_id=c, text="…") for m in models for c in case_ids),
            batch_size=BATCH,
        )
        responses = list(Response.objects.filter(case__dataset=dataset).values_list(
            "pk", "case_id", "model_id"))  # fmt: skip
        user_model = get_user_model()
        user_model.objects.bulk_create(
            user_model(username=f"dash-expert-{i}", password="!") for i in range(experts)
        )
        users = user_model.objects.filter(username__startswith="dash-expert-").order_by("pk")
        Expert.objects.bulk_create(Expert(user=u, display_name=u.username) for u in users)
        expert_ids = list(Expert.objects.order_by("pk").values_list("pk", flat=True))
        careless = {expert_ids[0]}
        judge = Judge.objects.create(name="dash-judge", model="judge-model")
        finished = {
            model.pk: JudgeRun.objects.create(
                judge=judge, model=model, dataset=dataset, source="engine",
                status=JudgeRun.Status.FINISHED, calls=1200, cost=3.21,
                total=cases * per_unit_items,
            )
            for model in models
        }  # fmt: skip
        running = JudgeRun.objects.create(
            judge=judge, model=models[0], dataset=dataset, source="engine",
            status=JudgeRun.Status.RUNNING, calls=1200, cost=3.21, total=cases * per_unit_items,
        )  # fmt: skip
        by_model: dict[int, list[tuple[int, int, int]]] = {}
        for row in responses:
            by_model.setdefault(row[2], []).append(row)

        label_budget = labels
        made = {"studies": 0, "units": 0, "submissions": 0, "labels": 0, "assignments": 0}
        study_names = []
        for s in range(studies):
            name = f"dash-study-{s:02d}"
            study_names.append(name)
            status = Pool.Status.CLOSED if s % 5 == 4 else Pool.Status.OPEN
            pool = Pool.objects.create(name=name, status=status)
            members = rng.sample(expert_ids, members_per_study)
            if s in (0, 1) and expert_ids[0] not in members:
                members[0] = expert_ids[0]
            pool.experts.set(members)
            # As a study samples: a share of the cases, every model of the study on each.
            in_study = rng.sample(models, study_models)
            sampled = set(rng.sample(case_ids, units_per_study // study_models))
            chosen = [r for m in in_study for r in by_model[m.pk] if r[1] in sampled]
            Unit.objects.bulk_create(Unit(pool=pool, response_id=r[0]) for r in chosen)
            unit_rows = list(Unit.objects.filter(pool=pool).order_by("pk").values_list(
                "pk", "response_id"))  # fmt: skip
            case_of = {r[0]: (r[1], r[2]) for r in chosen}
            study = Study.objects.create(
                name=name, pool=pool, dataset=dataset, fraction=0.3, seed=s,
                due_date=(now + timedelta(days=rng.choice([3, 20, 90]))).date(),
                opened_at=now - timedelta(days=60),
                closed_at=now - timedelta(days=1) if status == Pool.Status.CLOSED else None,
            )  # fmt: skip
            study.models_under_test.set(in_study)
            study.judge_runs.set([finished[m.pk] for m in in_study])
            full = len(unit_rows) * 3 // 4
            study_units, assignments, rated = [], [], []
            for index, (unit_id, response_id) in enumerate(unit_rows):
                case_id, model_id = case_of[response_id]
                raters = rng.sample(members, 3) if index < full else rng.sample(members, 1)
                gold = index < full and (status == Pool.Status.CLOSED or index % 2 == 0)
                study_units.append(StudyUnit(
                    study=study, unit_id=unit_id, case_id=case_id, model_id=model_id,
                    stratum="x", state=StudyUnit.State.GOLD if gold else StudyUnit.State.PENDING,
                ))  # fmt: skip
                for slot, expert_id in enumerate(raters, start=1):
                    assignments.append(Assignment(
                        pool=pool, unit_id=unit_id, expert_id=expert_id, slot=slot,
                        status=Assignment.Status.SUBMITTED, lease_expires_at=now,
                        submitted_at=now,
                    ))  # fmt: skip
                    rated.append((unit_id, case_id, expert_id, slot))
                if index in (full, full + 1, full + 2):  # leases that keep expiring
                    for expert_id in [e for e in members if e not in raters][:3]:
                        assignments.append(Assignment(
                            pool=pool, unit_id=unit_id, expert_id=expert_id, slot=2,
                            status=Assignment.Status.EXPIRED,
                            lease_expires_at=now - timedelta(hours=1),
                        ))  # fmt: skip
            StudyUnit.objects.bulk_create(study_units, batch_size=BATCH)
            Assignment.objects.bulk_create(assignments, batch_size=BATCH)
            by_key = {
                (u, e): pk
                for pk, u, e in Assignment.objects.filter(
                    pool=pool, status=Assignment.Status.SUBMITTED
                ).values_list("pk", "unit_id", "expert_id")
            }
            Submission.objects.bulk_create(
                (Submission(assignment_id=by_key[(u, e)], unit_id=u, expert_id=e,
                            kind="rating", slot=slot)
                 for u, _c, e, slot in rated),
                batch_size=BATCH,
            )  # fmt: skip
            subs = list(Submission.objects.filter(unit__pool=pool).values_list(
                "pk", "unit_id", "expert_id"))  # fmt: skip
            case_by_unit = {u: c for u, c, _e, _s in rated}
            unit_of = {pk: unit_id for pk, unit_id, _e in subs}
            truth: dict[tuple[int, int], bool] = {}
            new_labels = []
            for pk, unit_id, expert_id in subs:
                noise = 0.45 if expert_id in careless else 0.08
                for item in items_of[case_by_unit[unit_id]]:
                    if label_budget <= 0:
                        break
                    true = truth.setdefault((unit_id, item), rng.random() < 0.3)
                    new_labels.append(Label(submission_id=pk, rubric_item_id=item,
                                            hit=true != (rng.random() < noise)))  # fmt: skip
                    label_budget -= 1
            Label.objects.bulk_create(new_labels, batch_size=BATCH)
            votes: dict[tuple[int, int], list[bool]] = {}
            for label in new_labels:
                votes.setdefault((unit_of[label.submission_id], label.rubric_item_id), []).append(
                    label.hit
                )
            gold_units = {su.unit_id: su.pk for su in study_units if su.state == "gold"}
            GoldLabel.objects.bulk_create(
                (GoldLabel(study_unit_id=gold_units[u], rubric_item_id=item,
                           hit=sum(hits) >= 2, provenance="3/3" if len(set(hits)) == 1 else "2/1")
                 for (u, item), hits in votes.items() if u in gold_units and len(hits) == 3),
                batch_size=BATCH,
            )  # fmt: skip
            made["studies"] += 1
            made["units"] += len(unit_rows)
            made["submissions"] += len(subs)
            made["labels"] += len(new_labels)
            made["assignments"] += len(assignments)
        # What assignment_submit records as each unit completes (bulk inserts skip it); the
        # same call as the migration that added the rows, so it is timed too.
        started = time.perf_counter()
        made["peer agreement rows"] = peer_agreements_backfill()
        made["backfill s"] = round(time.perf_counter() - started, 1)
        # Each unit's rating counter and "complete" mark, as the submits would have kept them.
        rated_n = (
            Submission.objects.filter(unit=OuterRef("pk"), kind="rating")
            .order_by()
            .values("unit")
            .annotate(n=Count("pk"))
            .values("n")
        )
        Unit.objects.update(ratings=Coalesce(Subquery(rated_n), 0))
        Unit.objects.filter(ratings__gte=F("pool__raters_per_unit")).update(ratings_complete=True)
        # auto_now_add stamped every rating "now": spread them over the last 60 days.
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {Submission._meta.db_table} SET submitted_at = submitted_at - "
                "((id * 7919) % 60) * INTERVAL '1 day' - ((id * 104729) % 86400) * "
                "INTERVAL '1 second'"
            )
            cursor.execute(
                f"UPDATE {Assignment._meta.db_table} a SET submitted_at = s.submitted_at "
                f"FROM {Submission._meta.db_table} s WHERE s.assignment_id = a.id"
            )
        verdicts = 0
        for run, error_share in [(running, 0.12), *((r, 0.01) for r in finished.values())]:
            Verdict.objects.bulk_create(
                (Verdict(run=run, response_id=pk, rubric_item_id=item,
                         state="error" if rng.random() < error_share else rng.choice(
                             ["met", "not_met"]))
                 for pk, case_id, _m in by_model[run.model_id] for item in items_of[case_id]),
                batch_size=BATCH,
            )  # fmt: skip
            verdicts += run.verdicts.count()
        for model in models:
            GenerationRun.objects.create(model=model, dataset=dataset, status="finished",
                                         total=cases, done=cases, calls=cases,
                                         cost=0.5)  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {**made, "experts": experts, "verdicts": verdicts, "study_names": study_names}


class QueryLog:
    """Counts (and with ``keep``, times) the SQL a block runs, through an execute wrapper."""

    def __init__(self, keep: bool = False) -> None:
        self.count, self.keep, self.slow = 0, keep, []

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            if self.keep:
                self.slow.append(((time.perf_counter() - start) * 1000, sql[:160]))


def _timed(client, url: str, requests: int, before=None) -> tuple[float, float]:
    times = []
    for _ in range(requests):
        if before is not None:
            before()
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]


def time_standing() -> tuple[float, float]:
    """Every expert's running agreement as the next-unit claim reads it (median, p95 ms)."""
    from annotation.models import Expert
    from annotation.selectors.quality import expert_peer_agreement

    times = []
    for expert in Expert.objects.all():
        start = time.perf_counter()
        expert_peer_agreement(expert=expert)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[round(0.95 * (len(times) - 1))]


def _forget_pool(pool_id: int) -> None:
    from django.core.cache import cache

    from validation.dashboard.agreement import _submissions_state

    last, n = _submissions_state([pool_id])[pool_id]
    cache.delete_many(
        [f"dashboard:agreement:{pool_id}:{shape}:{last}:{n}" for shape in ("00", "11")]
    )


def _cprofile(client, url: str, label: str) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    client.get(url)
    profiler.disable()
    print(f"-- {label}: warm request, cumulative")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)


def time_pages(
    *, study_name: str, requests: int, profile: bool = False, cprofile: bool = False
) -> list[tuple]:
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client

    admin = get_user_model().objects.create_superuser("dash-admin", password="!")
    client = Client()
    client.force_login(admin)
    pages = [
        ("overview", "/admin/dashboard/"),
        ("study", f"/admin/dashboard/studies/{study_name}/"),
        ("runs page", "/admin/dashboard/runs/"),
        ("runs JSON", "/admin/dashboard/runs.json"),
    ]
    from validation.models import Study

    first_pool = Study.objects.get(name=study_name).pool_id
    results = []
    for label, url in pages:
        log = QueryLog(keep=profile)
        with connection.execute_wrapper(log):
            first = client.get(url)  # warm-up, and the query count
        assert first.status_code == 200, (url, first.status_code)
        if profile:
            print(f"-- {label}")
            for ms, sql in sorted(log.slow, reverse=True)[:5]:
                print(f"   {ms:8.1f} ms  {' '.join(sql.split())}")
        if cprofile:
            _cprofile(client, url, label)
        warm = _timed(client, url, requests)
        # One study's cached agreement dropped before each request, as after a submit there.
        one = _timed(client, url, requests, before=lambda: _forget_pool(first_pool))
        # Every cached agreement dropped, as after a restart.
        cold = _timed(client, url, requests, before=cache.clear)
        results.append((label, *warm, *one, *cold, log.count, len(first.content)))
    return results


def explain_agreement() -> None:
    """Print PostgreSQL's plans of the peer-agreement queries: the recorded rows' sums over
    every open study (the overview) and one study's labels by week and ability (its page)."""
    from django.db import connection

    from annotation.models import Pool
    from annotation.selectors.quality import peer_agreement_by
    from validation.dashboard import agreement

    open_pools = list(Pool.objects.filter(status="open").values_list("pk", flat=True))
    for count in (
        lambda: peer_agreement_by(pool_ids=open_pools),
        lambda: agreement._table_compute(pool_ids=open_pools[:1]),
    ):
        captured = []
        with connection.execute_wrapper(
            lambda execute, sql, params, many, context, seen=captured: (
                seen.append((sql, params)) or execute(sql, params, many, context)
            )
        ):
            count()
        for sql, params in captured:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN ANALYZE " + sql, params)
                print("\n".join(line for (line,) in cursor.fetchall()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--experts", type=int, default=50)
    parser.add_argument("--studies", type=int, default=20)
    parser.add_argument("--labels", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="print each page's slowest SQL")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE the agreement")
    parser.add_argument("--cprofile", action="store_true", help="profile one warm request")
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith("postgres"):
        print("needs PostgreSQL: run under `python -m tests.services --postgres --` or set "
              "DATABASE_URL", file=sys.stderr)  # fmt: skip
        return 2
    sys.path.insert(0, str(ROOT))
    from tests.services import scratch_database

    with scratch_database(base, prefix="heartbench_dashboard") as url:
        setup_django(url)
        start = time.perf_counter()
        made = generate(cases=args.cases, experts=args.experts, studies=args.studies,
                        labels=args.labels)  # fmt: skip
        seconds = time.perf_counter() - start
        if args.explain:
            explain_agreement()
            return 0
        results = time_pages(
            study_name=made["study_names"][0],
            requests=args.requests,
            profile=args.profile,
            cprofile=args.cprofile,
        )
        standing = time_standing()
        from django.db import connection

        server = connection.cursor().connection.info.server_version
        connection.close()
    print(f"Machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, PostgreSQL {server // 10000}."
          f"{server % 10000}; {time.strftime('%Y-%m-%d')}")  # fmt: skip
    print(f"Data: {made['experts']} experts, {made['studies']} studies, {made['units']:,} units, "
          f"{made['submissions']:,} rating submissions, {made['labels']:,} labels, "
          f"{made['assignments']:,} assignments, {made['verdicts']:,} verdicts; "
          f"generated in {seconds:.1f} s, of which {made['backfill s']} s recording "
          f"{made['peer agreement rows']:,} peer-agreement rows")  # fmt: skip
    print()
    print("| page | warm median / p95 ms | one study changed median / p95 ms | "
          "all cold median / p95 ms | SQL queries | bytes |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for label, median, p95, one_median, one_p95, cold_median, cold_p95, queries, size in results:
        print(f"| {label} | {median:.0f} / {p95:.0f} | {one_median:.0f} / {one_p95:.0f} | "
              f"{cold_median:.0f} / {cold_p95:.0f} | {queries} | {size:,} |")  # fmt: skip
    print(f"\nAn expert's running agreement (the next-unit claim's read), over the "
          f"{made['experts']} experts: median {standing[0]:.1f} ms, "
          f"p95 {standing[1]:.1f} ms")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
