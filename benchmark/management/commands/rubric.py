"""`heartbench rubric edit --dataset NAME[@VERSION] --case QID --position N [--text T]
[--points P] --reason R --author USER` and `heartbench rubric history --dataset … --case …
[--position N] [--format table|json]`."""

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from benchmark.rubric_diff import points_text
from benchmark.selectors.rubric import RubricItemNotFound, rubric_item_find, rubric_item_history
from benchmark.services.rubric import KEEP, RubricEditError, rubric_item_edit
from config.cli_exits import UsageError
from config.cli_types import non_negative_int


def _points(value: str) -> int | None:
    # "null" clears the points (the catastrophic criterion only; the service checks).
    if value.strip().lower() in ("null", "none"):
        return None
    try:
        return int(value)
    except ValueError as exc:
        raise UsageError(f"--points: {value!r} is not a whole number or null") from exc


def _target(parser, *, position_required: bool) -> None:
    parser.add_argument("--dataset", required=True, help="NAME, NAME@VERSION or NAME:vN")
    parser.add_argument("--case", required=True, help="question_id of the case")
    parser.add_argument(
        "--position",
        type=non_negative_int,
        required=position_required,
        help="criterion position (from 0)",
    )


class Command(BaseCommand):
    help = "Edit a rubric criterion as a new version, or show criteria's version history."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        edit = sub.add_parser("edit", help="change a criterion's text and/or points")
        _target(edit, position_required=True)
        edit.add_argument("--text", help="the new text")
        edit.add_argument("--points", help="the new points (an integer, or null)")
        edit.add_argument("--reason", required=True, help="why (kept in the history)")
        edit.add_argument("--author", required=True, help="username of the editor")
        history = sub.add_parser("history", help="versions with author, date, reason and diff")
        _target(history, position_required=False)
        history.add_argument("--format", choices=["table", "json"], default="table")

    def handle(self, *args, **options):
        if options["action"] == "edit":
            self._edit(options)
        else:
            self._history(options)

    def _find(self, options, position: int):
        try:
            return rubric_item_find(
                dataset=options["dataset"], question_id=options["case"], position=position
            )
        except RubricItemNotFound as exc:
            raise UsageError(str(exc)) from exc

    def _edit(self, options):
        user = get_user_model().objects.filter(username=options["author"]).first()
        if user is None:
            raise UsageError(f"no user named {options['author']!r}")
        if options["text"] is None and options["points"] is None:
            raise UsageError("give --text and/or --points")
        item = self._find(options, options["position"])
        points = KEEP if options["points"] is None else _points(options["points"])
        try:
            version = rubric_item_edit(
                item=item, text=options["text"], points=points, author=user,
                reason=options["reason"],
            )  # fmt: skip
        except RubricEditError as exc:
            raise UsageError(str(exc)) from exc
        self.stdout.write(
            f"{item.case.question_id}#{item.position} is now version {version.number} "
            f"(points {points_text(version.points)})"
        )

    def _history(self, options):
        if options["position"] is None:
            first = self._find(options, 0)
            items = list(first.case.rubric.order_by("position"))
        else:
            items = [self._find(options, options["position"])]
        histories = [(item, rubric_item_history(item=item)) for item in items]
        if options["format"] == "json":
            self.stdout.write(json.dumps(_as_json(histories), ensure_ascii=False, indent=2))
            return
        for item, versions in histories:
            self.stdout.write(
                f"{item.case.question_id}#{item.position} {item.ability} "
                f"(current version {item.version})"
            )
            for v in versions:
                when = v.created_at.strftime("%Y-%m-%d %H:%M") if v.created_at else "import"
                who = v.author or "-"
                self.stdout.write(
                    f"  v{v.number}  {when}  {who}  points {points_text(v.points)}  "
                    f"reason: {v.reason}"
                )
                if v.disagreement:
                    self.stdout.write(
                        f"      prompted by a disagreement: study {v.disagreement['study']}, "
                        f"unit {v.disagreement['unit']}"
                    )
                if v.diff is None:
                    self.stdout.write(f"      {v.text}")
                    continue
                if v.diff.text_changed:
                    self.stdout.write(f"      {v.diff.inline()}")
                if v.diff.points_changed:
                    self.stdout.write(
                        f"      points {points_text(v.diff.points_before)} → "
                        f"{points_text(v.diff.points_after)}"
                    )


def _as_json(histories) -> list[dict]:
    return [
        {
            "case": item.case.question_id,
            "position": item.position,
            "ability": item.ability,
            "version": item.version,
            "versions": [
                {
                    "number": v.number,
                    "text": v.text,
                    "points": v.points,
                    "author": v.author,
                    "reason": v.reason,
                    "disagreement": v.disagreement,
                    "created_at": v.created_at.isoformat() if v.created_at else None,
                    "diff": v.diff.as_dict() if v.diff else None,
                }
                for v in versions
            ],
        }
        for item, versions in histories
    ]
