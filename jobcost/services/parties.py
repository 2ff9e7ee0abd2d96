"""Owners and vendors."""

from __future__ import annotations

from jobcost.models import Owner, Vendor
from jobcost.services.common import apply_changes, lock, save_audited, service


@service
def owner_create(*, account_id: str, name: str, email: str = "", address: str = "") -> Owner:
    """Create an owner of the account.

    Emits: audit owner.created; events none.
    """
    return save_audited(Owner(account_id=account_id, name=name, email=email, address=address))


@service
def owner_update(*, owner_id: str, changes: dict) -> Owner:
    """Change `name`, `email` or `address`.

    Emits: audit owner.updated; events none.
    """
    owner = lock(Owner, owner_id)
    if apply_changes(owner, changes, frozenset({"name", "email", "address"})):
        save_audited(owner)
    return owner


@service
def vendor_create(
    *, account_id: str, name: str, email: str = "", tax_id_last4: str = "", trade: str = ""
) -> Vendor:
    """Create a vendor (subcontractor or supplier) of the account.

    Emits: audit vendor.created; events none.
    """
    return save_audited(
        Vendor(
            account_id=account_id, name=name, email=email, tax_id_last4=tax_id_last4, trade=trade
        )
    )


@service
def vendor_update(*, vendor_id: str, changes: dict) -> Vendor:
    """Change `name`, `email`, `tax_id_last4` or `trade`.

    Emits: audit vendor.updated; events none.
    """
    vendor = lock(Vendor, vendor_id)
    if apply_changes(vendor, changes, frozenset({"name", "email", "tax_id_last4", "trade"})):
        save_audited(vendor)
    return vendor
