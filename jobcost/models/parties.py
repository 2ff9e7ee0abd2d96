"""Owners (who pay the prime contract) and vendors (subcontractors and suppliers)."""

from django.db import models
from django.db.models import Q

from audit.audited import Audited
from audit.ids import prefixed_id
from jobcost.models.accounts import Account
from jobcost.models.base import TimestampedModel, list_index


class Owner(Audited, TimestampedModel):
    """The project owner: the party the contractor bills with pay apps."""

    OBJECT = "owner"
    COLLECTION = "owners"
    PREFIX = "own"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=200)
    email = models.EmailField(blank=True)
    address = models.TextField(blank=True)

    class Meta:
        indexes = [list_index("owner_list", "account")]

    def __str__(self) -> str:
        return self.name


class Vendor(Audited, TimestampedModel):
    """A subcontractor or supplier the contractor commits money to."""

    OBJECT = "vendor"
    COLLECTION = "vendors"
    PREFIX = "vnd"
    id = prefixed_id(PREFIX)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=200)
    email = models.EmailField(blank=True)
    tax_id_last4 = models.CharField(max_length=4, blank=True)
    trade = models.CharField(max_length=120, blank=True)

    class Meta:
        indexes = [list_index("vendor_list", "account")]
        constraints = [
            models.CheckConstraint(
                condition=Q(tax_id_last4="") | Q(tax_id_last4__regex=r"^[0-9]{4}$"),
                name="vendor_tax_id_last4_digits",
            )
        ]

    def __str__(self) -> str:
        return self.name
