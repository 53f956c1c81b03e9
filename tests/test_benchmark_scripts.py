"""The micro-benchmarks of issue 16 run whole and print their tables (tiny counts)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(script: str, *args: str, env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if line.startswith("| ")]


def test_row_inserts_compares_both_methods_on_the_embedded_database():
    rows = run("row_inserts.py", "--calls", "3", env={"DATABASE_URL": ""})
    names = [row.split(" | ")[0].removeprefix("| ") for row in rows[1:]]
    assert names == ["labels", "gold labels", "peer agreement"]
    assert all(float(row.split(" | ")[-1].rstrip(" |")) > 0 for row in rows[1:])


def test_cache_calls_compares_both_backends(redis_url):
    rows = run("cache_calls.py", "--calls", "5", env={"REDIS_URL": redis_url})
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows[1:]] == [
        "get",
        "get, missing",
        "set",
    ]


def test_ci_time_times_a_fresh_clone_and_reads_the_closing_lines(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    # A stand-in CI: prints where it runs, and two closing lines as pytest's passes print them.
    (repo / ".ci" / "run").write_text(
        'pwd; echo "CI=$CI"; echo "==== 3 passed, 1 deselected in 1.50s ===="; '
        'echo "==== 1 failed, 2 passed in 0.20s ===="; exit 1\n'
    )
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "ci"], check=True)
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "ci_time.py"), "--repo", str(repo), "HEAD"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    head, *passes = done.stdout.splitlines()
    assert ": exit 1, wall 0:0" in head
    assert passes == ["  3 passed, 1 deselected in 1.50s", "  1 failed, 2 passed in 0.20s"]
    rev = head.split(":")[0]
    log = (ROOT / "test-artifacts" / f"ci-time-{rev}.log").read_text()
    assert f"{tmp_path}/ci-time-{rev}" in log and "CI=true" in log
    assert not (tmp_path / f"ci-time-{rev}").exists()  # the clone is removed


def test_sequential_error_prints_both_rules_for_every_design():
    rows = run(
        "sequential_error.py", "--draws", "300", "--every", "30", "--bootstrap", "3",
        env={"PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    # The header, then one row per SE (known, estimated) for the one design: 4 looks, 2.014.
    assert [row.split(" | ")[:3] for row in rows[1:]] == [
        ["| known", "every 30 (4)", "2.014"],
        ["| estimated", "every 30 (4)", "2.014"],
    ]


def test_load_experts_measures_a_pairwise_study_beside_the_rubric_one_and_checks_both():
    # The demo cases (12, original data) keep the import short; the levels last two seconds.
    demo = ROOT / "fixtures" / "demo" / "demo_questions.jsonl"
    rows = run(
        "load_experts.py", "--data", str(demo), "--experts", "3", "--seconds", "2",
        "--think", "0.2", "--warm-up", "0", "--arrival", "0", "--every", "0",
        "--kinds", "rubric,pairwise",
        env={"DATABASE_URL": ""},
    )  # fmt: skip
    cells = [row.strip("| ").split(" | ") for row in rows]
    levels = [c for c in cells if c[1] in ("rubric", "pairwise") and c[2] == "0–2 s"]
    assert [c[:2] for c in levels] == [["3", "rubric"], ["3", "pairwise"]]
    for c in levels:
        assert float(c[4]) > 0 and c[-2:] == ["0", "0"]  # submits acknowledged, no 503, no error
    # Columns: next, progress, draft, submit. A pair has no autosave: no draft requests.
    assert levels[0][7] != "—" and levels[1][7] == "—" and levels[1][8] != "—"
    checks = [c for c in cells if len(c) == 4 and c[1] in ("rubric", "pairwise")]
    assert checks == [["3", "rubric", "all hold", "—"], ["3", "pairwise", "all hold", "—"]]
    [ratio] = [c for c in cells if c[1] == "pairwise / rubric"]
    assert ratio[0] == "3" and all(float(x) > 0 for x in ratio[2:6])
