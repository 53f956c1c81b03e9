"""Project configuration: settings, URLs, the Celery app, the `heartbench` command line.

The Celery app (``config.celery``) is not imported here: the modules that define tasks import
it, so a command that sends no task (`heartbench --version`, a judge run with nothing left to
judge) starts without Celery, which alone takes a fifth of a second to import.
"""

import os

# One BLAS thread per process. The statistics are matrix products (a report's bootstrap, the
# leaderboard's): on a shared 2-core server OpenBLAS's own threads fight the web workers and
# each other (a report's statistics took twice as long with them under load). OpenBLAS's
# threaded products also round differently from its single-threaded ones, so an interval from
# a recorded seed differed in its last digits between a one-core machine and a bigger one; now
# every machine computes the single-threaded digits. Set before numpy loads; an explicit
# setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
