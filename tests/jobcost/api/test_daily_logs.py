"""Daily logs through the API (docs/resources.md, daily_log): one per project and day, with
manpower rows (trade, optional vendor, headcount, worker-hours exact to two decimals), their totals,
PATCH
that replaces the rows, the date filters, and the event daily_log.created."""

import json
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from jobcost.models import DailyLog, DailyLogManpower, Project
from tests.conftest import error_of
from tests.factories import AccountFactory, ProjectFactory, VendorFactory
from tests.jobcost.api.state import body as exact_body
from webhooks.models import Event


@pytest.fixture
def project(account):
    return ProjectFactory(account=account)


@pytest.fixture
def vendor(account):
    return VendorFactory(account=account, name="Acme Concrete")


def create_log(api, project, day="2026-11-03", **extra):
    return post_exact(api, "/v1/daily-logs", {"project": project.pk, "date": day, **extra})


def new_log(api, project, day="2026-11-03", **extra) -> dict:
    response = create_log(api, project, day, **extra)
    assert response.status_code == 201, response.content
    return response.json()


def written() -> tuple[int, int, int, int]:
    return (
        DailyLog.objects.count(),
        DailyLogManpower.objects.count(),
        AuditEntry.objects.count(),
        Event.objects.count(),
    )


def crew_rows(vendor):
    return [
        {"trade": "Concrete", "vendor": vendor.pk, "headcount": 6, "hours": 48},
        {"trade": "General labor", "vendor": None, "headcount": 2, "hours": Decimal("7.5")},
        {"trade": "Survey", "headcount": 1, "hours": Decimal("0.25")},
    ]


def as_json(payload) -> str:
    """JSON text with each Decimal written as the number it is (json.dumps cannot)."""
    text = json.dumps(payload, default=lambda o: f"@@{o}@@")
    return text.replace('"@@', "").replace('@@"', "")


def post_exact(api, path, payload):
    return api.post(path, as_json(payload))


def patch_exact(api, path, payload):
    return api.patch(path, as_json(payload))


# --- create ------------------------------------------------------------------------------------


def test_create_with_manpower_rows_and_totals(api, project, vendor, account):
    response = post_exact(
        api,
        "/v1/daily-logs",
        {
            "project": project.pk,
            "date": "2026-11-03",
            "weather": "Overcast, 48°F, light wind",
            "manpower": crew_rows(vendor),
            "notes": "Poured footings F1-F6.",
            "delays": "Pump truck 40 minutes late.",
        },
    )
    assert response.status_code == 201, response.content
    data = exact_body(response)
    assert data["id"].startswith("dl_") and data["object"] == "daily_log"
    assert (data["project"], data["date"], data["weather"]) == (
        project.pk,
        "2026-11-03",
        "Overcast, 48°F, light wind",
    )
    assert (data["notes"], data["delays"]) == (
        "Poured footings F1-F6.",
        "Pump truck 40 minutes late.",
    )
    assert data["manpower"] == [
        {"trade": "Concrete", "vendor": vendor.pk, "headcount": 6, "hours": Decimal("48")},
        {"trade": "General labor", "vendor": None, "headcount": 2, "hours": Decimal("7.5")},
        {"trade": "Survey", "vendor": None, "headcount": 1, "hours": Decimal("0.25")},
    ]
    # 48 + 7.5 + 0.25 = 55.75 worker-hours, 6 + 2 + 1 = 9 workers.
    assert (data["total_headcount"], data["total_hours"]) == (9, Decimal("55.75"))
    # Hours are written as the exact number, never a binary float's artefact.
    assert b'"hours":7.5}' in response.content and b'"total_hours":55.75,' in response.content

    log = DailyLog.objects.get(pk=data["id"])
    assert (log.account_id, log.project_id, str(log.date)) == (
        account.pk,
        project.pk,
        "2026-11-03",
    )
    rows = list(
        log.manpower.order_by("position").values_list(
            "position", "trade", "vendor_id", "headcount", "hours"
        )
    )
    assert rows == [
        (1, "Concrete", vendor.pk, 6, Decimal("48.00")),
        (2, "General labor", None, 2, Decimal("7.50")),
        (3, "Survey", None, 1, Decimal("0.25")),
    ]

    trail = api.get(f"/v1/daily-logs/{data['id']}/audit").json()["data"]
    assert [entry["action"] for entry in trail] == ["created"]
    assert trail[0]["changes"]["manpower"]["after"] == [
        {"trade": "Concrete", "vendor": vendor.pk, "headcount": 6, "hours": 48},
        {"trade": "General labor", "vendor": None, "headcount": 2, "hours": 7.5},
        {"trade": "Survey", "vendor": None, "headcount": 1, "hours": 0.25},
    ]

    assert api.get(f"/v1/daily-logs/{data['id']}").json() == response.json()


def test_hours_sum_exactly(api, project):
    """0.1 + 0.2 worker-hours total exactly 0.3 (a float sum would be 0.30000000000000004)."""
    response = post_exact(
        api,
        "/v1/daily-logs",
        {
            "project": project.pk,
            "date": "2026-11-04",
            "manpower": [
                {"trade": "Layout", "headcount": 1, "hours": Decimal("0.1")},
                {"trade": "Layout", "headcount": 1, "hours": Decimal("0.2")},
            ],
        },
    )
    assert response.status_code == 201, response.content
    assert exact_body(response)["total_hours"] == Decimal("0.30")
    assert b'"total_hours":0.3,' in response.content


def test_a_log_without_manpower(api, project):
    data = new_log(api, project)
    assert (data["manpower"], data["total_headcount"], data["total_hours"]) == ([], 0, 0)
    assert (data["weather"], data["notes"], data["delays"]) == ("", "", "")
    assert DailyLogManpower.objects.count() == 0


@pytest.mark.parametrize(
    "row,param",
    [
        ({"trade": "Concrete", "headcount": 2, "hours": Decimal("0.125")}, "manpower[0].hours"),
        ({"trade": "Concrete", "headcount": -1, "hours": 8}, "manpower[0].headcount"),
        ({"trade": "Concrete", "headcount": 1, "hours": -8}, "manpower[0].hours"),
        ({"trade": "Concrete", "headcount": 1, "hours": "8"}, "manpower[0].hours"),
        ({"trade": "Concrete", "headcount": 1.5, "hours": 8}, "manpower[0].headcount"),
        ({"headcount": 1, "hours": 8}, "manpower[0].trade"),
    ],
)
def test_bad_manpower_rows_are_400_naming_the_row(api, project, row, param):
    payload = {"project": project.pk, "date": "2026-11-03", "manpower": [row]}
    response = post_exact(api, "/v1/daily-logs", payload)
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert error["param"] == param, error
    assert error["type"] == "invalid_request"
    assert DailyLog.objects.count() == 0 and DailyLogManpower.objects.count() == 0


def test_an_error_in_a_later_row_names_that_row(api, project, vendor):
    rows = [*crew_rows(vendor)[:1], {"trade": "Framing", "headcount": -3, "hours": 8}]
    response = create_log(api, project, manpower=rows)
    assert response.status_code == 400
    assert error_of(response)["param"] == "manpower[1].headcount"
    assert DailyLog.objects.count() == 0


def test_a_vendor_of_another_account_is_404_naming_the_row(api, project, vendor):
    stranger = VendorFactory(account=AccountFactory(), name="Not Ours")
    before = written()
    rows = [
        {"trade": "Concrete", "vendor": vendor.pk, "headcount": 6, "hours": 48},
        {"trade": "Steel", "vendor": stranger.pk, "headcount": 3, "hours": 24},
    ]
    response = create_log(api, project, manpower=rows)
    assert response.status_code == 404
    error = error_of(response)
    assert (error["code"], error["param"]) == ("resource_missing", "manpower[1].vendor")
    first_only = create_log(api, project, manpower=[rows[1]])
    assert first_only.status_code == 404
    assert error_of(first_only)["param"] == "manpower[0].vendor"
    assert written() == before


def test_a_second_log_of_the_same_day_is_409_naming_the_first(api, project, vendor, account):
    first = new_log(api, project, manpower=crew_rows(vendor)[:1], weather="Sunny")
    before = written()
    again = create_log(
        api,
        project,
        manpower=[{"trade": "Electrical", "headcount": 4, "hours": 32}],
        weather="Rain",
    )
    assert again.status_code == 409
    error = error_of(again)
    assert (error["code"], error["param"], error["object"]) == (
        "resource_already_exists",
        "date",
        first["id"],
    )
    assert written() == before
    log = DailyLog.objects.get(pk=first["id"])
    assert log.weather == "Sunny"
    assert list(log.manpower.values_list("trade", flat=True)) == ["Concrete"]

    # The same date on another project, and the next day on this one, are fine.
    other = new_log(api, ProjectFactory(account=account))
    assert other["date"] == "2026-11-03"
    assert new_log(api, project, "2026-11-04")["date"] == "2026-11-04"
    assert DailyLog.objects.filter(date="2026-11-03").count() == 2


def test_closed_project_refuses_a_log(api, account):
    closed = ProjectFactory(account=account, status="closed")
    before = written()
    response = create_log(api, closed, manpower=[{"trade": "Punch", "headcount": 1, "hours": 4}])
    assert response.status_code == 409
    assert error_of(response)["code"] == "project_closed"
    assert written() == before


def test_a_log_of_a_closed_project_cannot_change(api, project):
    log = new_log(api, project, weather="Sunny")
    Project.objects.filter(pk=project.pk).update(status="closed")
    before = written()
    response = api.patch(f"/v1/daily-logs/{log['id']}", {"weather": "Rain"})
    assert response.status_code == 409
    assert error_of(response)["code"] == "project_closed"
    assert DailyLog.objects.get(pk=log["id"]).weather == "Sunny"
    assert written() == before


def test_created_event_renders_the_log_with_its_manpower(api, project, vendor):
    response = create_log(api, project, manpower=crew_rows(vendor)[:2], weather="Sunny")
    log = response.json()
    events = Event.objects.filter(object_id=log["id"])
    assert list(events.values_list("type", flat=True)) == ["daily_log.created"]
    event = events.get()
    assert event.data["object"] == api.get(f"/v1/daily-logs/{log['id']}").json()
    assert [row["trade"] for row in event.data["object"]["manpower"]] == [
        "Concrete",
        "General labor",
    ]
    assert event.data["object"]["total_headcount"] == 8
    assert event.data["previous_attributes"] is None
    assert (event.project_id, event.request_id) == (project.pk, response["Request-Id"])

    # Edits are on the audit trail but are not catalogue events (no daily_log.updated).
    api.patch(f"/v1/daily-logs/{log['id']}", {"notes": "Added later"})
    assert Event.objects.filter(object_id=log["id"]).count() == 1


# --- list and retrieve --------------------------------------------------------------------------


def test_list_filters_by_project_and_inclusive_date_bounds(api, project, account, make_api):
    other_project = ProjectFactory(account=account)
    logs = {day: new_log(api, project, f"2026-11-{day:02d}")["id"] for day in (2, 3, 4, 5)}
    elsewhere = new_log(api, other_project, "2026-11-03")["id"]
    stranger = AccountFactory()
    new_log(make_api(stranger), ProjectFactory(account=stranger), "2026-11-03")

    def ids(**params):
        response = api.get("/v1/daily-logs", params)
        assert response.status_code == 200, response.content
        return {row["id"] for row in response.json()["data"]}

    assert ids() == set(logs.values()) | {elsewhere}
    assert ids(project=project.pk) == set(logs.values())
    assert ids(project=other_project.pk) == {elsewhere}
    assert ids(**{"date[gte]": "2026-11-03"}) == {logs[3], logs[4], logs[5], elsewhere}
    assert ids(**{"date[lte]": "2026-11-03"}) == {logs[2], logs[3], elsewhere}
    assert ids(project=project.pk, **{"date[gte]": "2026-11-03", "date[lte]": "2026-11-04"}) == {
        logs[3],
        logs[4],
    }
    assert ids(**{"date[gte]": "2026-11-04", "date[lte]": "2026-11-04"}) == {logs[4]}
    assert ids(**{"date[gte]": "2026-11-06"}) == set()

    bad = api.get("/v1/daily-logs", {"date[gte]": "November 3"})
    assert bad.status_code == 400 and error_of(bad)["param"] == "date[gte]"
    unknown = api.get("/v1/daily-logs", {"date": "2026-11-03"})
    assert unknown.status_code == 400
    assert (error_of(unknown)["code"], error_of(unknown)["param"]) == (
        "parameter_unknown",
        "date",
    )
    unknown_op = api.get("/v1/daily-logs", {"date[gt]": "2026-11-03"})
    assert unknown_op.status_code == 400
    assert error_of(unknown_op)["code"] == "parameter_unknown"


def test_retrieve_and_not_found(api, project, make_api):
    log = new_log(api, project)
    assert api.get(f"/v1/daily-logs/{log['id']}").json() == log
    wrong_prefix = api.get(f"/v1/daily-logs/{project.pk}")
    assert wrong_prefix.status_code == 404
    assert error_of(wrong_prefix)["code"] == "resource_missing"
    assert make_api(AccountFactory()).get(f"/v1/daily-logs/{log['id']}").status_code == 404


def test_expand_project_on_a_log(api, project):
    log = new_log(api, project)
    data = api.get(f"/v1/daily-logs/{log['id']}", {"expand[]": "project"}).json()
    assert (data["project"]["object"], data["project"]["id"]) == ("project", project.pk)
    rows = api.get("/v1/daily-logs", {"expand[]": "data.project"}).json()["data"]
    assert rows[0]["project"]["id"] == project.pk


# --- PATCH --------------------------------------------------------------------------------------


def test_patch_weather_and_notes(api, project, vendor):
    log = new_log(api, project, weather="Sunny", manpower=crew_rows(vendor)[:1])
    response = api.patch(
        f"/v1/daily-logs/{log['id']}",
        {"weather": "Rain from 2 pm", "notes": "Stopped pour at 2 pm."},
    )
    assert response.status_code == 200, response.content
    data = response.json()
    assert (data["weather"], data["notes"], data["date"]) == (
        "Rain from 2 pm",
        "Stopped pour at 2 pm.",
        "2026-11-03",
    )
    assert data["manpower"] == log["manpower"]
    row = DailyLog.objects.get(pk=log["id"])
    assert (row.weather, row.notes) == ("Rain from 2 pm", "Stopped pour at 2 pm.")
    assert DailyLogManpower.objects.filter(daily_log_id=log["id"]).count() == 1
    trail = api.get(f"/v1/daily-logs/{log['id']}/audit").json()["data"]
    assert [entry["action"] for entry in trail] == ["created", "updated"]
    assert trail[-1]["changes"]["weather"] == {"before": "Sunny", "after": "Rain from 2 pm"}
    assert "manpower" not in trail[-1]["changes"]


def test_patch_manpower_replaces_every_row(api, project, vendor):
    log = new_log(api, project, manpower=crew_rows(vendor)[:2])
    old_rows = set(DailyLogManpower.objects.values_list("pk", flat=True))
    response = patch_exact(
        api,
        f"/v1/daily-logs/{log['id']}",
        {"manpower": [{"trade": "Masonry", "vendor": vendor.pk, "headcount": 5, "hours": 37.5}]},
    )
    assert response.status_code == 200, response.content
    data = exact_body(response)
    assert data["manpower"] == [
        {"trade": "Masonry", "vendor": vendor.pk, "headcount": 5, "hours": Decimal("37.5")}
    ]
    assert (data["total_headcount"], data["total_hours"]) == (5, Decimal("37.5"))
    rows = list(
        DailyLogManpower.objects.filter(daily_log_id=log["id"]).values_list(
            "pk", "position", "trade", "headcount", "hours"
        )
    )
    assert [r[1:] for r in rows] == [(1, "Masonry", 5, Decimal("37.50"))]
    assert DailyLogManpower.objects.count() == 1
    assert not old_rows & {r[0] for r in rows}

    trail = api.get(f"/v1/daily-logs/{log['id']}/audit").json()["data"]
    assert [entry["action"] for entry in trail] == ["created", "updated"]
    assert trail[-1]["changes"]["manpower"] == {
        "before": [
            {"trade": "Concrete", "vendor": vendor.pk, "headcount": 6, "hours": 48},
            {"trade": "General labor", "vendor": None, "headcount": 2, "hours": 7.5},
        ],
        "after": [{"trade": "Masonry", "vendor": vendor.pk, "headcount": 5, "hours": 37.5}],
    }

    emptied = api.patch(f"/v1/daily-logs/{log['id']}", {"manpower": []})
    assert emptied.status_code == 200, emptied.content
    assert (emptied.json()["manpower"], emptied.json()["total_headcount"]) == ([], 0)
    assert DailyLogManpower.objects.count() == 0


def test_patch_manpower_with_a_bad_row_changes_nothing(api, project, vendor):
    log = new_log(api, project, manpower=crew_rows(vendor)[:1])
    stranger = VendorFactory(account=AccountFactory())
    before = written()
    for rows, status, param in (
        (
            [{"trade": "Steel", "vendor": stranger.pk, "headcount": 2, "hours": 16}],
            404,
            "manpower[0].vendor",
        ),
        ([{"trade": "Steel", "headcount": -2, "hours": 16}], 400, "manpower[0].headcount"),
    ):
        response = api.patch(f"/v1/daily-logs/{log['id']}", {"manpower": rows})
        assert response.status_code == status
        assert error_of(response)["param"] == param
    assert written() == before
    assert list(DailyLogManpower.objects.values_list("trade", flat=True)) == ["Concrete"]


def test_patch_date_onto_a_day_with_a_log_is_409(api, project, account):
    monday = new_log(api, project, "2026-11-02")
    tuesday = new_log(api, project, "2026-11-03", weather="Sunny")
    before = written()
    response = api.patch(f"/v1/daily-logs/{tuesday['id']}", {"date": "2026-11-02", "weather": "X"})
    assert response.status_code == 409
    error = error_of(response)
    assert (error["code"], error["param"], error["object"]) == (
        "resource_already_exists",
        "date",
        monday["id"],
    )
    row = DailyLog.objects.get(pk=tuesday["id"])
    assert (str(row.date), row.weather) == ("2026-11-03", "Sunny")
    assert written() == before

    # Its own date, or a free day, is fine.
    same = api.patch(f"/v1/daily-logs/{tuesday['id']}", {"date": "2026-11-03"})
    assert same.status_code == 200, same.content
    moved = api.patch(f"/v1/daily-logs/{tuesday['id']}", {"date": "2026-11-04"})
    assert moved.status_code == 200 and moved.json()["date"] == "2026-11-04"
    assert str(DailyLog.objects.get(pk=tuesday["id"]).date) == "2026-11-04"
    trail = api.get(f"/v1/daily-logs/{tuesday['id']}/audit").json()["data"]
    assert trail[-1]["changes"]["date"] == {"before": "2026-11-03", "after": "2026-11-04"}


def test_project_is_not_writable(api, project, account):
    log = new_log(api, project)
    other = ProjectFactory(account=account)
    response = api.patch(f"/v1/daily-logs/{log['id']}", {"project": other.pk})
    assert response.status_code == 400 and error_of(response)["param"] == "project"
    assert DailyLog.objects.get(pk=log["id"]).project_id == project.pk


# --- query counts -------------------------------------------------------------------------------


def _count(api, params, rows):
    with CaptureQueriesContext(connection) as ctx:
        response = api.get("/v1/daily-logs", params)
    assert response.status_code == 200, response.content
    assert len(response.json()["data"]) == rows
    return len(ctx.captured_queries)


def test_daily_log_list_query_count_does_not_grow_with_the_page(api, project, vendor, cold_keys):
    def add_log(day):
        new_log(api, project, f"2026-11-{day:02d}", manpower=crew_rows(vendor))

    add_log(1)
    api.get("/v1/daily-logs")  # warm any per-process caches
    one = _count(api, {}, 1)
    one_expanded = _count(api, {"expand[]": "data.project"}, 1)
    for day in range(2, 11):
        add_log(day)
    ten = _count(api, {}, 10)
    ten_expanded = _count(api, {"expand[]": "data.project"}, 10)
    assert ten == one, (one, ten)
    assert ten_expanded == one_expanded, (one_expanded, ten_expanded)
