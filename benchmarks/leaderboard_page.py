"""Time the leaderboard page (/leaderboard/) on the released data size: 296 cases × 20 models.

    python benchmarks/leaderboard_page.py [--released PATH] [--models 20] [--study-models 4]

Runs in a child process on a fresh embedded SQLite database (or the DATABASE_URL given):
imports the released dataset, gives every model random verdicts from one judge (as
import_leaderboard.py does), runs a closed agreement study on a 30 % sample for the first
``--study-models`` models (three experts rate every unit through the real services, with
deterministic labels), then times, best of five:

- the leaderboard selector alone (scores, split scores, joint bootstrap),
- the judge's badge alone (the study gathered and its agreement bootstrapped),
- the whole page as an expert gets it (Django test client, template rendered), with an empty
  cache and with the board and badge kept from the previous request (their keys fingerprint
  the runs, verdicts, criteria and gold they were computed from).

Prints a Markdown table for docs/benchmarks.md.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _best(fn, repeat: int = 5) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        timings.append(time.perf_counter() - started)
    return min(timings)


def _closed_study(dataset, models: int):
    """A closed study whose three experts mostly agree with the truth the verdicts were drawn
    around; labels are a fixed function of the criterion so the run is reproducible."""
    from annotation import selectors as annotation_selectors
    from annotation import services as annotation_services
    from benchmark.models import JudgeRun, RubricItem
    from validation import services

    runs = list(JudgeRun.objects.filter(dataset=dataset).order_by("model__name")[:models])
    experts = [
        annotation_services.expert_create(
            username=f"bench-expert-{i}", password="bench-pw-1", daily_capacity=100_000
        )
        for i in range(3)
    ]
    study = services.study_create(name="bench-study", dataset=dataset,
                                  models=[r.model for r in runs], judge_runs=runs,
                                  fraction=0.3, seed=7, experts=experts)  # fmt: skip
    services.study_open(study=study)
    rng = random.Random(5)
    for expert in experts:
        while True:
            assignment = annotation_services.assignment_claim_next(user=expert.user,
                                                                   pool=study.pool)  # fmt: skip
            if assignment is None:
                break
            tokens = annotation_selectors.criterion_tokens(assignment=assignment)
            items = RubricItem.objects.in_bulk(tokens.values())
            labels = [{"criterion": t, "hit": (items[pk].points or 0) > 0 and rng.random() < 0.8}
                      for t, pk in tokens.items()]  # fmt: skip
            annotation_services.assignment_submit(assignment=assignment, labels=labels)
    services.study_close(study=study)
    study.refresh_from_db()
    return study


def measure(path: Path, models: int, study_models: int) -> dict:
    """Runs inside the child process."""
    from benchmarks.import_leaderboard import _judge_randomly, _setup_django

    _setup_django()
    from django.test import Client

    from annotation import services as annotation_services
    from benchmark.selectors.leaderboard import leaderboard_compute
    from benchmark.services.imports import dataset_import
    from validation.selectors.badge import judge_badge_get

    dataset = dataset_import(path=path).dataset
    _judge_randomly(dataset, models)
    started = time.perf_counter()
    _closed_study(dataset, study_models)
    study_seconds = time.perf_counter() - started
    badge = judge_badge_get(dataset=dataset, judge="bench-judge")
    assert badge is not None and badge.agreement["n"] > 0

    viewer = annotation_services.expert_create(username="bench-viewer", password="bench-pw-1")
    client = Client()
    client.force_login(viewer.user)
    url = f"/leaderboard/?dataset={dataset.name}:v{dataset.version}"

    from django.core.cache import cache

    def cold_page() -> None:
        cache.clear()
        page()

    def page() -> None:
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        assert b'class="badge badge-shown' in response.content  # the badge was computed

    return {
        "cases": dataset.case_count,
        "models": models,
        "study_units": badge.units,
        "study_items": badge.agreement["n"],
        "study_build_s": study_seconds,
        "selector_s": _best(lambda: leaderboard_compute(dataset=dataset)),
        "badge_s": _best(lambda: judge_badge_get(dataset=dataset, judge="bench-judge")),
        "page_cold_s": _best(cold_page),
        "page_warm_s": _best(page),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--released", default=str(ROOT.parent / "shared/heartbench-data/question_all.jsonl")
    )
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--study-models", type=int, default=4)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.released), args.models, args.study_models)))
        return
    with tempfile.TemporaryDirectory() as data:
        env = {
            **os.environ,
            "HEARTBENCH_DATA_DIR": data,
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--released", args.released,
             "--models", str(args.models), "--study-models", str(args.study_models)],
            env=env, check=True, capture_output=True, text=True, cwd=ROOT,
        )  # fmt: skip
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        "| cases × models | study units (criteria) | selector s | badge s | page, cold cache s "
        "| page, warm cache s |"
    )
    print("|---|---|---|---|---|---|")
    print(
        f"| {r['cases']} × {r['models']} | {r['study_units']} ({r['study_items']:,}) | "
        f"{r['selector_s']:.3f} | {r['badge_s']:.3f} | {r['page_cold_s']:.3f} | "
        f"{r['page_warm_s']:.3f} |"
    )
    print(f"(building the closed study through the services took {r['study_build_s']:.1f} s)")


if __name__ == "__main__":
    main()
