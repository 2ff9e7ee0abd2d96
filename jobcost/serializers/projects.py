"""Project shape, with the rollups (docs/computations.md) (all computed, read-only)."""

from collections.abc import Callable
from decimal import Decimal
from operator import attrgetter

from rest_framework import serializers

from jobcost.api.fields import BusinessDateField, CentsField, PercentField
from jobcost.api.serializers import FigureField, InputSerializer, ResourceSerializer
from jobcost.models import Project, ProjectStatus
from jobcost.selectors.projects import project_rollup
from jobcost.selectors.rollups import ProjectRollup
from jobcost.serializers.refs import ref

CENTS = {"type": "integer", "format": "int64", "readOnly": True}
PCT = {"type": "number", "readOnly": True}


def _rollup(project: Project, context: dict) -> ProjectRollup:
    """The project's rollup (`project_rollup`), computed once per rendering and project."""
    kept = context.get("_rollups")
    if kept is None:
        kept = context["_rollups"] = {}
    rollup = kept.get(project.pk)
    if rollup is None:
        rollup = kept[project.pk] = project_rollup(project)
    return rollup


def _figure(name: str) -> Callable[[Project, dict], int | Decimal]:
    """The rollup figure `name` of a project read through `visible.with_rollups`
    (docs/computations.md): integer cents, or a `Decimal` percent."""
    read = attrgetter(name)
    return lambda project, context: read(_rollup(project, context))


class ProjectSerializer(ResourceSerializer):
    resource = "project"
    number = serializers.CharField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=ProjectStatus.choices)
    owner = serializers.CharField(source="owner_id")
    currency = serializers.CharField()
    contract_amount = CentsField()
    approved_changes = CentsField(allow_negative=True, read_only=True)
    revised_contract = FigureField(_figure("revised_contract"), CENTS)
    retainage_pct = PercentField()
    contract_date = serializers.DateField(
        allow_null=True,
        help_text="The date of the owner-contractor agreement, printed on the G702; null "
        "when not recorded.",
    )
    architect_name = serializers.CharField(
        help_text="The owner's architect, who certifies pay apps (printed on the G702); "
        "empty when not recorded."
    )
    cost_to_date = FigureField(_figure("cost_to_date"), CENTS)
    percent_complete = FigureField(_figure("percent_complete"), PCT)
    projected_cost = FigureField(_figure("projected_cost"), CENTS)
    projected_margin_pct = FigureField(_figure("projected_margin_pct"), PCT)
    billed_to_date = FigureField(_figure("billed_to_date"), CENTS)
    earned_revenue = FigureField(_figure("earned_revenue"), CENTS)
    over_under_billing = FigureField(_figure("over_under_billing"), CENTS)


class ProjectCreateSerializer(InputSerializer):
    output = ProjectSerializer
    number = serializers.CharField(max_length=60)
    name = serializers.CharField(max_length=200)
    owner = ref("owner")
    contract_amount = CentsField()
    currency = serializers.RegexField(
        r"^[a-z]{3}$",
        required=False,
        default="usd",
        error_messages={"invalid": "currency must be a lowercase ISO 4217 code such as 'usd'."},
    )
    retainage_pct = PercentField(required=False)
    status = serializers.ChoiceField(
        choices=[ProjectStatus.BID, ProjectStatus.ACTIVE], required=False, default=ProjectStatus.BID
    )
    contract_date = BusinessDateField(
        required=False,
        allow_null=True,
        help_text="The date of the owner-contractor agreement (1970-01-01 to 2099-12-31).",
    )
    architect_name = serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text="The owner's architect."
    )


class ProjectUpdateSerializer(InputSerializer):
    output = ProjectSerializer
    number = serializers.CharField(max_length=60, required=False)
    name = serializers.CharField(max_length=200, required=False)
    contract_amount = CentsField(required=False)
    retainage_pct = PercentField(required=False)
    status = serializers.ChoiceField(choices=ProjectStatus.choices, required=False)
    contract_date = BusinessDateField(
        required=False,
        allow_null=True,
        help_text="The date of the owner-contractor agreement (1970-01-01 to 2099-12-31); "
        "null clears it.",
    )
    architect_name = serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text="The owner's architect."
    )
