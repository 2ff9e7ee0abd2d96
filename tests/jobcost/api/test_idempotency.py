"""Idempotency (docs/conventions.md) through the API: replays, reuse with another request, stored
4xx, per-API-key scope, the 24 h window and the purge job. (Concurrent retries:
test_idempotency_concurrency.py.)"""

from __future__ import annotations

import datetime

from django.utils import timezone

from config.celery import app as celery_app
from jobcost.models import Commitment, IdempotencyRecord, Owner
from jobcost.tasks import purge_expired_idempotency_keys
from tests.conftest import error_of
from tests.jobcost.api.conventions_support import make_job, row_counts


def test_replay_returns_the_stored_response_and_writes_nothing(api, account):
    job = make_job(account)
    body = job.commitment_body(original_amount=2_500_00)
    first = api.post("/v1/commitments", body, idem="create-1")
    assert first.status_code == 201, first.content
    assert "Idempotent-Replayed" not in first
    before = row_counts(idempotency=True)
    for _ in range(3):
        again = api.post("/v1/commitments", body, idem="create-1")
        assert again.status_code == 201
        assert again["Idempotent-Replayed"] == "true"
        assert again.content == first.content
        assert again["Request-Id"] != first["Request-Id"]
        assert again["Jobcost-Version"] == first["Jobcost-Version"]
    assert row_counts(idempotency=True) == before
    assert Commitment.objects.filter(project=job.project).count() == 2


def test_body_is_compared_as_parsed_json(api):
    first = api.post("/v1/owners", '{"name": "Harbor", "email": "a@b.co"}', idem="json-1")
    assert first.status_code == 201
    before = row_counts(idempotency=True)
    again = api.post("/v1/owners", '{ "email":"a@b.co",\n  "name":"Harbor" }', idem="json-1")
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert row_counts(idempotency=True) == before


def test_replayed_patch_does_not_apply_twice(api, account):
    job = make_job(account)
    first = api.patch(f"/v1/projects/{job.project.pk}", {"name": "Phase 1"}, idem="p-1")
    assert first.status_code == 200
    api.patch(f"/v1/projects/{job.project.pk}", {"name": "Phase 2"})
    before = row_counts(idempotency=True)
    again = api.patch(f"/v1/projects/{job.project.pk}", {"name": "Phase 1"}, idem="p-1")
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["name"] == "Phase 1"
    assert api.get(f"/v1/projects/{job.project.pk}").json()["name"] == "Phase 2"
    assert row_counts(idempotency=True) == before


def test_same_key_with_another_body_path_or_method_is_409_reused(api, account):
    job = make_job(account)
    assert api.post("/v1/owners", {"name": "Harbor"}, idem="reuse").status_code == 201
    before = row_counts(idempotency=True)
    attempts = [
        api.post("/v1/owners", {"name": "Harbour"}, idem="reuse"),
        api.post("/v1/owners", {"name": "Harbor", "email": ""}, idem="reuse"),
        api.post("/v1/vendors", {"name": "Harbor"}, idem="reuse"),
        api.patch(f"/v1/projects/{job.project.pk}", {"name": "Harbor"}, idem="reuse"),
        api.post(f"/v1/commitments/{job.commitment.pk}/execute", idem="reuse"),
    ]
    for response in attempts:
        assert response.status_code == 409, response.content
        error = error_of(response)
        assert (error["type"], error["code"], error["param"]) == (
            "conflict",
            "idempotency_key_reused",
            "Idempotency-Key",
        )
    assert row_counts(idempotency=True) == before
    assert Commitment.objects.get(pk=job.commitment.pk).status == "draft"


def test_handler_4xx_is_stored_and_replayed_not_run_again(api, account):
    job = make_job(account)
    close = f"/v1/commitments/{job.commitment.pk}/close"
    first = api.post(close, idem="close-early")
    assert first.status_code == 409
    assert error_of(first)["code"] == "invalid_state_transition"
    record = IdempotencyRecord.objects.get(key="close-early")
    assert record.response_status == 409
    assert api.post(f"/v1/commitments/{job.commitment.pk}/execute").status_code == 200
    before = row_counts(idempotency=True)
    again = api.post(close, idem="close-early")
    assert again.status_code == 409
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert Commitment.objects.get(pk=job.commitment.pk).status == "executed"
    assert row_counts(idempotency=True) == before


def test_validation_400_is_stored_and_replayed(api, account):
    job = make_job(account)
    body = job.commitment_body(original_amount=-1)
    first = api.post("/v1/commitments", body, idem="bad-amount")
    assert first.status_code == 400
    assert error_of(first)["param"] == "original_amount"
    again = api.post("/v1/commitments", body, idem="bad-amount")
    assert (again.status_code, again["Idempotent-Replayed"]) == (400, "true")
    assert again.content == first.content
    assert IdempotencyRecord.objects.filter(key="bad-amount").count() == 1


def test_keys_are_scoped_per_api_key(account, make_api):
    first_key, second_key = make_api(account), make_api(account)
    one = first_key.post("/v1/owners", {"name": "Harbor"}, idem="shared-key")
    two = second_key.post("/v1/owners", {"name": "Lakeside"}, idem="shared-key")
    assert (one.status_code, two.status_code) == (201, 201)
    assert "Idempotent-Replayed" not in two
    assert one.json()["id"] != two.json()["id"]
    assert sorted(Owner.objects.values_list("name", flat=True)) == ["Harbor", "Lakeside"]
    assert IdempotencyRecord.objects.filter(key="shared-key").count() == 2
    replay = first_key.post("/v1/owners", {"name": "Harbor"}, idem="shared-key")
    assert replay.json() == one.json()


def _age(key: str, hours: float) -> None:
    IdempotencyRecord.objects.filter(key=key).update(
        created_at=timezone.now() - datetime.timedelta(hours=hours)
    )


def test_a_record_older_than_24_hours_runs_fresh(api):
    first = api.post("/v1/owners", {"name": "Harbor"}, idem="old-key")
    _age("old-key", 23.9)
    replay = api.post("/v1/owners", {"name": "Harbor"}, idem="old-key")
    assert replay["Idempotent-Replayed"] == "true"
    assert replay.json()["id"] == first.json()["id"]
    _age("old-key", 24.1)
    fresh = api.post("/v1/owners", {"name": "Harbor"}, idem="old-key")
    assert fresh.status_code == 201
    assert "Idempotent-Replayed" not in fresh
    assert fresh.json()["id"] != first.json()["id"]
    assert Owner.objects.filter(name="Harbor").count() == 2
    assert IdempotencyRecord.objects.filter(key="old-key").count() == 1
    _age("old-key", 25)
    other_body = api.post("/v1/owners", {"name": "Other"}, idem="old-key")
    assert other_body.status_code == 201


def test_a_failing_request_under_an_expired_key_gets_its_own_error_stored(api):
    """The expired record is deleted inside the request's transaction, which the failure
    rolls back: the error must still be answered, and stored in the record's place."""
    api.post("/v1/owners", {"name": "Harbor"}, idem="expired-key")
    _age("expired-key", 25)
    failed = api.post("/v1/owners", {"name": ""}, idem="expired-key")
    assert failed.status_code == 400, failed.content
    assert error_of(failed)["param"] == "name"
    replay = api.post("/v1/owners", {"name": ""}, idem="expired-key")
    assert replay.status_code == 400
    assert replay["Idempotent-Replayed"] == "true"
    record = IdempotencyRecord.objects.get(key="expired-key")
    assert record.response_status == 400


def test_purge_task_deletes_expired_records_only(api):
    for name in ("old-1", "old-2", "recent"):
        assert api.post("/v1/owners", {"name": name}, idem=name).status_code == 201
    _age("old-1", 24.5)
    _age("old-2", 24 * 7)
    _age("recent", 23)
    assert purge_expired_idempotency_keys.apply().get() == 2
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["recent"]
    assert purge_expired_idempotency_keys.apply().get() == 0
    assert Owner.objects.count() == 3


def test_purge_task_is_on_the_beat_schedule():
    tasks = {entry["task"] for entry in celery_app.conf.beat_schedule.values()}
    assert "jobcost.tasks.purge_expired_idempotency_keys" in tasks


def test_refusals_before_the_handler_are_not_stored(api):
    before = row_counts(idempotency=True)
    assert api.post("/v1/owners", "{oops", idem="early").status_code == 400
    assert (
        api.post("/v1/owners", "name=x", idem="early", content_type="text/plain").status_code == 415
    )
    assert row_counts(idempotency=True) == before
    assert api.post("/v1/owners", {"name": "Now valid"}, idem="early").status_code == 201
