"""`heartbench SUBCOMMAND ...`: the project's management commands under one console script.

Sub-commands are written with hyphens (`import-dataset`); Django's command modules use
underscores, so the first argument is translated before Django parses it.
"""

import os
import sys


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv if argv is None else argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if len(args) > 1 and not args[1].startswith("-"):
        args[1] = args[1].replace("-", "_")
    from django.conf import settings
    from django.core.management import execute_from_command_line

    from config.env import ConfigurationError

    try:
        # The embedded SQLite database lives in the data folder; create it on first use.
        settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
    except ConfigurationError as exc:
        print(f"heartbench: configuration error: {exc}", file=sys.stderr)
        sys.exit(2)
    # The command line speaks English whatever the interface default (zh-hans) is; requests
    # served by runserver pick their own language in LocaleMiddleware, per thread.
    import django
    from django.utils import translation

    django.setup()
    translation.activate("en")
    execute_from_command_line(args)


if __name__ == "__main__":
    main()
