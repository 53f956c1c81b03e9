from django.contrib.auth.views import LogoutView
from django.urls import path

from frontend import views, views_adjudication

app_name = "frontend"

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("rate/<str:study>/", views.workbench, name="workbench"),
    path("done/", views.completed, name="completed"),
    path("profile/", views.profile, name="profile"),
    path("certificate/", views.certificate, name="certificate"),
    path("adjudicate/", views_adjudication.adjudication_home, name="adjudication-home"),
    path("adjudicate/<str:study>/", views_adjudication.adjudicate, name="adjudicate"),
]
