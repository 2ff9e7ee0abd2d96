"""The budget import shape (docs/budget-import.md)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.serializers import ResourceSerializer
from jobcost.models import BudgetImportStatus

ERRORS_SCHEMA = {
    "type": "array",
    "description": "Every refusal found, by row. `row` is the spreadsheet's row number (the "
    "header is row 1) and `column` the header of the cell at fault; both are null for a "
    "refusal of the whole import (a closed project, the money cap). Empty when the import "
    "succeeded.",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["row", "column", "code", "message"],
        "properties": {
            "row": {"type": "integer", "minimum": 2, "nullable": True},
            "column": {
                "type": "string",
                "enum": ["code", "name", "cost type", "scheduled value", "budget"],
                "nullable": True,
            },
            "code": {"type": "string", "description": "docs/budget-import.md lists them."},
            "message": {"type": "string"},
        },
    },
}


class BudgetImportSerializer(ResourceSerializer):
    resource = "budget_import"
    project = serializers.CharField(source="project_id")
    status = serializers.ChoiceField(choices=BudgetImportStatus.choices)
    dry_run = serializers.BooleanField()
    rows_total = serializers.IntegerField(min_value=0)
    rows_done = serializers.IntegerField(min_value=0)
    errors = extend_schema_field(ERRORS_SCHEMA)(serializers.JSONField())
