"""The staff import page: a dataset, a model's answers or a judge's verdicts by upload.

Each form is a command's options (`import-dataset`, `import-answers`, `import-verdicts`) and
each upload goes to the same importer service the command calls, with the admin as the audit
row's actor. The importers validate and refuse (all or nothing, one transaction); this view
only saves the upload under its own name, passes it on and tells what came back.
"""

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from benchmark.importing import DIFFICULTIES, ImportFailure
from benchmark.selectors.datasets import DatasetNotFound
from benchmark.selectors.import_choices import ImportChoices, import_choices
from benchmark.services.imports import (
    DEFAULT_JUDGE,
    answers_import,
    dataset_import,
    verdicts_import,
)
from frontend.views.staff import staff_context

KINDS = ("dataset", "answers", "verdicts")
# A dataset's warnings are all kept on it; the page lists the first ones and counts the rest.
WARNINGS_SHOWN = 20
NAME_LENGTH = 200  # Dataset.name, ModelUnderTest.name and Judge.name

WARNING_KINDS = {
    "no_catastrophic": gettext_lazy("no catastrophic criterion"),
    "irregular_catastrophic": gettext_lazy("irregular catastrophic criteria"),
    "empty_primary_scene": gettext_lazy("empty primary scene"),
    "difficulty_assumed": gettext_lazy("difficulty taken from the file name"),
}
DIFFICULTY_LABELS = {"normal": gettext_lazy("normal"), "hard": gettext_lazy("hard")}


class _ImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("File (JSON Lines)"),
        allow_empty_file=True,  # the importer says what an empty file lacks
        error_messages={"required": gettext_lazy("Choose a file to import.")},
    )

    def clean_file(self) -> UploadedFile:
        upload = self.cleaned_data["file"]
        limit = settings.HEARTBENCH_MAX_IMPORT_BYTES
        if upload.size > limit:
            # The importers' own limit, told before the file is copied again to be read.
            raise forms.ValidationError(
                _("The file is %(size)s, over the import limit of %(limit)s.")
                % {"size": filesizeformat(upload.size), "limit": filesizeformat(limit)}
            )
        return upload


class DatasetForm(_ImportForm):
    name = forms.CharField(
        label=gettext_lazy("Dataset name"),
        max_length=NAME_LENGTH,
        required=False,
        help_text=gettext_lazy(
            "Default: the file's name without its suffix (question_all). The same name with "
            "changed content becomes its next version."
        ),
    )
    source = forms.CharField(
        label=gettext_lazy("Source"),
        max_length=500,
        required=False,
        help_text=gettext_lazy("Where the data came from. Default: the file's name."),
    )
    licence = forms.CharField(
        label=gettext_lazy("Licence note"),
        max_length=500,
        required=False,
        help_text=gettext_lazy("Shown with the dataset."),
    )
    difficulty = forms.ChoiceField(
        label=gettext_lazy("Difficulty of lines without one"),
        required=False,
        choices=[("", gettext_lazy("from the file's name (question_hard.jsonl: hard)"))]
        + [(level, DIFFICULTY_LABELS[level]) for level in DIFFICULTIES],
    )
    demo = forms.BooleanField(label=gettext_lazy("Demo data"), required=False)
    allow_copy = forms.BooleanField(
        label=gettext_lazy("Allow a copy"),
        required=False,
        help_text=gettext_lazy(
            "Import content already imported under another name as a second dataset."
        ),
    )


class _AttachedForm(_ImportForm):
    model = forms.CharField(
        label=gettext_lazy("Model"),
        max_length=NAME_LENGTH,
        help_text=gettext_lazy("The model's name; a new name creates the model."),
    )
    dataset = forms.ChoiceField(label=gettext_lazy("Dataset"))

    def __init__(self, *args, choices: ImportChoices, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dataset"].choices = [
            (
                d.key,
                _("%(dataset)s: %(cases)s cases") % {"dataset": d.label, "cases": f"{d.cases:,}"},
            )
            for d in choices.datasets
        ]
        self.fields["dataset"].initial = choices.default_dataset
        self.fields["model"].widget.attrs.update(list="known-models", autocomplete="off")
        if "judge" in self.fields:
            self.fields["judge"].widget.attrs.update(list="known-judges", autocomplete="off")


class AnswersForm(_AttachedForm):
    pass


class VerdictsForm(_AttachedForm):
    judge = forms.CharField(
        label=gettext_lazy("Judge"),
        max_length=NAME_LENGTH,
        initial=DEFAULT_JUDGE,
        help_text=gettext_lazy("The judge's name; a new name creates the judge."),
    )
    lenient = forms.BooleanField(
        label=gettext_lazy("Lenient"),
        required=False,
        help_text=gettext_lazy(
            "Pad short verdict lists with 0 and cut long ones, as the upstream scorer does."
        ),
    )

    field_order = ["file", "model", "judge", "dataset", "lenient"]


FORMS = {"dataset": DatasetForm, "answers": AnswersForm, "verdicts": VerdictsForm}


@dataclass
class Outcome:
    """What the page says after an upload: imported (with warnings), or refused and why."""

    kind: str
    file_name: str
    ok: bool
    lines: list[str] = field(default_factory=list)
    # A refusal: the line it names (None: the file as a whole) and the importer's reason.
    line: int | None = None
    reason: str = ""
    # The importers' reasons are English (the commands print them); ours follow the page.
    reason_lang: str = ""
    warnings: list[dict] = field(default_factory=list)
    warning_count: int = 0
    notes: list[str] = field(default_factory=list)
    # A form that did not validate: (field label, message), also shown beside each field.
    form_errors: list[tuple[str, str]] = field(default_factory=list)

    @property
    def warnings_more(self) -> int:
        return self.warning_count - len(self.warnings)


def _file_name(name: str) -> str:
    """The upload's own name, safe as one file in a folder: the importers name a dataset and
    its source after it and take its difficulty from it (question_hard.jsonl)."""
    base = "".join(c for c in Path(name.replace("\\", "/")).name if c.isprintable())
    if base in ("", ".", ".."):
        return "upload.jsonl"
    # A file system allows 255 bytes; keep the suffix the difficulty is read beside.
    while len(base.encode()) > 200:
        stem, dot, suffix = base.rpartition(".")
        base = f"{stem[:-1]}{dot}{suffix}" if dot and stem else base[:-1]
    return base


@contextmanager
def _saved(upload: UploadedFile) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="heartbench-upload-") as folder:
        path = Path(folder) / _file_name(upload.name or "")
        with path.open("wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        yield path


def _dataset_outcome(result, file_name: str) -> Outcome:
    dataset, scan = result.dataset, result.scan
    shown = Outcome(kind="dataset", file_name=file_name, ok=True)
    if result.created:
        split = _(", ").join(
            f"{n:,} {DIFFICULTY_LABELS.get(level, level)}"
            for level, n in scan.difficulty_counts.items()
            if n
        )
        shown.lines.append(
            _("Imported %(dataset)s: %(cases)s cases (%(split)s), %(criteria)s criteria.")
            % {
                "dataset": dataset,
                "cases": f"{scan.case_count:,}",
                "split": split,
                "criteria": f"{scan.criterion_count:,}",
            }
        )
    else:
        shown.lines.append(
            _("Already imported as %(dataset)s; nothing changed.") % {"dataset": dataset}
        )
    shown.warning_count = len(scan.warnings)
    shown.warnings = [
        {**w.as_dict(), "label": WARNING_KINDS.get(w.kind, w.kind)}
        for w in scan.warnings[:WARNINGS_SHOWN]
    ]
    return shown


def _answers_outcome(result, file_name: str) -> Outcome:
    shown = Outcome(kind="answers", file_name=file_name, ok=True)
    shown.lines.append(
        _(
            "%(model)s on %(dataset)s: %(created)s answers imported, %(unchanged)s already "
            "there, %(missing)s missing (failed generation) of %(rows)s rows."
        )
        % {
            "model": result.model,
            "dataset": result.dataset,
            "created": f"{result.created:,}",
            "unchanged": f"{result.unchanged:,}",
            "missing": f"{result.missing:,}",
            "rows": f"{result.rows:,}",
        }
    )
    return shown


def _verdicts_outcome(result, file_name: str) -> Outcome:
    shown = Outcome(kind="verdicts", file_name=file_name, ok=True)
    if not result.created:
        shown.lines.append(
            _("Already imported as judge run %(run)s; nothing changed.") % {"run": result.run.pk}
        )
        return shown
    stats = result.stats
    shown.lines.append(
        _(
            "Judge run %(run)s: %(judge)s on %(model)s (%(dataset)s): %(scored)s cases scored, "
            "%(errors)s judge errors, %(unanswered)s unanswered, %(verdicts)s verdicts."
        )
        % {
            "run": result.run.pk,
            "judge": result.judge,
            "model": result.model,
            "dataset": result.dataset,
            "scored": f"{stats['scored_cases']:,}",
            "errors": f"{stats['error_cases']:,}",
            "unanswered": f"{stats['unanswered']:,}",
            "verdicts": f"{stats['verdicts']:,}",
        }
    )
    if stats["refitted"]:
        shown.notes.append(
            ngettext(
                "Lenient: %(n)s verdict list was padded or cut.",
                "Lenient: %(n)s verdict lists were padded or cut.",
                stats["refitted"],
            )
            % {"n": f"{stats['refitted']:,}"}
        )
    if stats["responses_created"]:
        shown.notes.append(
            ngettext(
                "%(n)s answer was taken from the file.",
                "%(n)s answers were taken from the file.",
                stats["responses_created"],
            )
            % {"n": f"{stats['responses_created']:,}"}
        )
    return shown


def _run_import(kind: str, form: forms.Form, path: Path, actor) -> Outcome:
    data = form.cleaned_data
    if kind == "dataset":
        result = dataset_import(
            path=path,
            name=data["name"] or None,
            source=data["source"] or None,
            licence_note=data["licence"],
            is_demo=data["demo"],
            difficulty=data["difficulty"] or None,
            allow_copy=data["allow_copy"],
            actor=actor,
        )
        return _dataset_outcome(result, path.name)
    if kind == "answers":
        result = answers_import(
            path=path, model_name=data["model"], dataset_name=data["dataset"], actor=actor
        )
        return _answers_outcome(result, path.name)
    result = verdicts_import(
        path=path,
        model_name=data["model"],
        judge_name=data["judge"],
        dataset_name=data["dataset"],
        lenient=data["lenient"],
        actor=actor,
    )
    return _verdicts_outcome(result, path.name)


def _refused(
    kind: str, file_name: str, *, line: int | None, reason: str, reason_lang: str = ""
) -> Outcome:
    return Outcome(
        kind=kind, file_name=file_name, ok=False, line=line, reason=reason, reason_lang=reason_lang
    )


def _forms(choices: ImportChoices, *, bound: str = "", request=None) -> dict[str, forms.Form]:
    made = {}
    for kind, form_class in FORMS.items():
        args = (request.POST, request.FILES) if kind == bound else ()
        extra = {} if kind == "dataset" else {"choices": choices}
        made[kind] = form_class(*args, prefix=kind, **extra)
    return made


@staff_member_required
@require_http_methods(["GET", "POST"])
def import_page(request):
    """The three import forms; a POST runs one import and shows what it did or why not."""
    choices = import_choices()
    kind = request.POST.get("kind", "") if request.method == "POST" else ""
    outcome = None
    status = 200
    if request.method == "POST":
        if kind not in KINDS:
            status = 400
            outcome = _refused("", "", line=None, reason="")
            all_forms = _forms(choices)
        else:
            all_forms = _forms(choices, bound=kind, request=request)
            form = all_forms[kind]
            upload = request.FILES.get(f"{kind}-file")
            file_name = _file_name(upload.name or "") if upload else ""
            if not form.is_valid():
                status = 400
                outcome = _refused(kind, file_name, line=None, reason="")
                outcome.form_errors = [
                    (form.fields[name].label if name in form.fields else "", message)
                    for name, messages in form.errors.items()
                    for message in messages
                ]
            else:
                outcome, status = _imported(kind, form, request.user)
                if outcome.ok:
                    # The new dataset, model or judge is a choice of the next upload.
                    choices = import_choices()
                    all_forms = _forms(choices)
    else:
        all_forms = _forms(choices)
    context = staff_context(
        request,
        _("Import data"),
        forms=all_forms,
        choices=choices,
        outcome=outcome,
        bound_kind=kind,
        max_bytes=settings.HEARTBENCH_MAX_IMPORT_BYTES,
        max_size=filesizeformat(settings.HEARTBENCH_MAX_IMPORT_BYTES),
    )
    return render(request, "frontend/manage/import.html", context, status=status)


def _imported(kind: str, form: forms.Form, actor) -> tuple[Outcome, int]:
    upload = form.cleaned_data["file"]
    with _saved(upload) as path:
        try:
            return _run_import(kind, form, path, actor), 200
        except ImportFailure as failure:
            # The reason alone: the failure's label is the temporary path, not the user's.
            refused = _refused(
                kind, path.name, line=failure.line, reason=failure.reason, reason_lang="en"
            )
            return refused, 400
        except DatasetNotFound as missing:
            return _refused(kind, path.name, line=None, reason=str(missing), reason_lang="en"), 400
        except IntegrityError:
            # Two admins importing the same thing at once: the other one won; nothing of
            # this import was kept.
            reason = _("Another import wrote the same data at the same moment; try again.")
            return _refused(kind, path.name, line=None, reason=reason), 409
