"""The reports' operations in the OpenAPI schema say exactly what the routes take and answer:
their parameters, the list object with totals, and the CSV and XLSX files."""

import json

import pytest
from django.test import Client

from jobcost.documents.report_files import CSV_TYPE, XLSX_TYPE
from jobcost.selectors.reports.job_cost import JOB_COST, TRANSACTIONS
from jobcost.selectors.reports.payables import AP_AGING, RETAINAGE
from jobcost.selectors.reports.receivables import AR_AGING
from jobcost.selectors.reports.wip import WIP

REPORTS = {
    "/v1/reports/wip": (WIP, {"project"}, set()),
    "/v1/reports/job-cost": (JOB_COST, set(), {"project"}),
    "/v1/reports/job-cost/transactions": (TRANSACTIONS, {"cost_code", "vendor"}, {"project"}),
    "/v1/reports/ap-aging": (AP_AGING, {"project", "vendor"}, set()),
    "/v1/reports/ar-aging": (AR_AGING, {"project", "owner"}, set()),
    "/v1/reports/retainage": (RETAINAGE, {"project", "vendor"}, set()),
}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return json.loads(Client().get("/v1/openapi.json").content)


def _resolve(schema, node):
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


@pytest.mark.parametrize("path", list(REPORTS))
def test_report_operations_are_exact(schema, path):
    spec, optional, required = REPORTS[path]
    operation = schema["paths"][path]["get"]
    assert set(schema["paths"][path]) == {"get"}
    params = {p["name"]: p for p in operation["parameters"]}
    fixed = {"Jobcost-Version", "as_of", "format", "limit", "cursor"}
    assert set(params) == fixed | optional | required
    assert {name for name, p in params.items() if p.get("required")} == required
    assert _resolve(schema, params["format"]["schema"])["enum"] == ["json", "csv", "xlsx"]
    assert params["as_of"]["schema"] == {"type": "string", "format": "date"}
    content = operation["responses"]["200"]["content"]
    assert set(content) == {"application/json", CSV_TYPE, XLSX_TYPE}
    assert content[XLSX_TYPE]["schema"] == {"type": "string", "format": "binary"}
    page = _resolve(schema, content["application/json"]["schema"])
    assert page["properties"]["object"]["enum"] == ["list"]
    row = _resolve(schema, page["properties"]["data"]["items"])
    assert list(row["properties"]) == [column.name for column in spec.columns]
    for column in spec.columns:
        prop = row["properties"][column.name]
        if column.kind == "cents":
            assert prop["type"] == "integer", column.name
        elif column.kind == "percent":
            assert prop["type"] == "number", column.name
        else:
            assert prop["type"] in ("string", "integer"), column.name
        assert bool(prop.get("nullable")) == column.nullable, column.name
    totals = _resolve(schema, page["properties"]["totals"]["allOf"][0])
    assert list(totals["properties"]) == ["currency"] + [
        column.name for column in spec.totals_columns
    ]
    codes_400 = operation["responses"]["400"]["description"]
    for code in ("parameter_invalid", "parameter_unknown", "cursor_invalid", "report_too_large"):
        assert f"`{code}`" in codes_400
    assert ("`parameter_missing`" in codes_400) == bool(required)
    assert "expand_invalid" not in codes_400
