"""`heartbench pay rate STUDY TIER AMOUNT CURRENCY` and
`heartbench pay export --from DATE --to DATE [--format csv] [--output FILE]`."""

import csv
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand

from annotation import services
from annotation.models import Expert, Pool
from annotation.selectors.pay import pay_earnings
from config.cli_exits import UsageError
from config.cli_types import iso_date, non_negative_amount
from config.csv_safe import csv_cell
from config.files import FileWriteError, file_write_atomically

HEADER = ["period_from", "period_to", "rater", "username", "display_name", "tier", "study",
          "currency", "units", "earned", "corrections", "total",
          # Active time on task of the paid units (idle and hidden-tab time excluded).
          "timed_units", "active_seconds"]  # fmt: skip


class Command(BaseCommand):
    help = "Pay rates and the payroll export."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        rate = sub.add_parser("rate", help="set the rate per completed unit for a tier")
        rate.add_argument("study")
        rate.add_argument("tier", choices=Expert.Tier.values)
        rate.add_argument("amount", type=non_negative_amount)
        rate.add_argument("currency")
        export = sub.add_parser("export", help="earnings per expert and study for payroll")
        export.add_argument("--from", dest="start", required=True, type=iso_date)
        export.add_argument("--to", dest="end", required=True, type=iso_date)
        export.add_argument("--format", choices=["csv"], default="csv")
        export.add_argument("--output", help="file to write (default: standard output)")

    def handle(self, *args, **options):
        if options["action"] == "rate":
            self._rate(options)
        else:
            self._export(options)

    def _rate(self, options):
        pool = Pool.objects.filter(name=options["study"]).first()
        if pool is None:
            raise UsageError(f"no study or calibration set named {options['study']!r}")
        try:
            rate = services.pay_rate_set(
                pool=pool, tier=options["tier"], amount=options["amount"],
                currency=options["currency"],
            )  # fmt: skip
        except services.AnnotationError as exc:
            raise UsageError(str(exc)) from exc
        self.stdout.write(f"{pool}: {rate.tier} earns {rate.amount} {rate.currency} per unit")

    def _export(self, options):
        start, end = options["start"], options["end"]
        if end < start:
            raise UsageError("--to is before --from")
        rows = pay_earnings(start=start, end=end)
        if options["output"]:
            target = Path(options["output"])
            try:
                file_write_atomically(path=target, write=lambda out: _write(out, rows, start, end))
            except FileWriteError as exc:
                raise UsageError(str(exc)) from exc
            self.stderr.write(f"{len(rows)} row(s) written to {target}")
        else:
            _write(self.stdout, rows, start, end)


def _write(out, rows, start: date, end: date) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for r in rows:
        values = [start.isoformat(), end.isoformat(), r.rater, r.username, r.display_name, r.tier,
                  r.study, r.currency, r.units, r.earned, r.corrections, r.total,
                  r.timed_units, r.active_seconds]  # fmt: skip
        writer.writerow([csv_cell(v) for v in values])
