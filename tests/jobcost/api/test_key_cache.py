"""A process keeps an API key it has read for a second (docs/keys.md,
jobcost/api/authentication.py): a client's next requests in that second cost no query for it;
a change to the key, its project restriction or its account made in this process is seen by
the very next request; one made behind its back (another process's write) within a second."""

from __future__ import annotations

import time

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from jobcost.api import authentication
from jobcost.models import ApiKey
from tests.conftest import error_of
from tests.factories import ProjectFactory
from tests.waiting import until


def _queries(api, path: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = api.get(path)
    return response.status_code, len(ctx.captured_queries)


def test_a_second_request_with_the_key_reads_one_query_less(api):
    first = _queries(api, "/v1/owners")
    second = _queries(api, "/v1/owners")
    assert first[0] == second[0] == 200
    assert second[1] == first[1] - 1


def test_a_new_role_is_seen_by_the_next_request(api):
    assert api.post("/v1/owners", {"name": "Before"}).status_code == 201
    api.key.role = "viewer"
    api.key.save()
    refused = api.post("/v1/owners", {"name": "After"})
    assert refused.status_code == 403
    assert error_of(refused)["code"] == "role_forbidden"


def test_a_new_project_restriction_is_seen_by_the_next_request(account, api):
    mine, other = ProjectFactory(account=account), ProjectFactory(account=account)
    assert api.get(f"/v1/projects/{other.pk}").status_code == 200
    api.key.projects.set([mine])
    assert api.get(f"/v1/projects/{other.pk}").status_code == 404
    assert api.get(f"/v1/projects/{mine.pk}").status_code == 200


def test_an_account_limit_of_zero_is_seen_by_the_next_request(account, api):
    assert api.get("/v1/owners").status_code == 200
    account.rate_limit_per_second = 0
    account.save()
    assert api.get("/v1/owners").status_code == 429


def test_a_revocation_written_behind_the_process_is_seen_within_a_second(api):
    assert api.get("/v1/owners").status_code == 200
    # An UPDATE that sends no signal, as a revocation by another process looks from here.
    ApiKey.objects.filter(pk=api.key.pk).update(revoked_at=timezone.now())
    written = time.monotonic()
    until(lambda: api.get("/v1/owners").status_code == 401, timeout=5, what="the key refused")
    assert time.monotonic() - written <= authentication.KEY_CACHE_SECONDS + 0.5


def test_a_deleted_key_is_refused_by_the_next_request(api):
    assert api.get("/v1/owners").status_code == 200
    ApiKey.objects.filter(pk=api.key.pk).delete()  # post_delete, not only post_save
    assert error_of(api.get("/v1/owners"))["code"] == "api_key_invalid"


def test_a_key_read_while_a_change_is_uncommitted_is_not_kept_after_the_commit(
    api, django_capture_on_commit_callbacks
):
    """A request of another thread may read the old row between a change and its commit:
    the cache is emptied again when the change commits (and a read overlapping that is not
    kept)."""
    assert api.get("/v1/owners").status_code == 200
    with django_capture_on_commit_callbacks() as callbacks:
        api.key.role = "viewer"
        api.key.save()
        # What another thread would keep: the key as read before the commit.
        authentication._keys_read[api.key.secret_hash] = (time.monotonic() + 60, api.key)
    assert len(callbacks) >= 1
    for callback in callbacks:
        callback()  # the commit
    assert api.key.secret_hash not in authentication._keys_read
