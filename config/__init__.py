"""Project configuration: settings, URLs, the Celery app, the `heartbench` command line.

The Celery app (``config.celery``) is not imported here: the modules that define tasks import
it, so a command that sends no task (`heartbench --version`, a judge run with nothing left to
judge) starts without Celery, which alone takes a fifth of a second to import.
"""
