from django.contrib.auth.views import LogoutView
from django.urls import path

import annotation.converters  # noqa: F401  (registers the <study:...> converter)
from frontend.views import (
    adjudication,
    construction,
    expert,
    knowledge,
    leaderboard,
    manage_experts,
    review,
    selfcheck,
    standards,
)

app_name = "frontend"

urlpatterns = [
    path("", expert.home, name="home"),
    path("login/", expert.LoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    # An invitation link (set your password): public, see frontend.views.manage_experts.
    path("invite/<str:uidb64>/<str:token>/", manage_experts.invite, name="invite"),
    path("rate/<study:study>/", expert.workbench, name="workbench"),
    path("done/", review.completed, name="completed"),
    path("done/<str:assignment_id>/", review.submitted_unit, name="submitted-unit"),
    path("profile/", expert.profile, name="profile"),
    path("certificate/", expert.certificate, name="certificate"),
    path("adjudicate/", adjudication.adjudication_home, name="adjudication-home"),
    path("adjudicate/flags/<int:flag_id>/", review.flag_answer, name="flag-answer"),
    path("adjudicate/<study:study>/", adjudication.adjudicate, name="adjudicate"),
    path("leaderboard/", leaderboard.leaderboard, name="leaderboard"),
    path("standards/", standards.standards, name="standards"),
    path("standards/<str:ability>/", standards.standard_edit, name="standard-edit"),
    path("construct/selfcheck/", selfcheck.selfcheck_home, name="selfcheck"),
    path("construct/selfcheck/<int:draft_id>/", selfcheck.selfcheck_draft, name="selfcheck-draft"),
    path(
        "construct/selfcheck/<int:draft_id>/responses/<int:response_id>/",
        selfcheck.selfcheck_label,
        name="selfcheck-label",
    ),
    path(
        "construct/selfcheck/<int:draft_id>/criteria/<int:criterion_id>/revise/",
        selfcheck.selfcheck_revise,
        name="selfcheck-revise",
    ),
    path("construct/", construction.construct_home, name="construct"),
    path("construct/start/<int:work_id>/", construction.construct_start, name="construct-start"),
    path("construct/task/<int:task_id>/", construction.construct_task, name="construct-task"),
    path("construct/revisions/", construction.construct_revisions, name="construct-revisions"),
    path(
        "construct/criteria/<int:criterion_id>/",
        construction.construct_criterion_edit,
        name="construct-criterion",
    ),
    path("construct/send/<int:draft_id>/", construction.construct_send, name="construct-send"),
    path("discuss/<str:token>/", knowledge.discussion, name="discussion"),
    path("discuss/<str:token>/post/", knowledge.discussion_post, name="discussion-post"),
    path(
        "discuss/<str:token>/vote/<int:comment_id>/",
        knowledge.discussion_vote,
        name="discussion-vote",
    ),
    path("faq/", knowledge.faq, name="faq"),
    path("library/", knowledge.library, name="library"),
    path("library/<int:entry_id>/", knowledge.library_entry, name="library-entry"),
]
