"""Time rubric edits and what versioning adds to the leaderboard, on the released data.

    python benchmarks/rubric_versions.py [--released PATH] [--models 20] [--edits 200]

Runs in a child process on a fresh SQLite database (or the DATABASE_URL given): imports the
released dataset, judges it for N models with random verdicts (every verdict on version 1),
then times ``rubric_item_edit`` over distinct criteria, the leaderboard before and after the
edits, the older-version count alone, and one criterion's history with ten versions. Prints a
Markdown table for docs/benchmarks.md.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _best(fn, repeat: int = 3) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        timings.append(time.perf_counter() - started)
    return min(timings)


def measure(path: Path, models: int, edits: int) -> dict:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from import_leaderboard import _judge_randomly, _setup_django

    _setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection

    from benchmark.models import RubricItem
    from benchmark.selectors.leaderboard import _older_version_verdicts, leaderboard_compute
    from benchmark.selectors.rubric import rubric_item_history
    from benchmark.services.imports import dataset_import
    from benchmark.services.rubric import rubric_item_edit

    dataset = dataset_import(path=path).dataset
    _judge_randomly(dataset, models)
    board = leaderboard_compute(dataset=dataset)
    runs = [entry.run for entry in board.entries]
    before = _best(lambda: leaderboard_compute(dataset=dataset))

    editor = get_user_model().objects.create_user("bench-editor")
    items = list(
        RubricItem.objects.filter(case__dataset=dataset).exclude(ability="catastrophic")[:edits]
    )
    started = time.perf_counter()
    for item in items:
        rubric_item_edit(item=item, text=item.text + "（修订）", author=editor, reason="bench")
    edit_ms = (time.perf_counter() - started) / len(items) * 1000

    after = _best(lambda: leaderboard_compute(dataset=dataset))
    older = _older_version_verdicts(runs=runs)
    stale = sum(v["older_version_verdicts"] for v in older.values())
    count_s = _best(lambda: _older_version_verdicts(runs=runs))

    item = items[0]
    for n in range(8):
        # 97/98 in turn: never the imported points, so every edit changes something.
        rubric_item_edit(item=item, points=97 + n % 2, author=editor, reason=f"bench {n}")
    history_s = _best(lambda: rubric_item_history(item=item), repeat=5)
    return {
        "backend": connection.vendor,
        "criteria": dataset.criterion_count,
        "models": models,
        "verdicts": models * dataset.criterion_count,
        "edits": len(items),
        "edit_ms": edit_ms,
        "leaderboard_before_s": before,
        "leaderboard_after_s": after,
        "older_count_s": count_s,
        "stale_verdicts": stale,
        "history_versions": len(rubric_item_history(item=item)),
        "history_ms": history_s * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--released", default=str(ROOT.parent / "shared/heartbench-data/question_all.jsonl")
    )
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.released), args.models, args.edits)))
        return
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "HEARTBENCH_DATA_DIR": data}
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--released", args.released,
             "--models", str(args.models), "--edits", str(args.edits)],
            env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print("| backend | criteria | models | verdicts | edits | ms per edit | leaderboard s before "
          "| after | older-version count s | stale verdicts | history (versions) ms |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {r['backend']} | {r['criteria']:,} | {r['models']} | {r['verdicts']:,} | "
        f"{r['edits']} | {r['edit_ms']:.1f} | {r['leaderboard_before_s']:.3f} | "
        f"{r['leaderboard_after_s']:.3f} | {r['older_count_s']:.3f} | {r['stale_verdicts']:,} | "
        f"{r['history_ms']:.1f} ({r['history_versions']}) |"
    )


if __name__ == "__main__":
    main()
