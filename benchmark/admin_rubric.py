"""Admin for rubric criteria: edits go through ``rubric_item_edit`` (a new version with a
required reason, an audit row), never a plain model save; a history page per criterion.

The disagreement viewer opens the change form with ``?study=NAME&unit=TOKEN``: the edit then
records that study item as its prompt, and the history links back to it."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from benchmark import models
from benchmark.rubric_diff import points_text
from benchmark.selectors.rubric import rubric_item_history
from benchmark.services.rubric import (
    IMPORTED_REASON,
    RubricEditError,
    rubric_disagreement_check,
    rubric_item_edit,
    rubric_points_check,
)

# The query parameters that name the disagreement an edit answers.
DISAGREEMENT_PARAMS = ("study", "unit")


def disagreement_from_query(query) -> dict | None:
    """What the change form's URL names as the edit's prompt (checked by the form)."""
    given = {key: query[key] for key in DISAGREEMENT_PARAMS if key in query}
    return given or None


def disagreement_link(disagreement: dict | None, *, item_id: int) -> str:
    """The viewer's URL for that item, if the viewer is installed (benchmark imports no
    higher app: a URL name is looked up, as the leaderboard command looks up the gate)."""
    if not disagreement:
        return ""
    try:
        url = reverse("validation:study-disagreements", args=[disagreement["study"]])
    except NoReverseMatch:
        return ""
    return f"{url}?{urlencode({'unit': disagreement['unit'], 'criterion': item_id})}"


class RubricItemEditForm(forms.ModelForm):
    # strip=False: the text is compared with the stored one, which may carry spaces.
    text = forms.CharField(label=_("text"), widget=forms.Textarea(attrs={"rows": 4}), strip=False)
    points = forms.IntegerField(
        label=_("points"),
        required=False,
        help_text=_(
            "A nonzero whole number; the catastrophic criterion: empty (null) or negative."
        ),
    )
    reason = forms.CharField(
        label=_("reason for the change"),
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Required; kept in the criterion's version history."),
    )

    # Set per request by RubricItemAdmin.get_form: the study item the edit answers.
    disagreement: dict | None = None

    class Meta:
        model = models.RubricItem
        fields = ["text", "points"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.disagreement:
            self.fields["reason"].help_text = gettext(
                "Required. This edit records the disagreement it answers: study %(study)s,"
                " unit %(unit)s; the version history links to it."
            ) % {k: self.disagreement.get(k, "") for k in DISAGREEMENT_PARAMS}

    def clean_text(self) -> str:
        # Browsers send textarea line breaks as CRLF; the stored text uses LF.
        text = self.cleaned_data["text"].replace("\r\n", "\n")
        if not text.strip():
            raise forms.ValidationError(gettext("The text of a criterion must not be empty."))
        return text

    def clean(self):
        data = super().clean()
        try:
            self.disagreement = rubric_disagreement_check(self.disagreement)
        except RubricEditError as exc:
            raise forms.ValidationError(str(exc)) from exc
        if self.errors:
            return data
        item = self.instance
        points = data.get("points")
        if points != item.points:
            try:
                rubric_points_check(ability=item.ability, points=points)
            except RubricEditError as exc:
                self.add_error("points", str(exc))
                return data
        if data.get("text") == item.text and points == item.points:
            raise forms.ValidationError(
                gettext("Nothing changed: the text and points are the same.")
            )
        return data


class RubricItemAdmin(admin.ModelAdmin):
    form = RubricItemEditForm
    list_display = ["case", "position", "ability", "points", "version", "short_text", "history"]
    list_filter = ["ability", "case__dataset"]
    search_fields = ["text", "case__question_id"]
    list_select_related = ["case"]
    readonly_fields = ["case", "position", "ability", "version", "history"]
    fields = ["case", "position", "ability", "version", "text", "points", "reason", "history"]
    save_as = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("text"))
    def short_text(self, obj: models.RubricItem) -> str:
        return obj.text if len(obj.text) <= 60 else obj.text[:59] + "…"

    @admin.display(description=_("history"))
    def history(self, obj: models.RubricItem) -> str:
        if obj.pk is None:
            return "—"
        url = reverse("admin:benchmark_rubricitem_versions", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, gettext("versions"))

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        # A subclass per request: the form class itself is shared between requests.
        attrs = {"disagreement": disagreement_from_query(request.GET)}
        return type(form.__name__, (form,), attrs)

    def save_model(self, request, obj, form, change):
        """A new version through the service; the form was checked, so only a concurrent
        edit that made this one a no-op can still be refused here."""
        data = form.cleaned_data
        try:
            rubric_item_edit(
                item=obj,
                text=data["text"],
                points=data["points"],
                author=request.user,
                reason=data["reason"],
                disagreement=form.disagreement,
            )
        except RubricEditError as exc:
            messages.error(request, str(exc))

    def get_urls(self):
        view = self.admin_site.admin_view(self.versions_view)
        return [
            path("<int:object_id>/versions/", view, name="benchmark_rubricitem_versions"),
            *super().get_urls(),
        ]

    def versions_view(self, request, object_id: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        item = get_object_or_404(
            models.RubricItem.objects.select_related("case__dataset"), pk=object_id
        )
        versions = [
            {
                "number": v.number,
                "text": v.text,
                "points": points_text(v.points),
                "author": v.author,
                # The stored word for the imported original is shown in the reader's language.
                "reason": gettext("imported") if v.reason == IMPORTED_REASON else v.reason,
                "created_at": v.created_at,
                "current": v.current,
                "disagreement": v.disagreement,
                "disagreement_url": disagreement_link(v.disagreement, item_id=item.pk),
                # diff_html escapes every piece of text itself.
                "diff": mark_safe(v.diff.html()) if v.diff and v.diff.text_changed else "",
                "points_change": (
                    f"{points_text(v.diff.points_before)} → {points_text(v.diff.points_after)}"
                    if v.diff and v.diff.points_changed
                    else ""
                ),
            }
            for v in reversed(rubric_item_history(item=item))
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "item": item,
            "versions": versions,
            "title": gettext("Versions of criterion %(case)s #%(position)s")
            % {"case": item.case.question_id, "position": item.position},
            "change_url": reverse("admin:benchmark_rubricitem_change", args=[item.pk]),
        }
        return TemplateResponse(request, "admin/benchmark/rubricitem/versions.html", context)


class RubricItemVersionAdmin(admin.ModelAdmin):
    """Every edit of every criterion, newest first: read only."""

    list_display = ["item", "number", "points", "author", "reason", "created_at"]
    list_filter = ["item__case__dataset"]
    search_fields = ["item__case__question_id", "reason", "text"]
    list_select_related = ["item", "author"]
    ordering = ["-created_at", "-id"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
