"""Resolvers for body references: the object by ID, within the key's visibility."""

from jobcost.api.fields import RefField
from jobcost.models import (
    BudgetLine,
    Commitment,
    CostCode,
    Invoice,
    Owner,
    PayApp,
    Project,
    Rfi,
    Vendor,
)


def _resolver(model, project_field):
    def resolve(view, pk):
        return view.scope.filter(model.objects.all(), project_field).filter(pk=pk).first()

    return resolve


def owner_ref(**kwargs) -> RefField:
    return RefField(prefix="own", resolver=_resolver(Owner, None), **kwargs)


def vendor_ref(**kwargs) -> RefField:
    return RefField(prefix="vnd", resolver=_resolver(Vendor, None), **kwargs)


def project_ref(**kwargs) -> RefField:
    return RefField(prefix="prj", resolver=_resolver(Project, "id"), **kwargs)


def cost_code_ref(**kwargs) -> RefField:
    return RefField(prefix="cc", resolver=_resolver(CostCode, "project"), **kwargs)


def commitment_ref(**kwargs) -> RefField:
    return RefField(prefix="cmt", resolver=_resolver(Commitment, "project"), **kwargs)


def invoice_ref(**kwargs) -> RefField:
    return RefField(prefix="inv", resolver=_resolver(Invoice, "project"), **kwargs)


def pay_app_ref(**kwargs) -> RefField:
    return RefField(prefix="pa", resolver=_resolver(PayApp, "project"), **kwargs)


def rfi_ref(**kwargs) -> RefField:
    return RefField(prefix="rfi", resolver=_resolver(Rfi, "project"), **kwargs)


def budget_line_ref(**kwargs) -> RefField:
    return RefField(prefix="bl", resolver=_resolver(BudgetLine, "project"), **kwargs)
