"""The budget import shape (docs/budget-import.md)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.serializers import ResourceSerializer
from jobcost.models import BudgetImportStatus, BudgetImportWarning

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


WARNINGS_SCHEMA = {
    "type": "array",
    "description": "What the file does that is allowed but likely a mistake; the import "
    "runs all the same. `scheduled_values_off_contract`: the project's scheduled values (its "
    "cost codes' already, plus this file's) do not sum to its contract; the message says both "
    "totals and the gap in dollars. Empty when there is nothing to say.",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["code", "message"],
        "properties": {
            "code": {
                "type": "string",
                "enum": [choice.value for choice in BudgetImportWarning],
            },
            "message": {"type": "string"},
        },
    },
}


# The schemas apply to field classes: drf-spectacular reads `extend_schema_field` from a
# field's class, so a decorated instance would be documented as `{}`.
@extend_schema_field(ERRORS_SCHEMA)
class ImportErrorsField(serializers.JSONField):
    """A budget import's `errors` (ERRORS_SCHEMA)."""


@extend_schema_field(WARNINGS_SCHEMA)
class ImportWarningsField(serializers.JSONField):
    """A budget import's `warnings` (WARNINGS_SCHEMA)."""


class BudgetImportSerializer(ResourceSerializer):
    resource = "budget_import"
    project = serializers.CharField(source="project_id")
    status = serializers.ChoiceField(choices=BudgetImportStatus.choices)
    dry_run = serializers.BooleanField()
    rows_total = serializers.IntegerField(min_value=0)
    rows_done = serializers.IntegerField(min_value=0)
    errors = ImportErrorsField()
    warnings = ImportWarningsField()
