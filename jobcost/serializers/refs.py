"""Resolvers for body references: the object by ID, within the key's visibility."""

from jobcost.api.fields import RefField
from jobcost.models import (
    BudgetLine,
    Commitment,
    CostCode,
    Invoice,
    Owner,
    Project,
    Rfi,
    Vendor,
)


def _resolver(model, project_field):
    def resolve(view, pk):
        return view.scope.filter(model.objects.all(), project_field).filter(pk=pk).first()

    return resolve


def _many_resolver(model, project_field):
    def resolve_many(view, pks):
        visible = view.scope.filter(model.objects.all(), project_field).filter(pk__in=pks)
        return {obj.pk: obj for obj in visible}

    return resolve_many


def _ref(prefix: str, model, project_field, **kwargs) -> RefField:
    return RefField(
        prefix=prefix,
        resolver=_resolver(model, project_field),
        resolve_many=_many_resolver(model, project_field),
        **kwargs,
    )


def owner_ref(**kwargs) -> RefField:
    return _ref("own", Owner, None, **kwargs)


def vendor_ref(**kwargs) -> RefField:
    return _ref("vnd", Vendor, None, **kwargs)


def project_ref(**kwargs) -> RefField:
    return _ref("prj", Project, "id", **kwargs)


def cost_code_ref(**kwargs) -> RefField:
    return _ref("cc", CostCode, "project", **kwargs)


def commitment_ref(**kwargs) -> RefField:
    return _ref("cmt", Commitment, "project", **kwargs)


def invoice_ref(**kwargs) -> RefField:
    return _ref("inv", Invoice, "project", **kwargs)


def rfi_ref(**kwargs) -> RefField:
    return _ref("rfi", Rfi, "project", **kwargs)


def budget_line_ref(**kwargs) -> RefField:
    return _ref("bl", BudgetLine, "project", **kwargs)
