"""Project shape, with the rollups (docs/computations.md) (all computed, read-only)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobcost.api.fields import CentsField, PercentField
from jobcost.api.serializers import InputSerializer, ResourceSerializer
from jobcost.models import ProjectStatus
from jobcost.selectors.projects import project_rollup
from jobcost.serializers.refs import ref

CENTS = {"type": "integer", "format": "int64", "readOnly": True}
PCT = {"type": "number", "readOnly": True}


class ProjectSerializer(ResourceSerializer):
    resource = "project"
    number = serializers.CharField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=ProjectStatus.choices)
    owner = serializers.CharField(source="owner_id")
    currency = serializers.CharField()
    contract_amount = CentsField()
    approved_changes = CentsField(allow_negative=True, read_only=True)
    revised_contract = serializers.SerializerMethodField()
    retainage_pct = PercentField()
    cost_to_date = serializers.SerializerMethodField()
    percent_complete = serializers.SerializerMethodField()
    projected_cost = serializers.SerializerMethodField()
    projected_margin_pct = serializers.SerializerMethodField()
    billed_to_date = serializers.SerializerMethodField()
    earned_revenue = serializers.SerializerMethodField()
    over_under_billing = serializers.SerializerMethodField()

    def _rollup(self, project):
        cache = self.context.setdefault("_rollups", {})
        if project.pk not in cache:
            cache[project.pk] = project_rollup(project)
        return cache[project.pk]

    @extend_schema_field(CENTS)
    def get_revised_contract(self, project) -> int:
        return self._rollup(project).revised_contract

    @extend_schema_field(CENTS)
    def get_cost_to_date(self, project) -> int:
        return self._rollup(project).cost_to_date

    @extend_schema_field(PCT)
    def get_percent_complete(self, project):
        return self._rollup(project).percent_complete

    @extend_schema_field(CENTS)
    def get_projected_cost(self, project) -> int:
        return self._rollup(project).projected_cost

    @extend_schema_field(PCT)
    def get_projected_margin_pct(self, project):
        return self._rollup(project).projected_margin_pct

    @extend_schema_field(CENTS)
    def get_billed_to_date(self, project) -> int:
        return self._rollup(project).billed_to_date

    @extend_schema_field(CENTS)
    def get_earned_revenue(self, project) -> int:
        return self._rollup(project).earned_revenue

    @extend_schema_field(CENTS)
    def get_over_under_billing(self, project) -> int:
        return self._rollup(project).over_under_billing


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


class ProjectUpdateSerializer(InputSerializer):
    output = ProjectSerializer
    number = serializers.CharField(max_length=60, required=False)
    name = serializers.CharField(max_length=200, required=False)
    contract_amount = CentsField(required=False)
    retainage_pct = PercentField(required=False)
    status = serializers.ChoiceField(choices=ProjectStatus.choices, required=False)
