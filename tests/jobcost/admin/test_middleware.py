"""Django's session, user and message middleware run for the back office and pass over
the API (`jobcost.admin.middleware`, docs/architecture.md "Middleware")."""

from __future__ import annotations

from django.conf import settings
from django.test import Client

from tests.conftest import error_of


def test_the_back_office_still_refuses_a_post_without_its_csrf_token(accountant):
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/admin/login/")
    assert page.status_code == 200
    assert settings.CSRF_COOKIE_NAME in page.cookies
    refused = browser.post("/admin/login/", {"username": "accountant", "password": "x"})
    assert refused.status_code == 403


def test_a_signed_in_back_office_session_still_reads_its_user_and_messages(web):
    page = web.get("/admin/")
    assert page.status_code == 200
    assert page.wsgi_request.user.username == "accountant"
    assert hasattr(page.wsgi_request, "_messages")
    assert "Cookie" in page["Vary"]


def test_an_api_request_reads_no_session_user_or_message(web, api):
    """A browser signed in to the back office is no one to the API, which neither reads nor
    sets a cookie; with a key the same client is the key."""
    anonymous = web.get("/v1/owners")
    assert anonymous.status_code == 401
    assert error_of(anonymous)["code"] == "api_key_missing"
    request = anonymous.wsgi_request
    assert not hasattr(request, "session") and not hasattr(request, "_messages")
    assert not anonymous.cookies and "Cookie" not in anonymous.get("Vary", "")
    with_key = api.get("/v1/owners")
    assert with_key.status_code == 200
    assert not with_key.cookies and "Cookie" not in with_key.get("Vary", "")


def test_an_api_write_needs_no_csrf_token(api):
    api.client = Client(enforce_csrf_checks=True)
    response = api.post("/v1/owners", {"name": "Bayview Hospital District"})
    assert response.status_code == 201, response.content
