"""Every numeric (and date, amount) option of every `heartbench` command is checked while the
command line is parsed: one line naming the option, exit status 2, no traceback, nothing
written. The types live in one module, config.cli_types."""

import argparse
import os
import subprocess
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from config import cli_types

ROOT = Path(__file__).resolve().parents[1]

STUDY = ["study", "create", "s", "--dataset", "d", "--models", "m"]
CALIBRATION = ["calibration", "create", "c", "--dataset", "d", "--senior", "s", "--references", "f"]
REQUIRE = ["calibration", "require", "s", "--none"]
EXPERT = ["expert", "add", "alice", "--password-stdin"]
EDIT = ["rubric", "edit", "--dataset", "d", "--case", "c", "--reason", "r", "--author", "a"]
HISTORY = ["rubric", "history", "--dataset", "d", "--case", "c"]
AGREEMENT = ["agreement", "--ratings", "r.csv"]

BAD_OPTIONS = [
    ([*STUDY, "--lease-minutes", "-5"], "--lease-minutes: -5 is not a positive whole number"),
    ([*STUDY, "--lease-minutes", "0"], "--lease-minutes: 0 is not a positive whole number"),
    ([*STUDY, "--lease-minutes", "ten"], "--lease-minutes: 'ten' is not a whole number"),
    ([*STUDY, "--fraction", "0"], "--fraction: 0 is not above 0 and at most 1"),
    ([*STUDY, "--fraction", "1.5"], "--fraction: 1.5 is not above 0"),
    ([*STUDY, "--fraction", "nan"], "--fraction: 'nan' is not a finite number"),
    ([*STUDY, "--seed", "-1"], "--seed: -1 is negative"),
    ([*CALIBRATION, "--threshold", "1.5"], "--threshold: 1.5 is not between 0 and 1"),
    ([*REQUIRE, "--min-quality", "-0.1"], "--min-quality: -0.1 is not between 0 and 1"),
    ([*REQUIRE, "--hard-min-quality", "2"], "--hard-min-quality: 2 is not between 0 and 1"),
    (["pay", "rate", "s", "expert", "-5", "CNY"], "amount: -5 is not an amount ≥ 0"),
    (["pay", "rate", "s", "expert", "NaN", "CNY"], "amount: NaN is not an amount ≥ 0"),
    (["pay", "rate", "s", "expert", "ten", "CNY"], "amount: 'ten' is not an amount"),
    (["pay", "export", "--from", "2025-13-01", "--to", "2025-12-31"], "--from: '2025-13-01'"),
    ([*EXPERT, "--daily-capacity", "0"], "--daily-capacity: 0 is not a positive whole number"),
    ([*EDIT, "--position", "-1", "--text", "t"], "--position: -1 is negative"),
    ([*HISTORY, "--position", "x"], "--position: 'x' is not a whole number"),
    (["judge", "--model", "m", "--concurrency", "0"], "--concurrency: 0 is not a positive"),
    (["judge", "--model", "m", "--rpm", "-1"], "--rpm: -1 is not a positive number"),
    (["judge", "--model", "m", "--timeout", "inf"], "--timeout: 'inf' is not a finite number"),
    (["judge", "--model", "m", "--max-cost", "0"], "--max-cost: 0 is not a positive number"),
    (["judge", "--model", "m", "--price-in", "-1"], "--price-in: -1 is negative"),
    (["generate", "--model", "m", "--price-out", "-2"], "--price-out: -2 is negative"),
    (["generate", "--model", "m", "--max-attempts", "0"], "--max-attempts: 0 is not a positive"),
    (["run", "--max_workers", "0"], "--max_workers: 0 is not a positive whole number"),
    (["run", "--max_retries", "-1"], "--max_retries: -1 is negative"),
    (["leaderboard", "--min-coverage", "1.5"], "--min-coverage: 1.5 is not between 0 and 1"),
    (["serve", "--port", "70000"], "--port: 70000 is not a port"),
    (["serve", "--workers", "0"], "--workers: 0 is not a positive whole number"),
    (["serve", "--threads", "-2"], "--threads: -2 is not a positive whole number"),
    ([*AGREEMENT, "--resamples", "50"], "--resamples: 50 is below the minimum of 100"),
    ([*AGREEMENT, "--seed", "-3"], "--seed: -3 is negative"),
    ([*AGREEMENT, "--categories", "hit,,miss"], "--categories: 'hit,,miss' has an empty name"),
    ([*AGREEMENT, "--categories", "hit,hit"], "--categories: 'hit,hit' names hit twice"),
    (["fake_llm", "--port", "70000"], "--port: 70000 is not a port (0 to 65535)"),
    (["fake_llm", "--latency", "-1"], "--latency: -1 is negative"),
    (["fake_llm", "--fault-rate", "2"], "--fault-rate: 2 is not between 0 and 1"),
    (["fake_llm", "--seed", "-1"], "--seed: -1 is negative"),
    (
        ["construct_tasks", "--project", "p", "--kind", "panel", "--panel-size", "0"],
        "--panel-size: 0 is not a positive whole number",
    ),
    (
        ["construct_tasks", "--project", "p", "--kind", "review", "--raters", "two"],
        "--raters: 'two' is not a whole number",
    ),
    (["worker", "--concurrency", "0"], "--concurrency: 0 is not a positive whole number"),
    (["demo_study", "--fraction", "0"], "--fraction: 0 is not above 0"),
    (["demo_study", "--seed", "-1"], "--seed: -1 is negative"),
]


@pytest.mark.parametrize(
    ("argv", "message"), BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS]
)
def test_a_bad_option_is_refused_while_parsing(argv, message):
    # No database: the command line is refused before any command code runs.
    with pytest.raises(CommandError) as error:
        call_command(*argv)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def _console(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["HEARTBENCH_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-c", "from config.cli import main; main()", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["study", "create", "s", "--dataset", "d", "--models", "m", "--lease-minutes", "-5"],
            "argument --lease-minutes: -5 is not a positive whole number",
        ),
        (
            ["pay", "export", "--from", "2025-13-01", "--to", "2025-12-31"],
            "argument --from: '2025-13-01' is not a date (YYYY-MM-DD)",
        ),
    ],
)
def test_the_console_script_prints_one_error_line_and_exits_2(tmp_path, argv, message):
    process = _console(*argv, data_dir=tmp_path)
    assert process.returncode == 2
    assert "Traceback" not in process.stderr
    assert process.stderr.strip().splitlines()[-1].endswith(message)
    assert process.stdout == ""
    assert [p.name for p in tmp_path.iterdir()] == []  # no database file was even created


def test_the_types_accept_good_values():
    assert cli_types.positive_int("3") == 3
    assert cli_types.non_negative_int("0") == 0
    assert cli_types.int_at_least(100)("100") == 100
    assert cli_types.port_number("0") == 0
    assert cli_types.positive_float("0.5") == 0.5
    assert cli_types.non_negative_float("0") == 0.0
    assert cli_types.fraction_0_1("1") == 1.0 and cli_types.fraction_0_1("0") == 0.0
    assert cli_types.positive_fraction("1") == 1.0
    assert cli_types.non_negative_amount("12.50") == Decimal("12.50")
    assert cli_types.iso_date("2025-01-31") == date(2025, 1, 31)
    assert cli_types.comma_list(" hit , miss ") == ["hit", "miss"]
    with pytest.raises(argparse.ArgumentTypeError):
        cli_types.positive_float("-inf")


def _format_choices(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if "--format" in action.option_strings:
            yield parser.prog, tuple(action.choices or ())
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _format_choices(sub)


def test_every_command_spells_its_table_output_format_table():
    from django.core.management import get_commands, load_command_class

    ours = {"annotation", "benchmark", "validation", "frontend"}
    formats = [
        choice
        for name, app in get_commands().items()
        if app in ours
        for _prog, choices in _format_choices(
            load_command_class(app, name).create_parser("heartbench", name)
        )
        for choice in choices
    ]
    assert "table" in formats and "json" in formats  # the walk found the commands' formats
    assert not {"text", "tabular", "plain", "human"} & set(formats)


def _heartbench(*args: str, data_dir: Path) -> subprocess.CompletedProcess:
    """The installed console script itself: its usage lines are named after it."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["HEARTBENCH_DATA_DIR"] = str(data_dir)
    script = Path(sys.executable).with_name("heartbench")
    return subprocess.run(
        [str(script), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "argv",
    [["import-dataset", "--help"], ["import_dataset", "--help"], ["help", "import-dataset"]],
)
def test_usage_lines_name_commands_as_the_readme_does(tmp_path, argv):
    process = _heartbench(*argv, data_dir=tmp_path)
    assert process.returncode == 0, process.stderr
    assert process.stdout.startswith("usage: heartbench import-dataset [-h]")


def test_a_usage_error_names_the_command_as_typed_in_the_readme(tmp_path):
    process = _heartbench("import-dataset", data_dir=tmp_path)
    assert process.returncode == 2
    assert "heartbench import-dataset: error: the following arguments are required: path" in (
        process.stderr
    )
