"""Time `heartbench` start-up: whole processes, median of ``--repeat`` runs.

    .venv/bin/python benchmarks/cli_startup.py                       # this tree
    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/cli_startup.py --before /tmp/before  # both, interleaved
    git worktree remove /tmp/before

Issue 16 asks for a command line that starts at once: `heartbench --version` and `--help` in
0.5 s, and a judge re-run with nothing left to judge in 1 s. Measured: `--version`, `--help`,
`leaderboard --help`, and that no-op judge re-run. For the re-run each tree gets a throw-away
embedded SQLite data folder (``HEARTBENCH_DATA_DIR`` in a temporary folder): `migrate`,
`load-demo`, one real judge run of the demo model `demo-warm-counsellor` by a judge
`startup-judge` against `heartbench fake-llm` (the demo's own judge `demo-judge` holds imported
verdicts with no prompt template, so it cannot be re-run), then the fake endpoint is stopped
and the measured command repeats the run, which must answer "nothing sent".

Every process runs the venv's `heartbench` console script with ``PYTHONPATH`` set to the tree
measured (checked: `config` must come from that tree), so one venv measures two checkouts.
With ``--before``, the trees alternate within each repetition, so both see the same load; the
table gives each median, the ratio, and whether the command imported numpy or scipy (one more
run with ``PYTHONPROFILEIMPORTTIME=1``).
"""

import argparse
import contextlib
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEARTBENCH = Path(sys.executable).with_name("heartbench")
MODEL = "demo-warm-counsellor"
JUDGE = "startup-judge"
JUDGE_AGAIN = ["judge", "--model", MODEL, "--judge", JUDGE, "--no-progress"]
COMMANDS = {
    "heartbench --version": ["--version"],
    "heartbench --help": ["--help"],
    "heartbench leaderboard --help": ["leaderboard", "--help"],
    "heartbench judge (nothing to judge)": JUDGE_AGAIN,
}
HEAVY = ("numpy", "scipy")


def environment(tree: Path, data_dir: Path) -> dict[str, str]:
    """A clean environment: embedded SQLite, tasks in process, the tree's code first."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "CELERY_", "HEARTBENCH_", "PYTHON")) and k != "DATABASE_URL"
    }
    return env | {"PYTHONPATH": str(tree), "HEARTBENCH_DATA_DIR": str(data_dir)}


def heartbench(args: list[str], env: dict[str, str], tree: Path, **kwargs):
    return subprocess.run(
        [str(HEARTBENCH), *args], cwd=tree, env=env, capture_output=True, text=True, **kwargs
    )


def check_tree(tree: Path, env: dict[str, str]) -> None:
    code = "import config, pathlib; print(pathlib.Path(config.__file__).resolve().parent)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True,
                         text=True, check=True).stdout.strip()  # fmt: skip
    if Path(out) != (tree / "config").resolve():
        sys.exit(f"{tree}: `config` is imported from {out}, not from the tree")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"fake-llm exited: {proc.stderr.read() if proc.stderr else ''}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.1)
    sys.exit(f"fake-llm did not listen on port {port}")


def prepare(tree: Path, data_dir: Path) -> dict[str, str]:
    """Migrate, load the demo and judge the demo model once, so a re-run has nothing to do."""
    env = environment(tree, data_dir)
    check_tree(tree, env)
    for args in (["migrate", "-v", "0"], ["load-demo"]):
        done = heartbench(args, env, tree)
        if done.returncode:
            sys.exit(f"{tree}: heartbench {' '.join(args)} failed:\n{done.stderr}")
    port = free_port()
    fake = subprocess.Popen([str(HEARTBENCH), "fake-llm", "--port", str(port)], cwd=tree,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        wait_for_port(port, fake)
        done = heartbench([*JUDGE_AGAIN, "--base-url", f"http://127.0.0.1:{port}/v1"], env, tree)
        if done.returncode:
            sys.exit(f"{tree}: the first judge run failed:\n{done.stdout}{done.stderr}")
    finally:
        fake.terminate()
        fake.wait(timeout=30)
    return env


def timed(args: list[str], env: dict[str, str], tree: Path) -> float:
    start = time.perf_counter()
    done = heartbench(args, env, tree)
    elapsed = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"heartbench {' '.join(args)} failed in {tree}:\n{done.stderr}")
    if args == JUDGE_AGAIN and "nothing sent" not in done.stdout:
        sys.exit(f"the judge re-run was not a no-op in {tree}:\n{done.stdout}")
    return elapsed


def heavy_imports(args: list[str], env: dict[str, str], tree: Path) -> str:
    done = heartbench(args, env | {"PYTHONPROFILEIMPORTTIME": "1"}, tree)
    names = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    return ", ".join(name for name in HEAVY if name in names) or "neither"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout to measure alongside")
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    trees = {"after": ROOT} if options.before is None else {"before": options.before, "after": ROOT}
    scratch = Path(tempfile.mkdtemp(prefix="cli-startup-"))
    try:
        envs = {label: prepare(tree.resolve(), scratch / label) for label, tree in trees.items()}
        for label, tree in trees.items():  # warm-up: byte-compiled files, disk cache
            for args in COMMANDS.values():
                timed(args, envs[label], tree)
        load_before = os.getloadavg()
        times = {(label, name): [] for label in trees for name in COMMANDS}
        for _ in range(options.repeat):
            for label, tree in trees.items():
                for name, args in COMMANDS.items():
                    times[label, name].append(timed(args, envs[label], tree))
        load_after = os.getloadavg()
        heavy = {
            (label, name): heavy_imports(args, envs[label], tree)
            for label, tree in trees.items()
            for name, args in COMMANDS.items()
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"{date.today()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}; "
          f"median of {options.repeat} whole processes; load average (1 min) "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after")  # fmt: skip
    for label, tree in trees.items():
        print(f"{label}: {tree}")
    print()
    labels = list(trees)
    header = [f"{label} s, median [min–max]" for label in labels]
    if len(labels) == 2:
        header.append("before / after")
    header += [f"numpy/scipy loaded ({label})" for label in labels]
    print("| command | " + " | ".join(header) + " |")
    print("|---" * (len(header) + 1) + "|")
    for name in COMMANDS:
        medians = [statistics.median(times[label, name]) for label in labels]
        cells = [
            f"{m:.2f} [{min(times[label, name]):.2f}–{max(times[label, name]):.2f}]"
            for label, m in zip(labels, medians, strict=True)
        ]
        if len(labels) == 2:
            cells.append(f"{medians[0] / medians[1]:.1f}×")
        cells += [heavy[label, name] for label in labels]
        print(f"| `{name}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
