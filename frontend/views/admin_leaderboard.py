from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse


@staff_member_required
def leaderboard(request: HttpRequest) -> HttpResponse:
    """The admin's leaderboard link: the one leaderboard page everyone signed in uses, with the
    same choices (dataset, split, scoring, judge). Staff see the study-report links there."""
    target = reverse("frontend:leaderboard")
    query = request.GET.urlencode()
    return redirect(f"{target}?{query}" if query else target)
