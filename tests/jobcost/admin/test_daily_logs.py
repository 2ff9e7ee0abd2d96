"""Daily logs in the back office: written through `services.daily_logs` with the manpower
rows in the same form (replaced as a whole), one log per project and day with the service's
409 message, and the day's totals on the list."""

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.models import DailyLog, DailyLogManpower
from jobcost.services.daily_logs import daily_log_create
from tests.conftest import Api
from tests.factories import AccountFactory, ProjectFactory, VendorFactory, make_job, make_key
from tests.jobcost.admin.pages import admin_url, errors_of, form_data, readonly, text

LIST = "/admin/jobcost/dailylog/"
ADD = "/admin/jobcost/dailylog/add/"


@pytest.fixture
def site(db):
    """`make_job`'s active project with the vendor Acme Concrete, in Harbor Build Co."""
    account = AccountFactory(name="Harbor Build Co")
    job = make_job(account)
    job.account = account
    return job


def _log(project, day: str, *rows, weather: str = "") -> DailyLog:
    """A log made by the service; rows are (trade, vendor, headcount, hours)."""
    return daily_log_create(
        project=project,
        date=datetime.date.fromisoformat(day),
        weather=weather,
        manpower=[
            {"trade": t, "vendor": v, "headcount": n, "hours": Decimal(h)} for t, v, n, h in rows
        ],
    )


def _with_rows(data: dict, *rows, start: int = 0) -> dict:
    """The posted form with manpower rows `start`, `start + 1`, … filled in as typed:
    (trade, vendor ID or "", headcount, hours)."""
    data = dict(data)
    for index, (trade, vendor, headcount, hours) in enumerate(rows, start=start):
        data.update(
            {
                f"manpower-{index}-trade": trade,
                f"manpower-{index}-vendor": vendor,
                f"manpower-{index}-headcount": str(headcount),
                f"manpower-{index}-hours": str(hours),
            }
        )
    return data


def _rows_of(log: DailyLog) -> list[tuple]:
    return list(
        DailyLogManpower.objects.filter(daily_log=log)
        .order_by("position")
        .values_list("position", "trade", "vendor_id", "headcount", "hours")
    )


def _add_page(web, site, day: str, *rows, weather: str = "Clear, 18°C") -> dict:
    page = web.get(ADD)
    assert page.status_code == 200
    data = form_data(page, "dailylog_form")
    data.update({"project": site.project.pk, "date": day, "weather": weather})
    return _with_rows(data, *rows)


def test_list_shows_each_day_with_its_total_headcount_and_hours(web, site):
    _log(
        site.project,
        "2026-03-02",
        ("Concrete", site.vendor, 8, "64"),
        ("Carpentry", None, 4, "30.5"),
        weather="Rain in the afternoon",
    )
    other = ProjectFactory(account=site.account, owner=site.project.owner, number="J-7100")
    _log(other, "2026-03-03", ("Electrical", None, 2, "16"), weather="Windy")

    response = web.get(LIST)

    assert response.status_code == 200
    body = response.content.decode()
    assert 'field-total_headcount_display">12<' in body
    assert 'field-total_hours_display">94.50<' in body
    assert 'field-total_hours_display">16.00<' in body
    page = text(response)
    assert "March 2, 2026" in page and "Rain in the afternoon" in page
    by_project = text(web.get(LIST, {"project__id__exact": other.pk}))
    assert "Windy" in by_project and "Rain in the afternoon" not in by_project
    by_weather = text(web.get(LIST, {"q": "rain"}))
    assert "Rain in the afternoon" in by_weather and "Windy" not in by_weather


def test_add_writes_the_log_with_its_manpower_and_an_audit_entry(web, site):
    page = web.get(ADD)
    assert "Acme Concrete (Harbor Build Co)" in text(page)
    assert "Own forces" in text(page)

    response = web.post(
        ADD,
        _add_page(
            web,
            site,
            "2026-03-02",
            ("Concrete", site.vendor.pk, 8, "64"),
            ("Carpentry", "", 4, "30.25"),
        )
        | {"notes": "Poured the level 2 slab.", "delays": "Pump arrived 1 h late."},
    )

    assert response.status_code == 302, errors_of(response)
    log = DailyLog.objects.get(project=site.project)
    assert (str(log.date), log.weather, log.notes, log.delays, log.account_id) == (
        "2026-03-02",
        "Clear, 18°C",
        "Poured the level 2 slab.",
        "Pump arrived 1 h late.",
        site.account.pk,
    )
    assert _rows_of(log) == [
        (1, "Concrete", site.vendor.pk, 8, Decimal("64.00")),
        (2, "Carpentry", None, 4, Decimal("30.25")),
    ]
    entry = AuditEntry.objects.get(target_id=log.pk)
    assert (entry.action, entry.actor_type, entry.actor_id) == ("created", "user", "accountant")
    assert [row["trade"] for row in entry.changes["manpower"]["after"]] == [
        "Concrete",
        "Carpentry",
    ]
    _key, secret = make_key(site.account, "viewer")
    shown = Api(secret).get(f"/v1/daily-logs/{log.pk}").json()
    assert (shown["total_headcount"], shown["total_hours"]) == (12, 94.25)


def test_a_second_log_for_the_same_day_shows_the_409_message_and_writes_nothing(web, site):
    first = _log(site.project, "2026-03-02", ("Concrete", None, 6, "48"), weather="Sunny")
    audit_before = AuditEntry.objects.count()

    response = web.post(
        ADD, _add_page(web, site, "2026-03-02", ("Roofing", site.vendor.pk, 3, "24"))
    )

    assert response.status_code == 200
    assert errors_of(response) == [
        "This project already has a daily log for 2026-03-02; update that one."
    ]
    assert 'class="form-row errors field-date"' in response.content.decode()
    assert list(DailyLog.objects.values_list("pk", "weather")) == [(first.pk, "Sunny")]
    assert _rows_of(first) == [(1, "Concrete", None, 6, Decimal("48.00"))]
    assert DailyLogManpower.objects.count() == 1
    assert AuditEntry.objects.count() == audit_before
    # The typed rows are shown again, to fix the date and resend.
    again = form_data(response, "dailylog_form")
    assert (again["manpower-0-trade"], again["manpower-0-hours"]) == ("Roofing", "24")


def test_a_vendor_of_another_account_is_refused_on_the_manpower_field(web, site):
    stranger = VendorFactory(account=AccountFactory(name="Other Builders"), name="Far Away Ltd")
    audit_before = AuditEntry.objects.count()

    response = web.post(ADD, _add_page(web, site, "2026-03-04", ("Steel", stranger.pk, 5, "40")))

    assert response.status_code == 200
    assert errors_of(response) == ["This vendor belongs to another account."]
    assert 'class="form-row errors field-manpower"' in response.content.decode()
    assert not DailyLog.objects.exists() and not DailyLogManpower.objects.exists()
    assert AuditEntry.objects.count() == audit_before


def test_a_bad_row_is_shown_on_the_row_and_nothing_is_written(web, site):
    response = web.post(
        ADD,
        _add_page(web, site, "2026-03-05", ("Concrete", "", 4, "-1"), ("", "", 2, "16")),
    )

    assert response.status_code == 200
    assert set(errors_of(response)) == {
        "Correct the manpower rows below.",
        "Ensure this value is greater than or equal to 0.",
        "This field is required.",
    }
    assert not DailyLog.objects.exists()


def test_change_replaces_the_manpower_as_a_whole(web, site):
    log = _log(
        site.project,
        "2026-03-02",
        ("Concrete", site.vendor, 8, "64"),
        ("Carpentry", None, 4, "30"),
        weather="Clear",
    )
    page = web.get(admin_url(log))
    assert page.status_code == 200
    assert readonly(page, "total_headcount_display") == "12"
    assert readonly(page, "total_hours_display") == "94.00"
    data = form_data(page, "dailylog_form")
    assert (data["manpower-0-trade"], data["manpower-0-vendor"], data["manpower-0-hours"]) == (
        "Concrete",
        site.vendor.pk,
        "64.00",
    )
    assert data["manpower-INITIAL_FORMS"] == "2"

    data = _with_rows(data, ("Concrete", site.vendor.pk, 10, "80"))  # edited
    data["manpower-1-DELETE"] = "on"  # carpentry gone
    data = _with_rows(data, ("Masonry", "", 3, "22.5"), start=2)  # a new crew
    response = web.post(admin_url(log), data)

    assert response.status_code == 302, errors_of(response)
    assert _rows_of(log) == [
        (1, "Concrete", site.vendor.pk, 10, Decimal("80.00")),
        (2, "Masonry", None, 3, Decimal("22.50")),
    ]
    entry = AuditEntry.objects.filter(target_id=log.pk).latest("created_at")
    assert (entry.action, entry.actor_type, entry.actor_id) == ("updated", "user", "accountant")
    manpower = entry.changes["manpower"]
    assert [(r["trade"], r["headcount"]) for r in manpower["before"]] == [
        ("Concrete", 8),
        ("Carpentry", 4),
    ]
    assert [(r["trade"], r["headcount"]) for r in manpower["after"]] == [
        ("Concrete", 10),
        ("Masonry", 3),
    ]


def test_saving_an_unchanged_log_writes_nothing(web, site):
    log = _log(site.project, "2026-03-02", ("Concrete", site.vendor, 8, "64"), weather="Clear")
    rows_before = list(DailyLogManpower.objects.values_list("pk", flat=True))
    audit_before = AuditEntry.objects.count()

    response = web.post(admin_url(log), form_data(web.get(admin_url(log)), "dailylog_form"))

    assert response.status_code == 302, errors_of(response)
    assert list(DailyLogManpower.objects.values_list("pk", flat=True)) == rows_before
    assert AuditEntry.objects.count() == audit_before


def test_moving_a_log_onto_a_day_that_has_one_is_refused_on_the_date(web, site):
    _log(site.project, "2026-03-02", weather="Monday")
    tuesday = _log(site.project, "2026-03-03", ("Concrete", None, 2, "16"), weather="Tuesday")
    audit_before = AuditEntry.objects.count()
    data = form_data(web.get(admin_url(tuesday)), "dailylog_form")

    response = web.post(admin_url(tuesday), {**data, "date": "2026-03-02", "weather": "Moved"})

    assert response.status_code == 200
    assert errors_of(response) == [
        "This project already has a daily log for 2026-03-02; update that one."
    ]
    tuesday.refresh_from_db()
    assert (str(tuesday.date), tuesday.weather) == ("2026-03-03", "Tuesday")
    assert AuditEntry.objects.count() == audit_before


def _list_queries(web) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert web.get(LIST).status_code == 200
    return len(captured)


def test_list_costs_the_same_queries_whatever_the_rows(web, site):
    _log(site.project, "2026-03-02", ("Concrete", site.vendor, 8, "64"))
    before = _list_queries(web)
    for _ in range(2):
        other = make_job(AccountFactory())
        _log(other.project, "2026-03-02", ("Concrete", other.vendor, 1, "8"))
        _log(
            other.project, "2026-03-03", ("Carpentry", None, 2, "16"), ("Electrical", None, 1, "8")
        )
    assert _list_queries(web) == before
