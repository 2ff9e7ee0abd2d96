"""Small input rules of the money endpoints: strict booleans, one entry per G703 item,
receipt dates only with a receipt."""

from jobcost.services.lien_waivers import lien_waiver_create
from tests.conftest import error_of
from tests.factories import make_job, make_pay_app
from tests.jobcost.api.state import db_state


def test_allow_missing_waivers_takes_only_a_json_boolean(api, account):
    job = make_job(account)
    pay_app = make_pay_app(job.project, "2026-11-01", "2026-11-30")
    lien_waiver_create(
        project=job.project,
        vendor=job.vendor,
        type="conditional_progress",
        amount=1_000,
        through_date=pay_app.period_start,
    )
    before = db_state()
    for value in ("yes", "1", 1, "true"):
        resp = api.post(f"/v1/pay-apps/{pay_app.pk}/submit", {"allow_missing_waivers": value})
        assert resp.status_code == 400, (value, resp.content)
        assert (error_of(resp)["code"], error_of(resp)["param"]) == (
            "parameter_invalid",
            "allow_missing_waivers",
        )
    assert db_state() == before
    assert (
        api.post(f"/v1/pay-apps/{pay_app.pk}/submit", {"allow_missing_waivers": True}).json()[
            "status"
        ]
        == "submitted"
    )


def test_a_g703_item_appears_once_per_patch(api, account):
    job = make_job(account)
    pay_app = make_pay_app(job.project, "2026-11-01", "2026-11-30")
    before = db_state()
    resp = api.patch(
        f"/v1/pay-apps/{pay_app.pk}",
        {
            "lines": [
                {"item": "1", "this_period": 100},
                {"item": "1", "this_period": 200},
            ]
        },
    )
    assert resp.status_code == 400
    assert (error_of(resp)["code"], error_of(resp)["param"]) == (
        "parameter_invalid",
        "lines[1].item",
    )
    assert db_state() == before


def test_received_on_only_with_a_receipt(api, account):
    job = make_job(account)
    waiver = lien_waiver_create(
        project=job.project,
        vendor=job.vendor,
        type="conditional_progress",
        amount=1_000,
        through_date=job.project.created_at.date(),
    )
    before = db_state()
    for body in (
        {"received_on": "2026-11-03"},
        {"status": "rejected", "received_on": "2026-11-03"},
    ):
        resp = api.patch(f"/v1/lien-waivers/{waiver.pk}", body)
        assert resp.status_code == 400, resp.content
        assert error_of(resp)["param"] == "received_on"
    assert db_state() == before
    received = api.patch(
        f"/v1/lien-waivers/{waiver.pk}", {"status": "received", "received_on": "2026-11-03"}
    ).json()
    assert (received["status"], received["received_on"]) == ("received", "2026-11-03")
    corrected = api.patch(f"/v1/lien-waivers/{waiver.pk}", {"received_on": "2026-11-04"})
    assert corrected.json()["received_on"] == "2026-11-04"
