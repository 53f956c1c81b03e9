"""Every `heartbench` command's help, sub-commands included, speaks to its user: no issue
numbers or other notes from the project's own history."""

import argparse
import re

from django.core.management import get_commands, load_command_class

OURS = ("benchmark", "annotation", "validation", "frontend", "webhooks", "config")
HISTORY = re.compile(r"\bissues? \d+", re.IGNORECASE)


def _helps(parser: argparse.ArgumentParser):
    yield parser.prog, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _helps(sub)


def test_no_help_names_an_issue():
    found = []
    commands = {name: app for name, app in get_commands().items() if app in OURS}
    assert "study" in commands and "judge" in commands
    for name, app in sorted(commands.items()):
        parser = load_command_class(app, name).create_parser("heartbench", name)
        found += [
            (prog, m.group(0)) for prog, text in _helps(parser) for m in HISTORY.finditer(text)
        ]
    assert found == []
