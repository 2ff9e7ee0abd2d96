"""A live server of the test database, seeded with the demo job, for the contract tests
(schemathesis, the generated Python client): real HTTP on a loopback port."""

from __future__ import annotations

from types import SimpleNamespace

import httpx
import pytest

from jobcost.demo.loader import demo_job_load
from jobcost.models import Project
from tests.factories import make_key
from tests.webhooks.support import make_endpoint


@pytest.fixture
def seeded_server(live_server):
    """The demo job (every kind of record) plus a webhook endpoint with one delivery, and an
    admin key of its account: SimpleNamespace(url, secret, account)."""
    demo_job_load()
    account = Project.objects.get(number="2026-014").account
    # The fuzzer checks answers, not the rate limit: a bucket that every request it sends fits
    # in (a PDF rendered costs 20 tokens, docs/operations/limits.md), so no answer is a 429.
    account.rate_limit_per_second, account.rate_limit_burst = 10_000, 100_000
    account.save(update_fields=["rate_limit_per_second", "rate_limit_burst"])
    make_endpoint(account)
    _key, secret = make_key(account, "admin")
    return SimpleNamespace(url=live_server.url, secret=secret, account=account)


def seeded_ids(server, schema: dict) -> dict[str, list[str]]:
    """{collection path: IDs of its seeded objects}, read through the lists of the API, e.g.
    {"/v1/projects": ["prj_…"], "/v1/webhooks": ["we_…"]}."""
    ids: dict[str, list[str]] = {}
    headers = {"Authorization": f"Bearer {server.secret}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as client:
        for path, item in schema["paths"].items():
            # Reports are not collections: their rows have no `id`.
            if "{" in path or "get" not in item or path.startswith("/v1/reports/"):
                continue
            page = client.get(path, params={"limit": 100}).raise_for_status().json()
            ids[path] = [row["id"] for row in page["data"]]
    return ids
