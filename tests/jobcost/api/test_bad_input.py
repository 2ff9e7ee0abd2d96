"""Bad request bodies (docs/conventions.md, §3, §6): malformed JSON, non-JSON media types, oversized
bodies, and money or percentages of the wrong type or range. Each is refused with the
envelope, its code and param, and leaves no row and no audit entry behind."""

from __future__ import annotations

import json

import pytest

from jobcost.models import Commitment, IdempotencyRecord
from jobcost.money import MONEY_MAX
from tests.conftest import error_of
from tests.jobcost.api.conventions_support import make_job, row_counts


@pytest.fixture
def job(account):
    return make_job(account)


def _refused(response, status: int, code: str, param: str | None) -> dict:
    assert response.status_code == status, response.content
    error = error_of(response)
    assert (error["code"], error["param"]) == (code, param), error
    return error


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        '{"name": "Harbor"',
        '{"name": "Harbor",}',
        "[1, 2]",
        '"a string"',
        "42",
        '{"name": NaN}',
        '{"name": Infinity}',
        b'{"name": "\xff\xfe"}',
        pytest.param('{"name": ' + "[" * 200_000 + "]" * 200_000 + "}", id="nested-too-deep"),
        pytest.param('{"name": 1' + "0" * 5000 + "}", id="integer-of-5001-digits"),
    ],
)
def test_malformed_json_is_400_json_invalid(api, raw):
    before = row_counts(idempotency=True)
    error = _refused(api.post("/v1/owners", raw), 400, "json_invalid", None)
    assert error["type"] == "invalid_request"
    assert row_counts(idempotency=True) == before


@pytest.mark.parametrize(
    "content_type, raw",
    [
        ("application/x-www-form-urlencoded", "name=Harbor"),
        ("text/plain", '{"name": "Harbor"}'),
        ("application/xml", "<owner><name>Harbor</name></owner>"),
        ("application/merge-patch+json", '{"name": "Harbor"}'),
    ],
)
def test_non_json_body_is_415_unsupported_media_type(api, job, content_type, raw):
    before = row_counts(idempotency=True)
    created = api.post("/v1/owners", raw, content_type=content_type)
    error = _refused(created, 415, "unsupported_media_type", None)
    assert error["type"] == "invalid_request"
    patched = api.patch(f"/v1/projects/{job.project.pk}", raw, content_type=content_type)
    _refused(patched, 415, "unsupported_media_type", None)
    assert row_counts(idempotency=True) == before


def test_json_with_a_charset_is_accepted(api):
    response = api.post(
        "/v1/owners", '{"name": "Harbor"}', content_type="application/json; charset=utf-8"
    )
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Harbor"


def test_an_empty_body_needs_no_content_type(api, job):
    response = api.post(
        f"/v1/commitments/{job.commitment.pk}/execute", "", content_type="text/plain"
    )
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "executed"


def test_body_over_one_mebibyte_is_413_body_too_large(api, job):
    before = row_counts(idempotency=True)
    huge = job.commitment_body(description="x" * (1024 * 1024))
    error = _refused(api.post("/v1/commitments", huge), 413, "body_too_large", None)
    assert error["type"] == "invalid_request"
    assert row_counts(idempotency=True) == before


def test_body_just_under_the_limit_is_parsed(api, job):
    compact = json.dumps(job.commitment_body(number="SC-900"))
    raw = compact[:-1] + " " * (1024 * 1024 - len(compact)) + "}"
    assert len(raw.encode()) == 1024 * 1024
    response = api.post("/v1/commitments", raw)
    assert response.status_code == 201, response.content[:300]
    assert response.json()["number"] == "SC-900"


BAD_CENTS = [
    (100.0, "float"),
    (100.5, "float with a fraction"),
    (1e2, "exponent"),
    ("100", "string"),
    (True, "bool"),
    (None, "null"),
    (2**63, "out of range"),
    (MONEY_MAX + 1, "past the money cap"),
    (-1, "negative"),
    (-(2**63), "negative out of range"),
]


@pytest.mark.parametrize("value, _why", BAD_CENTS)
def test_bad_cents_on_create_are_400_parameter_invalid(api, job, value, _why):
    before = row_counts(idempotency=False)
    response = api.post("/v1/commitments", job.commitment_body(original_amount=value))
    error = _refused(response, 400, "parameter_invalid", "original_amount")
    assert error["type"] == "invalid_request"
    assert row_counts(idempotency=False) == before


@pytest.mark.parametrize("value, _why", BAD_CENTS)
def test_bad_cents_on_update_are_400_parameter_invalid(api, job, value, _why):
    before = row_counts()
    response = api.patch(f"/v1/commitments/{job.commitment.pk}", {"original_amount": value})
    _refused(response, 400, "parameter_invalid", "original_amount")
    assert row_counts() == before
    assert Commitment.objects.get(pk=job.commitment.pk).original_amount == 5_000_00


def test_bad_cents_are_refused_on_every_money_field(api, job, account):
    line = job.cost_code.budget_line
    cases = [
        ("post", "/v1/projects", "contract_amount", {"number": "J-9", "name": "New"}),
        ("post", "/v1/cost-codes", "budget_amount", {"code": "09-900", "name": "Paint"}),
        ("post", "/v1/cost-codes", "scheduled_value", {"code": "09-900", "name": "Paint"}),
        ("patch", f"/v1/budgets/{line.pk}", "cost_to_complete", {}),
        ("patch", f"/v1/cost-codes/{job.cost_code.pk}", "scheduled_value", {}),
    ]
    extra = {
        "/v1/projects": {"owner": job.project.owner_id},
        "/v1/cost-codes": {"project": job.project.pk, "cost_type": "labor"},
    }
    before = row_counts()
    for method, path, field, body in cases:
        for value in (100.0, "100", -5, 2**63, MONEY_MAX + 1, False):
            payload = {**body, **extra.get(path, {}), field: value}
            response = getattr(api, method)(path, payload)
            _refused(response, 400, "parameter_invalid", field)
    assert row_counts() == before


def test_the_money_cap_is_accepted_and_one_cent_more_is_refused_in_dollars(api, job):
    """docs/operations/limits.md: money inputs are at most $100,000,000,000.00 (MONEY_MAX cents)."""
    response = api.post("/v1/commitments", job.commitment_body(original_amount=MONEY_MAX))
    assert response.status_code == 201, response.content
    assert response.json()["original_amount"] == MONEY_MAX
    refused = api.post("/v1/commitments", job.commitment_body(original_amount=MONEY_MAX + 1))
    error = _refused(refused, 400, "parameter_invalid", "original_amount")
    assert "$100,000,000,000.00" in error["message"]
    assert "$100,000,000,000.01" in error["message"]


@pytest.mark.parametrize("value", [10.125, 100.01, 101, -1, -0.01, "10", True, None, 0.001, 1e3])
def test_bad_percentages_are_400_parameter_invalid(api, job, value):
    before = row_counts()
    created = api.post("/v1/commitments", job.commitment_body(retainage_pct=value))
    _refused(created, 400, "parameter_invalid", "retainage_pct")
    patched = api.patch(f"/v1/projects/{job.project.pk}", {"retainage_pct": value})
    _refused(patched, 400, "parameter_invalid", "retainage_pct")
    assert row_counts() == before


@pytest.mark.parametrize("value, stored", [(0, 0), (100, 100), (12.5, 12.5), (7.25, 7.25)])
def test_percentages_with_two_decimals_are_exact(api, job, value, stored):
    response = api.patch(f"/v1/projects/{job.project.pk}", {"retainage_pct": value})
    assert response.status_code == 200, response.content
    assert response.json()["retainage_pct"] == stored
    assert str(job.project.__class__.objects.get(pk=job.project.pk).retainage_pct) == (
        f"{value:.2f}"
    )


def test_missing_idempotency_key_is_400_on_post_and_patch(api, job):
    before = row_counts(idempotency=True)
    created = api.post("/v1/owners", {"name": "Harbor"}, idem=None)
    _refused(created, 400, "idempotency_key_missing", "Idempotency-Key")
    patched = api.patch(f"/v1/projects/{job.project.pk}", {"name": "Renamed"}, idem=None)
    _refused(patched, 400, "idempotency_key_missing", "Idempotency-Key")
    executed = api.post(f"/v1/commitments/{job.commitment.pk}/execute", idem=None)
    _refused(executed, 400, "idempotency_key_missing", "Idempotency-Key")
    assert row_counts(idempotency=True) == before
    assert IdempotencyRecord.objects.count() == 0


def test_idempotency_key_over_255_characters_is_400(api):
    before = row_counts(idempotency=True)
    response = api.post("/v1/owners", {"name": "Harbor"}, idem="k" * 256)
    _refused(response, 400, "parameter_invalid", "Idempotency-Key")
    assert row_counts(idempotency=True) == before
    assert api.post("/v1/owners", {"name": "Harbor"}, idem="k" * 255).status_code == 201
