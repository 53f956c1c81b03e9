"""Discussion on a case or criterion, the FAQ and the curated case library."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

# The interface languages an FAQ entry can be written in (settings.LANGUAGES).
FAQ_LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]


class Comment(models.Model):
    """A post in the thread of a case (rubric_item null) or of one of its criteria."""

    case = models.ForeignKey(
        "benchmark.Case", on_delete=models.CASCADE, related_name="+", verbose_name=_("case")
    )
    rubric_item = models.ForeignKey(
        "benchmark.RubricItem",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("criterion"),
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("author"),
    )
    body = models.TextField(_("comment"))
    # Hidden by a moderator: kept for the record, shown to nobody but admins.
    is_hidden = models.BooleanField(_("hidden"), default=False)
    created_at = models.DateTimeField(_("posted at"), auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("comment")
        verbose_name_plural = _("comments")
        indexes = [models.Index(fields=["case", "rubric_item"])]

    def __str__(self) -> str:
        return f"comment {self.pk} on {self.case_id}"


class CommentVote(models.Model):
    comment = models.ForeignKey(
        Comment, on_delete=models.CASCADE, related_name="votes", verbose_name=_("comment")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("user"),
    )
    value = models.SmallIntegerField(_("vote"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["comment", "user"], name="comment_vote_once"),
            models.CheckConstraint(condition=Q(value__in=[-1, 1]), name="comment_vote_up_down"),
        ]
        verbose_name = _("comment vote")
        verbose_name_plural = _("comment votes")

    def __str__(self) -> str:
        return f"{self.value:+d} on {self.comment_id}"


class FaqEntry(models.Model):
    question = models.CharField(_("question"), max_length=500)
    answer = models.TextField(_("answer"))
    # The FAQ page lists the reader's language first.
    language = models.CharField(
        _("language"), max_length=10, default="zh-hans", choices=FAQ_LANGUAGES
    )
    tags = models.JSONField(_("tags"), default=list, blank=True)
    is_published = models.BooleanField(_("published"), default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["question"]
        verbose_name = _("FAQ entry")
        verbose_name_plural = _("FAQ entries")

    def __str__(self) -> str:
        return self.question


class LibraryEntry(models.Model):
    """An exemplary response to a case, curated by an admin with a teaching note."""

    response = models.OneToOneField(
        "benchmark.Response",
        on_delete=models.PROTECT,
        related_name="library_entry",
        verbose_name=_("response"),
    )
    title = models.CharField(_("title"), max_length=300)
    # Shown to experts beside the response: it must not name the model.
    note = models.TextField(_("teaching note"))
    is_published = models.BooleanField(_("published"), default=True)
    curated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("curated by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("library entry")
        verbose_name_plural = _("library entries")

    def __str__(self) -> str:
        return self.title
