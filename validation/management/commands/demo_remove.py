"""`heartbench demo-remove`: delete the demo data and the demo logins before real work.

What `make run` loaded (`load-demo`, `demo-study`) goes: the demo dataset, models, judge runs,
the demo study with its ratings, the demo FAQ, and the demo experts. A demo login that took
part in real work is deactivated instead (named in the output), so no real row is deleted.
The demo admin stays (it may be the only admin): change its password.
"""

from django.core.management.base import BaseCommand

from benchmark.services.demo import DEMO_ADMIN
from validation.demo import demo_logins_open, demo_remove


class Command(BaseCommand):
    help = "Delete the demo data and demo logins (run it before a real study)."

    def handle(self, *args, **options):
        removal = demo_remove()
        if not removal.total and not removal.kept:
            self.stdout.write("nothing to remove: no demo data or demo login is left\n")
        else:
            self.stdout.write(f"removed {removal.total} demo rows:\n")
            for label, count in removal.deleted.items():
                self.stdout.write(f"  {label:32} {count}\n")
        for username in removal.kept:
            self.stdout.write(
                f"kept {username}, deactivated with no password: it took part in real work\n"
            )
        if DEMO_ADMIN[0] in demo_logins_open():
            self.stdout.write(
                f"the demo admin {DEMO_ADMIN[0]!r} still has its public password: "
                f"heartbench changepassword {DEMO_ADMIN[0]}\n"
            )
