"""factory-boy factories. Objects whose rules matter (cost codes with their budget line,
executed commitments, keys) are built through the services, like the API would."""

from __future__ import annotations

import datetime
from decimal import Decimal
from types import SimpleNamespace

import factory

from jobcost.models import (
    Account,
    ChangeOrder,
    Commitment,
    CostCode,
    Invoice,
    Owner,
    PayApp,
    Project,
    Vendor,
)
from jobcost.services import change_orders as change_order_services
from jobcost.services import commitments as commitment_services
from jobcost.services import invoices as invoice_services
from jobcost.services import pay_apps as pay_app_services
from jobcost.services.api_keys import api_key_create
from jobcost.services.cost_codes import cost_code_create


class AccountFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Account

    name = factory.Sequence(lambda n: f"Contractor {n}")


class OwnerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Owner

    account = factory.SubFactory(AccountFactory)
    name = factory.Sequence(lambda n: f"Owner {n}")
    email = "owner@example.com"


class VendorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Vendor

    account = factory.SubFactory(AccountFactory)
    name = factory.Sequence(lambda n: f"Vendor {n}")
    trade = "Concrete"


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    account = factory.SubFactory(AccountFactory)
    owner = factory.SubFactory(OwnerFactory, account=factory.SelfAttribute("..account"))
    number = factory.Sequence(lambda n: f"J-{n:04d}")
    name = factory.Sequence(lambda n: f"Project {n}")
    status = "active"
    contract_amount = 100_000_00
    retainage_pct = Decimal("10")
    currency = "usd"


class CostCodeFactory(factory.django.DjangoModelFactory):
    """A cost code with its budget line, made by `cost_code_create`."""

    class Meta:
        model = CostCode

    project = factory.SubFactory(ProjectFactory)
    # Ends in 5: hand-named codes in tests (03-000, 03-300, …) end in 0 and never collide.
    code = factory.Sequence(lambda n: f"{n // 100 + 1:02d}-{n % 100:02d}5")
    name = factory.Sequence(lambda n: f"Cost code {n}")
    cost_type = "subcontract"
    scheduled_value = 10_000_00
    budget_amount = 8_000_00

    @classmethod
    def _create(cls, model_class, *, project, budget_amount, **kwargs):
        return cost_code_create(project=project, budget_amount=budget_amount, **kwargs)


class CommitmentFactory(factory.django.DjangoModelFactory):
    """A commitment made by `commitment_create`; `executed=True` also executes it."""

    class Meta:
        model = Commitment

    project = factory.SubFactory(ProjectFactory)
    vendor = factory.SubFactory(VendorFactory, account=factory.SelfAttribute("..project.account"))
    cost_code = factory.SubFactory(CostCodeFactory, project=factory.SelfAttribute("..project"))
    type = "subcontract"
    original_amount = 5_000_00

    @classmethod
    def _create(cls, model_class, *, executed: bool = False, **kwargs):
        commitment = commitment_services.commitment_create(**kwargs)
        if executed:
            commitment = commitment_services.commitment_execute(commitment_id=commitment.pk)
        return commitment


def make_key(account: Account, role: str = "admin", projects=()):
    """(ApiKey, secret) for an account."""
    return api_key_create(account=account, role=role, projects=list(projects))


# --- Money flow (docs/money-flow.md): built through the services, as the API would ---------


def _day(value) -> datetime.date:
    return value if isinstance(value, datetime.date) else datetime.date.fromisoformat(value)


def make_job(account: Account, *, commitment_amount: int = 1_000_000) -> SimpleNamespace:
    """A project of contract 10,000,000 cents at 10 % retainage, with a balanced schedule of
    values (cents: 01-000 2,000,000 / budget 1,800,000; 03-000 5,000,000 / 4,500,000;
    09-000 3,000,000 / 2,700,000), a vendor and an executed subcontract on 03-000 of
    `commitment_amount` at the project's 10 % retainage."""
    project = ProjectFactory(account=account, contract_amount=10_000_000, retainage_pct=10)
    codes = {
        code: CostCodeFactory(
            project=project, code=code, name=name, scheduled_value=sv, budget_amount=budget
        )
        for code, name, sv, budget in (
            ("01-000", "General conditions", 2_000_000, 1_800_000),
            ("03-000", "Concrete", 5_000_000, 4_500_000),
            ("09-000", "Finishes", 3_000_000, 2_700_000),
        )
    }
    vendor = VendorFactory(account=account, name="Acme Concrete")
    commitment = CommitmentFactory(
        project=project,
        vendor=vendor,
        cost_code=codes["03-000"],
        original_amount=commitment_amount,
        executed=True,
    )
    return SimpleNamespace(project=project, codes=codes, vendor=vendor, commitment=commitment)


def make_change_order(
    project: Project,
    *,
    cost_code: CostCode,
    amount: int,
    budget_amount: int | None = None,
    kind: str = "owner",
    commitment: Commitment | None = None,
    status: str = "draft",
) -> ChangeOrder:
    """A one-line change order made by `change_order_create`, then moved to `status`
    (`draft`, `pending` or `approved`) through the services."""
    line = {"cost_code": cost_code, "amount": amount}
    if budget_amount is not None:
        line["budget_amount"] = budget_amount
    change_order = change_order_services.change_order_create(
        project=project,
        kind=kind,
        commitment=commitment,
        title=f"Change of {amount} cents",
        amount=amount,
        lines=[line],
    )
    if status == "pending":
        change_order = change_order_services.change_order_submit(change_order_id=change_order.pk)
    elif status == "approved":
        change_order = change_order_services.change_order_approve(change_order_id=change_order.pk)
    return change_order


def make_invoice(
    commitment: Commitment,
    *,
    amount: int,
    number: str,
    invoice_date="2026-11-02",
    status: str = "received",
) -> Invoice:
    """An invoice made by `invoice_create`, then moved to `status` (`received`, `coded` —
    one line on the commitment's cost code —, `approved` or `paid`) through the services."""
    invoice = invoice_services.invoice_create(
        commitment=commitment, number=number, invoice_date=_day(invoice_date), amount=amount
    )
    if status in ("coded", "approved", "paid"):
        invoice = invoice_services.invoice_update(
            invoice_id=invoice.pk,
            changes={"lines": [{"cost_code": commitment.cost_code, "amount": amount}]},
        )
    if status in ("approved", "paid"):
        invoice = invoice_services.invoice_approve(invoice_id=invoice.pk)
    if status == "paid":
        invoice = invoice_services.invoice_mark_paid(invoice_id=invoice.pk)
    return invoice


def make_pay_app(project: Project, period_start, period_end, *, status: str = "draft") -> PayApp:
    """The project's next pay app made by `pay_app_create`, then `submitted` or `approved`
    through the services (missing lien waivers allowed)."""
    pay_app = pay_app_services.pay_app_create(
        project=project, period_start=_day(period_start), period_end=_day(period_end)
    )
    if status in ("submitted", "approved"):
        pay_app = pay_app_services.pay_app_submit(pay_app_id=pay_app.pk, allow_missing_waivers=True)
    if status == "approved":
        pay_app = pay_app_services.pay_app_approve(pay_app_id=pay_app.pk)
    return pay_app
