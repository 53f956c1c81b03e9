"""Discussion on a case or criterion, the FAQ and the curated case library."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Comment(models.Model):
    """A post in the thread of a case (rubric_item null) or of one of its criteria."""

    case = models.ForeignKey("benchmark.Case", on_delete=models.CASCADE, related_name="+")
    rubric_item = models.ForeignKey(
        "benchmark.RubricItem", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    body = models.TextField()
    # Hidden by a moderator: kept for the record, shown to nobody but admins.
    is_hidden = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["case", "rubric_item"])]

    def __str__(self) -> str:
        return f"comment {self.pk} on {self.case_id}"


class CommentVote(models.Model):
    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="votes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    value = models.SmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["comment", "user"], name="comment_vote_once"),
            models.CheckConstraint(condition=Q(value__in=[-1, 1]), name="comment_vote_up_down"),
        ]

    def __str__(self) -> str:
        return f"{self.value:+d} on {self.comment_id}"


class FaqEntry(models.Model):
    question = models.CharField(max_length=500)
    answer = models.TextField()
    # "zh-hans" or "en"; the FAQ page lists the reader's language first.
    language = models.CharField(max_length=10, default="zh-hans")
    tags = models.JSONField(default=list, blank=True)
    is_published = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["question"]
        verbose_name = "FAQ entry"
        verbose_name_plural = "FAQ entries"

    def __str__(self) -> str:
        return self.question


class LibraryEntry(models.Model):
    """An exemplary response to a case, curated by an admin with a teaching note."""

    response = models.OneToOneField(
        "benchmark.Response", on_delete=models.PROTECT, related_name="library_entry"
    )
    title = models.CharField(max_length=300)
    note = models.TextField()
    is_published = models.BooleanField(default=True)
    curated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "library entries"

    def __str__(self) -> str:
        return self.title
