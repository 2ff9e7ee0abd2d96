"""Fixtures for the back-office tests: a signed-in superuser and a small job."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.factories import (
    AccountFactory,
    CommitmentFactory,
    CostCodeFactory,
    OwnerFactory,
    ProjectFactory,
    VendorFactory,
)


@pytest.fixture
def accountant(db):
    """The project accountant: a superuser named `accountant`."""
    return get_user_model().objects.create_superuser(
        username="accountant", email="accountant@example.com", password=None
    )


@pytest.fixture
def web(accountant) -> Client:
    """A browser session signed in as the accountant (`client.force_login`)."""
    client = Client()
    client.force_login(accountant)
    return client


@pytest.fixture
def job(db):
    """An active $8,400,000.00 job with two cost codes and an executed subcontract on the first."""
    account = AccountFactory(name="Harbor Build Co")
    owner = OwnerFactory(account=account, name="Bayview Hospital District")
    vendor = VendorFactory(account=account, name="Keystone Concrete")
    project = ProjectFactory(
        account=account,
        owner=owner,
        number="J-2401",
        name="Bayview Clinic",
        contract_amount=8_400_000_00,
    )
    concrete = CostCodeFactory(
        project=project, code="03-300", name="Cast-in-place concrete", budget_amount=5_000_000_00
    )
    electrical = CostCodeFactory(
        project=project, code="26-000", name="Electrical", budget_amount=2_500_000_00
    )
    subcontract = CommitmentFactory(
        project=project, vendor=vendor, cost_code=concrete, original_amount=5_200_000_00
    )
    return SimpleNamespace(
        account=account,
        owner=owner,
        vendor=vendor,
        project=project,
        concrete=concrete,
        electrical=electrical,
        subcontract=subcontract,
    )
