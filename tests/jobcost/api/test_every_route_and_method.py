"""Every method on every route has a defined answer (docs/decisions.md, "Errors and methods").

The walk reads the root URL conf itself, so a route added later is walked too: every /v1 route,
`/v1/openapi.json`, `/docs`, `/healthz` and `/readyz`, each with GET, HEAD, POST, PUT, PATCH,
DELETE, OPTIONS, TRACE and a made-up method. No answer is a 5xx; every /v1 error is the JSON
envelope; a 405 names the route's methods in `Allow`; OPTIONS answers 200 or 204 with `Allow`
and no body, for a key of any role, and 401 without a key. Over a real gunicorn, HEAD on every
route answers no body, so the next response on the same kept-alive connection still parses.
"""

from __future__ import annotations

import re

import httpx
import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from jobcost.models import Project
from tests.conftest import Api, error_of
from tests.factories import make_change_order, make_invoice, make_job, make_pay_app
from tests.live_gunicorn import database_url, gunicorn
from tests.webhooks.support import make_endpoint
from webhooks.models import WebhookDelivery

ROLES = ["admin", "manager", "member", "viewer", "agent"]
# DELETE last, so the other methods meet the real objects before one is deleted.
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "OPTIONS", "TRACE", "BREW", "DELETE"]
WALKED_OUTSIDE_V1 = {"v1/openapi.json", "docs", "healthz", "readyz"}
_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>[^)]*\)")


def _patterns(resolvers=None, prefix: str = ""):
    """(route regex, basename or None) for every leaf pattern under the root URL conf."""
    for entry in resolvers if resolvers is not None else get_resolver().url_patterns:
        regex = entry.pattern.regex.pattern.lstrip("^").removesuffix(r"\Z").rstrip("$")
        if isinstance(entry, URLResolver):
            if regex.startswith("admin/"):
                continue  # the Django admin is a browser back office, not the API
            yield from _patterns(entry.url_patterns, prefix + regex)
        elif isinstance(entry, URLPattern):
            yield prefix + regex, getattr(entry.callback, "initkwargs", {}).get("basename")


def _concrete_paths(ids: dict[str, str]) -> list[str]:
    """One path per pattern, with a real ID of the collection where one exists."""
    paths = []
    for regex, basename in _patterns():
        if basename is None and regex.replace("\\", "") not in WALKED_OUTSIDE_V1:
            continue

        def fill(match, basename=basename):
            name = basename if match["name"] == "pk" else match["name"]
            return ids.get(name, f"{name}_000000000000000000000000")

        path = "/" + _GROUP.sub(fill, regex).replace("\\", "")
        assert re.fullmatch(regex, path[1:]), (regex, path)
        paths.append(path)
    return paths


@pytest.fixture
def walk(account, make_api):
    """An admin client, and one path per route holding real IDs of a small job."""
    make_endpoint(account)
    job = make_job(account)
    make_change_order(job.project, cost_code=job.codes["03-000"], amount=10_000)
    make_invoice(job.commitment, amount=10_000, number="INV-1")
    make_pay_app(job.project, "2026-11-01", "2026-11-30")
    api = make_api(account, "admin")
    ids = {"delivery_id": WebhookDelivery.objects.get(event__type="project.created").pk}
    for regex, basename in _patterns():
        # Report rows have no `id` (and some reports need a `project`): nothing to collect.
        if basename and basename != "reports" and "(?P<pk>" not in regex and basename not in ids:
            response = api.get("/" + regex)
            assert response.status_code == 200, (regex, response.content)
            rows = response.json()["data"]
            if rows:
                ids[basename] = rows[0]["id"]
    return api, _concrete_paths(ids)


def _call(api: Api, method: str, path: str):
    headers = api._headers({"Idempotency-Key": f"walk-{method}-{path}"})
    return api.client.generic(method, path, b"{}", "application/json", headers=headers)


def test_the_walk_reaches_every_kind_of_route(walk):
    _, paths = walk
    assert {"/v1/openapi.json", "/docs", "/healthz", "/readyz"} <= set(paths)
    assert "/v1/projects" in paths
    assert any(re.fullmatch(r"/v1/commitments/cmt_\w+/execute", p) for p in paths)
    assert any(re.fullmatch(r"/v1/agents/actions/[\w-]+/approve", p) for p in paths)
    assert len(paths) > 40


@pytest.mark.parametrize("with_key", [True, False], ids=["admin key", "no key"])
def test_every_method_on_every_route_has_a_defined_answer(walk, with_key):
    api, paths = walk
    api = api if with_key else Api(None)
    failures = []
    for method in METHODS:
        for path in paths:
            response = _call(api, method, path)
            status = response.status_code
            problem = None
            if status >= 500:
                problem = "5xx"
            elif method == "OPTIONS" and path.startswith("/v1") and with_key:
                if status not in (200, 204) or response.content.strip():
                    problem = "OPTIONS is not an empty 200/204"
                elif "OPTIONS" not in response.get("Allow", ""):
                    problem = "OPTIONS without Allow"
            elif status == 405 and not response.get("Allow"):
                problem = "405 without Allow"
            elif path.startswith("/v1") and status >= 400:
                if "json" not in response["Content-Type"]:
                    problem = "not JSON"
                elif method != "HEAD":  # a HEAD answer has the headers of a GET, no body
                    error_of(response)
            if problem:
                failures.append((method, path, status, problem, response.content[:200]))
    assert failures == []


def test_unknown_methods_are_405_envelopes_naming_the_routes_methods(walk):
    api, _ = walk
    for method in ("PUT", "TRACE", "PROPFIND", "BREW"):
        response = _call(api, method, "/v1/projects")
        assert response.status_code == 405, (method, response.content)
        assert error_of(response)["code"] == "method_not_allowed"
        assert response["Allow"] == "GET, POST, HEAD, OPTIONS"


def test_options_answers_every_role_with_allow_and_no_body(walk, account, make_api):
    _, paths = walk
    v1_paths = [p for p in paths if p.startswith("/v1/") and p != "/v1/openapi.json"]
    project = Project.objects.get(account=account)
    clients = [make_api(account, role) for role in ROLES]
    clients += [make_api(account, role, projects=[project]) for role in ROLES]
    for client in clients:
        role = (client.key.role, client.key.projects.exists())
        for path in v1_paths:
            response = client.client.options(path, headers=client._headers({}))
            assert response.status_code in (200, 204), (role, path, response.content)
            assert response.content == b"", (role, path)
            assert "OPTIONS" in response["Allow"], (role, path)
    detail = make_api(account, "viewer").client.options(
        next(p for p in v1_paths if p.startswith("/v1/webhooks/")),
        headers=make_api(account, "viewer")._headers({}),
    )
    assert detail["Allow"] == "GET, PATCH, DELETE, HEAD, OPTIONS"


def test_options_still_needs_a_key(walk):
    _, paths = walk
    for path in [p for p in paths if p.startswith("/v1/") and p != "/v1/openapi.json"]:
        response = Api(None).client.options(path)
        assert response.status_code == 401, path
        assert error_of(response)["code"] == "api_key_missing"


@pytest.fixture
def live_port(transactional_db):
    """A gunicorn (one worker, two threads) on the test database; its port."""
    with gunicorn(database_url(), workers=1, threads=2) as port:
        yield port


def _socket_of(response: httpx.Response):
    return response.extensions["network_stream"].get_extra_info("socket").getsockname()


@pytest.mark.postgres(
    reason="gunicorn's worker reads the test's rows from a database of its own process; "
    "SQLite's test database lives in this process's memory"
)
@pytest.mark.django_db(transaction=True)
def test_head_answers_no_body_on_any_route_over_one_kept_alive_connection(walk, live_port):
    """A HEAD body was read by the client as the start of the next response ("illegal
    status line"): every route's HEAD, each followed by a GET, over one connection."""
    api, paths = walk
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    headers = {"Authorization": f"Bearer {api.secret}"}
    answered = []
    with httpx.Client(
        base_url=f"http://127.0.0.1:{live_port}", limits=limits, headers=headers, timeout=30
    ) as client:
        first = client.get("/healthz")
        connection = _socket_of(first)
        for path in paths:
            head = client.head(path)
            assert head.content == b"", (path, head.status_code)
            assert head.status_code < 500, path
            after = client.get("/healthz")  # parses only if the HEAD sent no stray bytes
            assert after.status_code == 200 and after.json(), path
            assert _socket_of(head) == _socket_of(after) == connection, path
            answered.append((path, head.status_code, head.headers.get("content-length")))
        # The back office's pages too (a login page, a redirect to it), with no key.
        for path in ("/admin/login/", "/admin/", "/admin/jobcost/project/"):
            head = client.head(path, headers={"Authorization": ""})
            assert (head.status_code < 500, head.content) == (True, b""), path
            assert client.get("/healthz").status_code == 200, path
            assert _socket_of(head) == connection, path
    assert len(answered) == len(paths) > 40
    # The GET's headers, the size included: a list HEAD tells its length.
    projects = dict((path, length) for path, _, length in answered)["/v1/projects"]
    assert int(projects) > 0
