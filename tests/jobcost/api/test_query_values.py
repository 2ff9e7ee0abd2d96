"""Query values and paths that must never reach PostgreSQL as they are (docs/decisions.md,
"Errors and methods"): timestamps with any UTC offset are normalized to UTC, or 400
when out of range; dates are `YYYY-MM-DD`; an empty or NUL-holding query value is 400
`parameter_invalid` naming it, on every list of the URL conf; a NUL in the path is 404."""

from __future__ import annotations

import datetime

import pytest

from config.urls import V1 as urlpatterns  # every /v1 route, both apps
from jobcost.api.filters import RESERVED_PARAMS
from jobcost.models import IdempotencyRecord, Project
from tests.conftest import error_of
from tests.factories import ProjectFactory
from tests.jobcost.api.conventions_support import make_job

# Every list route of the URL conf with the filters it takes.
LISTS = sorted(
    (
        "/v1/" + pattern.pattern.regex.pattern.strip("^$").replace("\\", ""),
        sorted(pattern.callback.cls.filterset_class.base_filters),
    )
    for pattern in urlpatterns
    if pattern.name.endswith("-list") and pattern.callback.cls.filterset_class is not None
)
LIST_FILTERS = [(path, name) for path, names in LISTS for name in names]
TIMESTAMP_LISTS = [path for path, names in LISTS if "created[gte]" in names]


def _refused(response, param: str, code: str = "parameter_invalid") -> dict:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == ("invalid_request", code, param)
    return error


def test_the_walk_covers_every_list():
    assert len(LISTS) == 16
    assert ("/v1/daily-logs", "date[gte]") in LIST_FILTERS
    assert ("/v1/events", "type") in LIST_FILTERS


def _offset_form(moment: datetime.datetime, hours: int, minutes: int = 0) -> str:
    """`moment` written with a UTC offset of +hours:minutes (negative hours for west)."""
    sign = 1 if hours >= 0 else -1
    offset = datetime.timedelta(hours=hours, minutes=sign * minutes)
    return moment.astimezone(datetime.timezone(offset)).isoformat()


@pytest.mark.parametrize("hours, minutes", [(16, 0), (23, 59), (-23, -59), (-16, 0), (0, 0)])
def test_timestamp_filters_take_any_offset_under_a_day_as_the_same_instant(
    api, account, hours, minutes
):
    project = ProjectFactory(account=account)
    created = Project.objects.get(pk=project.pk).created_at
    before = _offset_form(created - datetime.timedelta(seconds=1), hours, minutes)
    after = _offset_form(created + datetime.timedelta(seconds=1), hours, minutes)

    def ids(params):
        response = api.get("/v1/projects", params)
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["data"]]

    assert ids({"created[gte]": before}) == [project.pk]
    assert ids({"created[gte]": after}) == []
    assert ids({"created[lt]": after}) == [project.pk]
    assert ids({"created[lt]": before}) == []


BAD_TIMESTAMPS = [
    "2026-01-01T00:00:00+99:00",
    "2026-01-01T00:00:00+24:00",
    "2026-01-01T00:00:00-9999",
    "0000-01-01T00:00:00Z",
    "10000-01-01T00:00:00Z",
    "9999-12-31T23:00:00-15:00",  # year 10000 in UTC
    "0001-01-01T00:00:00+15:00",  # year 0 in UTC
    "2026-02-30T00:00:00Z",
    "2026-01-01T24:30:00Z",
    "yesterday",
    "01/02/2026",
    " ",
]


@pytest.mark.parametrize("path", TIMESTAMP_LISTS)
def test_out_of_range_or_unparseable_timestamps_are_400_on_every_list(api, account, path):
    make_job(account)
    for value in BAD_TIMESTAMPS:
        for param in ("created[gte]", "created[lt]"):
            error = _refused(api.get(path, {param: value}), param)
            assert "ISO 8601" in error["message"], error


@pytest.mark.parametrize(
    "value",
    ["0000-01-01", "10000-01-01", "2026-02-30", "01/02/2026", "2026-1-1", "2026-01-01T00:00Z"],
)
def test_bad_dates_are_400_on_the_date_filters(api, account, value):
    make_job(account)
    for param in ("date[gte]", "date[lte]"):
        _refused(api.get("/v1/daily-logs", {param: value}), param)


def test_iso_dates_filter_daily_logs(api, account):
    response = api.get("/v1/daily-logs", {"date[gte]": "1970-01-01", "date[lte]": "2099-12-31"})
    assert response.status_code == 200, response.content


@pytest.mark.parametrize("param, value", [("date[gte]", "0001-01-01"), ("date[lte]", "9999-12-31")])
def test_a_date_filter_outside_the_business_dates_is_400_naming_the_range(
    api, account, param, value
):
    error = _refused(api.get("/v1/daily-logs", {param: value}), param)
    assert "from 1970-01-01 to 2099-12-31" in error["message"]


@pytest.mark.parametrize("path, param", LIST_FILTERS)
def test_an_empty_filter_is_400_not_ignored(api, account, path, param):
    make_job(account)
    error = _refused(api.get(path, {param: ""}), param)
    assert "empty" in error["message"]


@pytest.mark.parametrize("param", ["limit", "cursor"])
@pytest.mark.parametrize("path", ["/v1/projects", "/v1/cost-codes", "/v1/webhooks"])
def test_an_empty_limit_or_cursor_is_400(api, account, path, param):
    _refused(api.get(path, {param: ""}), param)


def test_an_empty_expand_keeps_its_own_code(api, account):
    job = make_job(account)
    _refused(api.get("/v1/projects", {"expand[]": ""}), "expand[]", "expand_invalid")
    _refused(
        api.get(f"/v1/projects/{job.project.pk}", {"expand[]": ""}), "expand[]", "expand_invalid"
    )


def test_an_empty_value_on_a_retrieve_or_beside_a_good_value_is_400(api, account):
    job = make_job(account)
    _refused(api.get(f"/v1/projects/{job.project.pk}", {"limit": ""}), "limit")
    _refused(api.get("/v1/projects", {"status": ["active", ""]}), "status")


@pytest.mark.parametrize("path, param", LIST_FILTERS)
def test_a_nul_in_a_filter_is_400_parameter_invalid(api, account, path, param):
    make_job(account)
    for value in ("\x00", "prj_\x00", "active\x00", "2026-01-01\x00"):
        _refused(api.get(path, {param: value}), param)


@pytest.mark.parametrize("param", sorted(RESERVED_PARAMS))
def test_a_nul_in_limit_cursor_or_expand_is_400_parameter_invalid(api, account, param):
    make_job(account)
    for path in ("/v1/cost-codes", "/v1/projects"):
        _refused(api.get(path, {param: "cur_\x00" if param == "cursor" else "1\x00"}), param)


def test_a_nul_in_a_query_parameter_name_is_400(api, account):
    response = api.client.get("/v1/projects?sta%00tus=active", headers=api._headers({}))
    _refused(response, "sta\x00tus")


@pytest.mark.parametrize(
    "template",
    [
        "/v1/projects/{project}%00",
        "/v1/projects/%00{project}",
        "/v1/pro%00jects",
        "/v1/commitments/{commitment}%00/execute",
        "/v1/commitments/{commitment}/execute%00",
        "/v1/cost-codes/{cost_code}%00/audit",
        "/v1/webhooks/we_abc%00",
        "/%00",
        "/healthz%00",
    ],
)
@pytest.mark.parametrize("method", ["get", "post", "patch", "delete"])
def test_a_nul_in_the_path_is_404_route_missing(api, account, template, method):
    job = make_job(account)
    path = template.format(
        project=job.project.pk, commitment=job.commitment.pk, cost_code=job.cost_code.pk
    )
    before = IdempotencyRecord.objects.count()
    response = getattr(api, method)(path) if method in ("get", "delete") else None
    if response is None:
        response = getattr(api, method)(path, {"name": "x"})
    assert response.status_code == 404, response.content
    error = error_of(response)
    assert (error["type"], error["code"]) == ("not_found", "route_missing")
    assert "\x00" not in error["message"] and "%00" in error["message"]
    assert IdempotencyRecord.objects.count() == before
