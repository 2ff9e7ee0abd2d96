"""The back office's request middleware — sessions, the signed-in user and messages — run
for every path but the API's (docs/architecture.md, "Middleware" in "The rules that
follow").

An API request (`/v1/…`) is authenticated by its key and never reads a session, a cookie or a
message, yet Django's middleware loaded the session store, wrapped the user and the messages
lazily and checked each on the way out (docs/benchmarks.md, "Reads under gunicorn"). Each class here
is Django's, unchanged on any other path, and still a subclass of it, so the admin's own checks
(that these are installed) hold. CSRF stays Django's own class: `check --deploy` looks for
it by name, and every API view is exempt from it anyway."""

from __future__ import annotations

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware

API_PREFIX = "/v1/"


def _is_api(request) -> bool:
    return request.path_info.startswith(API_PREFIX)


class _NotOnTheApi:
    """Passes an API request straight on; any other goes through the middleware this is
    mixed into (placed before it in the bases)."""

    def __call__(self, request):
        if _is_api(request):
            return self.get_response(request)
        return super().__call__(request)


class BackOfficeSessionMiddleware(_NotOnTheApi, SessionMiddleware):
    """`SessionMiddleware` outside the API."""


class BackOfficeAuthenticationMiddleware(_NotOnTheApi, AuthenticationMiddleware):
    """`AuthenticationMiddleware` outside the API: there the key is the caller
    (`request.auth`), and `request.user` is DRF's."""


class BackOfficeMessageMiddleware(_NotOnTheApi, MessageMiddleware):
    """`MessageMiddleware` outside the API."""
