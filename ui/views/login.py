"""The login page: Django's, behind the per-address limit of failed logins (axes limits each username and address)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memoryhub.people.logins import address_locked_out

_django_login = auth_views.LoginView.as_view(redirect_authenticated_user=True)


def login(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and address_locked_out(request):
        return render(request, settings.AXES_LOCKOUT_TEMPLATE, status=429)
    return _django_login(request)
