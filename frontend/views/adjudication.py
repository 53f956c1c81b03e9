"""The senior queue's pages: the studies with units waiting, flags to answer, and the
adjudication shell.

The adjudication page itself talks to ``/api/v1/adjudications/`` from a small script; these
views only check that a senior expert is asking.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation import selectors
from annotation.selectors import adjudication as queue
from annotation.selectors import review as selectors_review


def _denied(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/not_senior.html", status=403)


@login_required
def adjudication_home(request: HttpRequest) -> HttpResponse:
    try:
        senior = queue.senior_for_user(user=request.user)
        pools = list(queue.pools_for_senior(user=request.user))
    except selectors.NotAnExpert:
        return _denied(request)
    queues = [(pool, queue.adjudication_queue(pool=pool, expert=senior).count()) for pool in pools]
    flags = list(selectors_review.flags_open_for_senior(user=request.user))
    return render(request, "frontend/adjudication_home.html", {"queues": queues, "flags": flags})


@login_required
def adjudicate(request: HttpRequest, study: str) -> HttpResponse:
    try:
        pool = queue.pool_get_for_senior(user=request.user, name=study)
    except selectors.NotAnExpert:
        return _denied(request)
    return render(request, "frontend/adjudicate.html", {"study": pool.name})
