"""factory-boy factories. Objects whose rules matter (cost codes with their budget line,
executed commitments, keys) are built through the services, like the API would."""

from __future__ import annotations

from decimal import Decimal

import factory

from jobcost.models import Account, Commitment, CostCode, Owner, Project, Vendor
from jobcost.services import commitments as commitment_services
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
    code = factory.Sequence(lambda n: f"{n // 100 + 1:02d}-{n % 100:02d}0")
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
