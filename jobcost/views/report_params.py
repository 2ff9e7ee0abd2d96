"""The reports' query parameters as the OpenAPI schema states them (docs/reports.md)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter

from jobcost.api.pagination import DEFAULT_LIMIT, MAX_LIMIT
from jobcost.api.schema import ENUM_NAME_KEY
from jobcost.limits import BUSINESS_DATE_MAX, BUSINESS_DATE_MIN
from jobcost.models import CostCode, Owner, Project, Vendor

FORMATS = ("json", "csv", "xlsx")

TEXTS = {
    name: (f"Only this {name.replace('_', ' ')}'s rows (`{model.PREFIX}_…`).", model.PREFIX)
    for name, model in (
        ("project", Project),
        ("vendor", Vendor),
        ("cost_code", CostCode),
        ("owner", Owner),
    )
}
PROJECT_REQUIRED = (
    f"The project (`{Project.PREFIX}_…`); required. A project this key cannot see is 404 "
    "`resource_missing`."
)


def report_parameters(names: tuple[str, ...]) -> list[OpenApiParameter]:
    """`as_of`, `format`, `limit`, `cursor` and the report's filters (`project!` when the
    report needs one)."""
    params = [
        OpenApiParameter(
            "as_of",
            {"type": "string", "format": "date"},
            OpenApiParameter.QUERY,
            description="The day (`YYYY-MM-DD`, UTC) whose end the report reads the books "
            f"at; default today, never after today, and from {BUSINESS_DATE_MIN} to "
            f"{BUSINESS_DATE_MAX}.",
        ),
        OpenApiParameter(
            "format",
            {"type": "string", "enum": list(FORMATS), ENUM_NAME_KEY: "ReportFormat"},
            OpenApiParameter.QUERY,
            description="`csv` or `xlsx` for a file of every row (overrides `Accept`); "
            "`json` (default) for a page of rows and the totals.",
        ),
    ]
    for name in names:
        required = name.endswith("!")
        name = name.rstrip("!")
        text, prefix = TEXTS[name]
        params.append(
            OpenApiParameter(
                name,
                {"type": "string", "minLength": 1, "example": f"{prefix}_…"},
                OpenApiParameter.QUERY,
                required=required,
                description=PROJECT_REQUIRED if required else text,
            )
        )
    params += [
        OpenApiParameter(
            "limit",
            {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
            OpenApiParameter.QUERY,
            description=f"Rows per page, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}); JSON only.",
        ),
        OpenApiParameter(
            "cursor",
            {"type": "string", "pattern": "^cur_"},
            OpenApiParameter.QUERY,
            description="The next_cursor of the previous page, unchanged; anything else is 400 "
            "`cursor_invalid`.",
        ),
    ]
    return params
