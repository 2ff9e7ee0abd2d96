"""FilterSets for every list (docs/conventions.md): the draft's filters plus project, status,
vendor, cost_code, created[gte]/created[lt] where they apply."""

import django_filters

from jobcost.api.filters import IsoDateFilter, JobcostFilterSet, ProjectChildFilterSet
from jobcost.models import (
    AgentAction,
    AgentActionKind,
    AgentActionStatus,
    BudgetImport,
    BudgetImportStatus,
    BudgetLine,
    ChangeOrder,
    ChangeOrderKind,
    ChangeOrderStatus,
    Commitment,
    CommitmentStatus,
    CommitmentType,
    CostCode,
    CostType,
    DailyLog,
    Invoice,
    InvoiceStatus,
    LienWaiver,
    LienWaiverStatus,
    LienWaiverType,
    Owner,
    PayApp,
    PayAppStatus,
    Project,
    ProjectStatus,
    Rfi,
    RfiStatus,
    Vendor,
)


class OwnerFilter(JobcostFilterSet):
    class Meta:
        model = Owner
        fields = []


class VendorFilter(JobcostFilterSet):
    trade = django_filters.CharFilter(field_name="trade", lookup_expr="iexact")

    class Meta:
        model = Vendor
        fields = []


class ProjectFilter(JobcostFilterSet):
    status = django_filters.ChoiceFilter(choices=ProjectStatus.choices)
    owner = django_filters.CharFilter(field_name="owner_id")

    class Meta:
        model = Project
        fields = []


class CostCodeFilter(ProjectChildFilterSet):
    cost_type = django_filters.ChoiceFilter(choices=CostType.choices)

    class Meta:
        model = CostCode
        fields = []


class BudgetLineFilter(ProjectChildFilterSet):
    cost_code = django_filters.CharFilter(field_name="cost_code_id")

    class Meta:
        model = BudgetLine
        fields = []


class CommitmentFilter(ProjectChildFilterSet):
    vendor = django_filters.CharFilter(field_name="vendor_id")
    cost_code = django_filters.CharFilter(field_name="cost_code_id")
    status = django_filters.ChoiceFilter(choices=CommitmentStatus.choices)
    type = django_filters.ChoiceFilter(choices=CommitmentType.choices)

    class Meta:
        model = Commitment
        fields = []


class ChangeOrderFilter(ProjectChildFilterSet):
    commitment = django_filters.CharFilter(field_name="commitment_id")
    status = django_filters.ChoiceFilter(choices=ChangeOrderStatus.choices)
    kind = django_filters.ChoiceFilter(choices=ChangeOrderKind.choices)
    pay_app = django_filters.CharFilter(field_name="pay_app_id")

    class Meta:
        model = ChangeOrder
        fields = []


class InvoiceFilter(ProjectChildFilterSet):
    commitment = django_filters.CharFilter(field_name="commitment_id")
    vendor = django_filters.CharFilter(field_name="vendor_id")
    status = django_filters.ChoiceFilter(choices=InvoiceStatus.choices)
    cost_code = django_filters.CharFilter(field_name="lines__cost_code_id", distinct=True)

    class Meta:
        model = Invoice
        fields = []


class LienWaiverFilter(ProjectChildFilterSet):
    vendor = django_filters.CharFilter(field_name="vendor_id")
    commitment = django_filters.CharFilter(field_name="commitment_id")
    invoice = django_filters.CharFilter(field_name="invoice_id")
    status = django_filters.ChoiceFilter(choices=LienWaiverStatus.choices)
    type = django_filters.ChoiceFilter(choices=LienWaiverType.choices)

    class Meta:
        model = LienWaiver
        fields = []


class PayAppFilter(ProjectChildFilterSet):
    status = django_filters.ChoiceFilter(choices=PayAppStatus.choices)

    class Meta:
        model = PayApp
        fields = []


class RfiFilter(ProjectChildFilterSet):
    status = django_filters.ChoiceFilter(choices=RfiStatus.choices)

    class Meta:
        model = Rfi
        fields = []


class DailyLogFilter(ProjectChildFilterSet):
    date__gte = IsoDateFilter(field_name="date", lookup_expr="gte")
    date__lte = IsoDateFilter(field_name="date", lookup_expr="lte")

    class Meta:
        model = DailyLog
        fields = []


class AgentActionFilter(ProjectChildFilterSet):
    status = django_filters.ChoiceFilter(choices=AgentActionStatus.choices)
    action = django_filters.ChoiceFilter(choices=AgentActionKind.choices)

    class Meta:
        model = AgentAction
        fields = []


class BudgetImportFilter(ProjectChildFilterSet):
    status = django_filters.ChoiceFilter(choices=BudgetImportStatus.choices)

    class Meta:
        model = BudgetImport
        fields = []
