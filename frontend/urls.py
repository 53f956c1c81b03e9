from django.contrib.auth.views import LogoutView
from django.urls import path

import config.converters  # noqa: F401  (registers the <study:...> converter)
from frontend import views, views_adjudication, views_knowledge, views_leaderboard, views_review

app_name = "frontend"

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("rate/<study:study>/", views.workbench, name="workbench"),
    path("done/", views_review.completed, name="completed"),
    path("done/<str:assignment_id>/", views_review.submitted_unit, name="submitted-unit"),
    path("profile/", views.profile, name="profile"),
    path("certificate/", views.certificate, name="certificate"),
    path("adjudicate/", views_adjudication.adjudication_home, name="adjudication-home"),
    path("adjudicate/flags/<int:flag_id>/", views_review.flag_answer, name="flag-answer"),
    path("adjudicate/<study:study>/", views_adjudication.adjudicate, name="adjudicate"),
    path("leaderboard/", views_leaderboard.leaderboard, name="leaderboard"),
    path("discuss/<str:token>/", views_knowledge.discussion, name="discussion"),
    path("discuss/<str:token>/post/", views_knowledge.discussion_post, name="discussion-post"),
    path(
        "discuss/<str:token>/vote/<int:comment_id>/",
        views_knowledge.discussion_vote,
        name="discussion-vote",
    ),
    path("faq/", views_knowledge.faq, name="faq"),
    path("library/", views_knowledge.library, name="library"),
    path("library/<int:entry_id>/", views_knowledge.library_entry, name="library-entry"),
]
