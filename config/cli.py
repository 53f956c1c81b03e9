"""`heartbench SUBCOMMAND ...`: the project's management commands under one console script.

Sub-commands are written with hyphens (`import-dataset`); Django's command modules use
underscores, so the first argument is translated before Django parses it.

`heartbench --version` and `heartbench --help` answer before `django.setup()`, which imports
every app's models and admin (about half a second); the text is Django's own.
"""

import os
import sys

# Commands that never serve a page start without the admin's modules (config.apps.AdminConfig);
# they run Django's model checks only (benchmark.management.commands._llm_args.SYSTEM_CHECKS).
WITHOUT_ADMIN = {"judge", "generate", "run"}


# A reader that stops early (`heartbench export-log … | head -1`): the status a shell gives a
# process ended by SIGPIPE, 128 + 13 (README, "Exit status").
EXIT_BROKEN_PIPE = 141


def main(argv: list[str] | None = None) -> None:
    try:
        _main(argv)
    except BrokenPipeError:
        # Nobody reads the rest: end quietly, and let the exit's own flush of stdout go nowhere
        # (Python's documented way; otherwise it prints a second traceback).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(EXIT_BROKEN_PIPE)


def _main(argv: list[str] | None) -> None:
    args = list(sys.argv if argv is None else argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if args[1:2] == ["help"] and len(args) > 2:  # `heartbench help import-dataset`
        args = [args[0], args[2], "--help"]
    if len(args) > 1 and not args[1].startswith("-"):
        args[1] = args[1].replace("-", "_")
    from django.conf import settings

    from config.env import ConfigurationError

    try:
        # The embedded SQLite database lives in the data folder; create it on first use.
        settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
    except ConfigurationError as exc:
        print(f"heartbench: configuration error: {exc}", file=sys.stderr)
        sys.exit(2)
    if _answer_without_setup(args):
        return
    # The command line speaks English whatever the interface default (zh-hans) is; requests
    # served by runserver pick their own language in LocaleMiddleware, per thread.
    from django.core.management import ManagementUtility, execute_from_command_line, get_commands
    from django.utils import translation

    if args[1:2] and args[1] in WITHOUT_ADMIN:
        from config.apps import AdminConfig

        AdminConfig.discover = False
    django_setup()
    translation.activate("en")
    if args[1:2] and args[1] in get_commands() and "DJANGO_AUTO_COMPLETE" not in os.environ:
        # A command's usage line is named after argv[1]: the hyphenated name the README uses
        # (`heartbench import-dataset`), not the module's.
        command = ManagementUtility(args).fetch_command(args[1])
        command.run_from_argv([args[0], args[1].replace("_", "-"), *args[2:]])
        return
    execute_from_command_line(args)


def django_setup() -> None:
    """``django.setup()`` without the garbage collector's passes over what it builds.

    Start-up makes some 130,000 tracked objects (modules, classes, models, the admin) and
    frees almost none: the collector's passes during it find nothing, and every later full
    pass, the ones at exit included, would walk them all again (about a quarter of a second
    of CPU each way, see docs/benchmarks.md "Command-line start-up"). They are moved to the
    permanent generation (``gc.freeze()``), which is also what a forking worker wants: fewer
    pages touched after the fork.
    """
    import gc

    import django

    gc.disable()
    try:
        django.setup()
    finally:
        gc.freeze()
        gc.enable()


def urls_load() -> None:
    """Import the URLconf and every view module it names, and the cache's backend with its
    client library, out of the collector's sight as in ``django_setup``. ``heartbench serve``
    does it before it forks its workers, which then share those modules' pages; otherwise each
    worker's first request imported them (about half a second on the 2-core machine,
    docs/benchmarks.md). numpy and scipy stay out: the views that compute with them import them
    when first asked."""
    import gc

    from django.core.cache import caches
    from django.urls import get_resolver

    gc.disable()
    try:
        get_resolver().url_patterns  # noqa: B018 (the property imports the tree)
        caches.all()  # builds each backend (no connection): imports its module
    finally:
        gc.freeze()
        gc.enable()


def _answer_without_setup(args: list[str]) -> bool:
    """Print what Django prints for the bare version and help requests; False for the rest."""
    if "DJANGO_AUTO_COMPLETE" in os.environ:  # shell completion needs the full registry
        return False
    import django

    if args[1:] in (["--version"], ["version"]):
        sys.stdout.write(django.get_version() + "\n")
        return True
    if args[1:] in ([], ["help"], ["--help"], ["-h"]):
        sys.stdout.write(main_help_text(prog_name=os.path.basename(args[0])) + "\n")
        return True
    return False


def main_help_text(*, prog_name: str) -> str:
    """Django's `ManagementUtility.main_help_text()`, with the commands found from each
    installed app's configuration instead of the populated app registry (no models, no admin).
    """
    from django.apps import AppConfig
    from django.conf import settings
    from django.core import management
    from django.core.management.color import color_style

    commands = {name: "django" for name in management.find_commands(management.__path__[0])}
    # Reversed: where two apps define one command the first installed wins, as in Django.
    for entry in reversed(settings.INSTALLED_APPS):
        app_config = AppConfig.create(entry)
        path = os.path.join(app_config.path, "management")
        label = app_config.name.rpartition(".")[-1]
        commands.update({name: label for name in management.find_commands(path)})
    by_app: dict[str, list[str]] = {}
    for name, app in commands.items():
        by_app.setdefault(app, []).append(name)
    style = color_style()
    usage = [
        "",
        f"Type '{prog_name} help <subcommand>' for help on a specific subcommand.",
        "",
        "Available subcommands:",
    ]
    for app in sorted(by_app):
        usage += ["", style.NOTICE(f"[{app}]"), *(f"    {name}" for name in sorted(by_app[app]))]
    return "\n".join(usage)


if __name__ == "__main__":
    main()
