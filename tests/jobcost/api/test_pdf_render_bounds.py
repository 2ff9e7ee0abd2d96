"""Rendering a PDF is bounded (docs/operations/limits.md, "Rendering PDFs"): a draft pay app's PDF
costs the account `JOBCOST_RENDER_WEIGHT` (20) tokens all or nothing, at most
`JOBCOST_RENDERS_PER_ACCOUNT` (2) render for one account at once, and a rendering past
`JOBCOST_RENDER_TIME_LIMIT` stops with 503 `render_timed_out`. The weighted take itself:
`jobcost.api.ratelimit.take(bucket, cost=N)`."""

from __future__ import annotations

import datetime
import secrets

import pytest
from django.test import override_settings

from jobcost.api import ratelimit
from jobcost.api.render_gate import render_slot
from jobcost.documents.deadline import check, time_limit
from jobcost.documents.report_pdf import render_pdf
from jobcost.errors import RateLimited, Unavailable
from jobcost.scope import Scope
from jobcost.selectors.reports.wip import wip_report
from tests.conftest import error_of
from tests.factories import make_job, make_pay_app

pytestmark = pytest.mark.redis
WEIGHT = 20


@pytest.fixture
def draft(account):
    """A draft pay app of a small job; the account at 1 token/s so nothing refills unseen."""
    account.rate_limit_per_second = 1
    account.rate_limit_burst = 200
    account.save()
    job = make_job(account)
    return make_pay_app(job.project, "2026-11-01", "2026-11-30")


def _pdf(api, pay_app):
    return api.get(f"/v1/pay-apps/{pay_app.pk}/pdf")


def test_a_draft_pdf_costs_its_weight_in_tokens(draft, api):
    listed = api.get("/v1/projects")
    before = int(listed["RateLimit-Remaining"])
    response = _pdf(api, draft)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/pdf"
    # The request's own token and 19 more; at most a token refilled meanwhile.
    spent = before - int(response["RateLimit-Remaining"])
    assert WEIGHT - 1 <= spent <= WEIGHT, (before, response["RateLimit-Remaining"])


def test_a_pdf_the_bucket_cannot_pay_is_refused_whole(draft, api, account):
    account.rate_limit_burst = 30
    account.save()
    assert _pdf(api, draft).status_code == 200  # 30 → 10 tokens
    refused = _pdf(api, draft)  # 1 for the request, then 19 wanted of 9
    assert refused.status_code == 429, refused.content
    assert error_of(refused)["code"] == "rate_limited"
    # Retry-After counts the wait for all 19 tokens at 1/s, not for one.
    assert int(refused["Retry-After"]) >= 9
    # Nothing of the 19 was taken: plain reads still go through on what is left.
    for _ in range(5):
        assert api.get("/v1/projects").status_code == 200


def test_a_third_rendering_at_once_is_429_too_many_renders(draft, api, account):
    with render_slot(account.pk), render_slot(account.pk):
        refused = _pdf(api, draft)
        assert refused.status_code == 429, refused.content
        error = error_of(refused)
        assert (error["type"], error["code"]) == ("rate_limited", "too_many_renders")
        assert refused["Retry-After"] == "1"
        assert "2 PDFs rendering" in error["message"]
        with render_slot(account.pk + "-another"):  # another account's slots are its own
            pass
    assert _pdf(api, draft).status_code == 200  # the slots were given back


def test_a_stored_document_is_served_without_a_slot_weight_or_time_limit(account, api):
    """A submitted or approved pay app answers the document stored when it was certified
    (docs/documents.md): one request's token, no rendering slot, no time limit."""
    account.rate_limit_per_second = 1
    account.rate_limit_burst = 200
    account.save()
    job = make_job(account)
    approved = make_pay_app(job.project, "2026-10-01", "2026-10-31", status="approved")
    before = int(api.get("/v1/projects")["RateLimit-Remaining"])
    with (
        render_slot(account.pk),
        render_slot(account.pk),
        override_settings(JOBCOST_RENDER_TIME_LIMIT=0),
    ):
        served = _pdf(api, approved)
    assert served.status_code == 200, served.content
    assert served.content == bytes(approved.documents.get(stage="certified").pdf)
    assert served["Content-Disposition"] == (
        f'attachment; filename="{job.project.number}-pay-app-1.pdf"'
    )
    assert before - int(served["RateLimit-Remaining"]) <= 1


def test_slots_are_given_back_when_the_rendering_fails(draft, api, account):
    with override_settings(JOBCOST_RENDER_TIME_LIMIT=0):
        for _ in range(3):
            assert _pdf(api, draft).status_code == 503
    with render_slot(account.pk), render_slot(account.pk):
        pass  # both free again
    assert _pdf(api, draft).status_code == 200


@override_settings(JOBCOST_RENDER_TIME_LIMIT=0)
def test_a_rendering_past_its_time_limit_is_503_render_timed_out(draft, api):
    response = _pdf(api, draft)
    assert response.status_code == 503, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == ("api_error", "render_timed_out", None)
    assert "0-second rendering limit" in error["message"]
    assert response["Retry-After"] == "1"


def test_a_report_pdf_runs_under_the_time_limit(account):
    make_job(account)
    report = wip_report(Scope(account_id=account.pk), as_of=datetime.date.today())
    columns = report.spec.columns
    with override_settings(JOBCOST_RENDER_TIME_LIMIT=0), pytest.raises(Unavailable):
        render_pdf(report, account_name=account.name, columns=columns)
    assert render_pdf(report, account_name=account.name, columns=columns).startswith(b"%PDF")


def test_check_outside_a_time_limit_does_nothing_and_inner_limits_keep_the_outer():
    check()
    with time_limit(0), time_limit(60), pytest.raises(Unavailable) as raised:
        check()
    assert "0-second" in raised.value.message


@pytest.mark.parametrize("cost", [5, 50])
def test_a_weighted_take_is_all_or_nothing(cost):
    bucket = "test-weighted-" + secrets.token_hex(6)
    burst = 2 * cost + 2  # two takes fit, then 2 tokens are left
    for left in (cost + 2, 2):
        decision = ratelimit.take(bucket, rate=1, burst=burst, cost=cost)
        assert decision.allowed and decision.tokens == pytest.approx(left, abs=0.1)
    refused = ratelimit.take(bucket, rate=1, burst=burst, cost=cost)
    assert not refused.allowed and refused.tokens == pytest.approx(2, abs=0.1)
    # Retry-After is the wait for all `cost` tokens at 1/s, not for one.
    assert int(refused.headers()["Retry-After"]) == cost - 2
    # The refusal took nothing: a plain take still finds those 2 tokens.
    plain = ratelimit.take(bucket, rate=1, burst=burst)
    assert plain.allowed and plain.tokens == pytest.approx(1, abs=0.1)


def test_a_weight_over_the_burst_costs_the_whole_burst():
    bucket = "test-weighted-" + secrets.token_hex(6)
    decision = ratelimit.take(bucket, rate=1, burst=10, cost=25)
    assert decision.allowed and decision.tokens == pytest.approx(0, abs=0.1)
    assert not ratelimit.take(bucket, rate=1, burst=10, cost=25).allowed


@override_settings(REDIS_URL="")
def test_without_redis_the_slots_are_counted_in_the_process():
    account_id = "acct_local_" + secrets.token_hex(4)
    with render_slot(account_id), render_slot(account_id):
        with pytest.raises(RateLimited) as refused, render_slot(account_id):
            pass
        assert refused.value.code == "too_many_renders"
    with render_slot(account_id), render_slot(account_id):
        pass  # given back
