"""Bad query strings (docs/conventions.md): unknown filters, bad filter values and `expand[]` paths
that are too deep or not expandable are 400 with their code and param."""

from __future__ import annotations

import pytest

from tests.conftest import error_of
from tests.jobcost.api.conventions_support import make_job


@pytest.fixture
def job(account):
    return make_job(account)


def _refused(response, code: str, param: str) -> dict:
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["type"], error["code"], error["param"]) == ("invalid_request", code, param)
    return error


@pytest.mark.parametrize(
    "path, param",
    [
        ("/v1/projects", "colour"),
        ("/v1/commitments", "amount"),
        ("/v1/commitments", "created[gt]"),
        ("/v1/commitments", "created"),
        ("/v1/owners", "status"),
        ("/v1/budgets", "vendor"),
        ("/v1/vendors", "expand"),
    ],
)
def test_unknown_filter_is_400_parameter_unknown(api, job, path, param):
    _refused(api.get(path, {param: "x"}), "parameter_unknown", param)


def test_unknown_query_parameter_on_a_retrieve_is_refused(api, job):
    response = api.get(f"/v1/projects/{job.project.pk}", {"colour": "red"})
    _refused(response, "parameter_unknown", "colour")


@pytest.mark.parametrize(
    "path, param, value",
    [
        ("/v1/commitments", "status", "signed"),
        ("/v1/projects", "status", "paused"),
        ("/v1/commitments", "created[gte]", "yesterday"),
        ("/v1/projects", "created[lt]", "2026-13-45"),
    ],
)
def test_bad_filter_value_is_400_parameter_invalid(api, job, path, param, value):
    _refused(api.get(path, {param: value}), "parameter_invalid", param)


def test_known_filters_filter(api, job):
    response = api.get("/v1/commitments", {"status": "draft", "project": job.project.pk})
    assert [c["id"] for c in response.json()["data"]] == [job.commitment.pk]
    assert api.get("/v1/commitments", {"status": "executed"}).json()["data"] == []


@pytest.mark.parametrize(
    "path",
    ["cost_code.project.owner", "project.owner.x", "a.b.c"],
)
def test_expand_three_levels_deep_is_400_expand_too_deep(api, job, path):
    response = api.get(f"/v1/commitments/{job.commitment.pk}", {"expand[]": path})
    _refused(response, "expand_too_deep", "expand[]")
    listed = api.get("/v1/commitments", {"expand[]": f"data.{path}"})
    _refused(listed, "expand_too_deep", "expand[]")


@pytest.mark.parametrize(
    "path", ["number", "vendor_name", "original_amount", "nope", "vendor.name", "project.x", ""]
)
def test_expanding_a_field_that_is_not_an_expandable_id_is_400_expand_invalid(api, job, path):
    response = api.get(f"/v1/commitments/{job.commitment.pk}", {"expand[]": path})
    _refused(response, "expand_invalid", "expand[]")


def test_list_expand_paths_must_start_with_data(api, job):
    _refused(api.get("/v1/commitments", {"expand[]": "vendor"}), "expand_invalid", "expand[]")
    _refused(api.get("/v1/commitments", {"expand[]": "data"}), "expand_invalid", "expand[]")


def test_two_level_expansion_works_on_retrieve_and_list(api, job):
    one = api.get(
        f"/v1/commitments/{job.commitment.pk}",
        {"expand[]": ["cost_code.project", "vendor"]},
    ).json()
    assert one["vendor"]["object"] == "vendor"
    assert one["cost_code"]["object"] == "cost_code"
    assert one["cost_code"]["project"]["id"] == job.project.pk
    listed = api.get("/v1/commitments", {"expand[]": "data.project.owner"}).json()
    assert listed["data"][0]["project"]["owner"]["id"] == job.project.owner_id
