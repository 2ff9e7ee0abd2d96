"""Data of the demo job: a general contractor's two-storey classroom addition to a public
elementary school, as its project accountant would set it up after contract award.

All money is integer cents. The cost codes follow CSI MasterFormat divisions; their
`scheduled_value`s (the owner's schedule of values, the G703 rows) sum exactly to the
contract amount; each budget (the contractor's expected cost) is about 88–92 % of its
scheduled value, the rest being fee and margin; each commitment is below its budget.
Codes without a commitment are self-performed or not yet bought out.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal

from jobcost.models import CommitmentType, CostType

ACCOUNT_NAME = "Demo Builders"

OWNER = {
    "name": "Cedar Valley Unified School District",
    "email": "facilities@cedarvalleyusd.example",
    "address": "1200 Orchard Avenue\nCedar Valley, CA 95370",
}

PROJECT = {
    "number": "2026-014",
    "name": "Lincoln Elementary Two-Storey Classroom Addition",
    "contract_amount": 840_000_000,  # $8,400,000.00 lump-sum prime contract
    "currency": "usd",
    "retainage_pct": Decimal("10"),
    "contract_date": datetime.date(2026, 7, 15),
    "architect_name": "Harmon Lowe Architects",
}


@dataclass(frozen=True)
class VendorRow:
    """A subcontractor or supplier; `key` names it in the cost-code table below."""

    key: str
    name: str
    trade: str
    email: str
    tax_id_last4: str


@dataclass(frozen=True)
class CommitmentRow:
    """A subcontract or purchase order on one cost code; `executed=False` leaves it draft."""

    vendor: str
    type: str
    amount: int
    description: str
    executed: bool = True


@dataclass(frozen=True)
class CostCodeRow:
    """A cost code with its scheduled value and original budget (cents)."""

    code: str
    name: str
    cost_type: str
    scheduled_value: int
    budget: int
    commitment: CommitmentRow | None = None


VENDORS = [
    VendorRow("site", "Cascade Site Works, LLC", "Earthwork & paving",
              "estimating@cascadesiteworks.example", "4821"),
    VendorRow("concrete", "Granite Ridge Concrete, Inc.", "Cast-in-place concrete",
              "bids@graniteridgeconcrete.example", "7310"),
    VendorRow("masonry", "Keystone Masonry Co.", "Masonry",
              "office@keystonemasonry.example", "1956"),
    VendorRow("steel", "Ironline Steel Erectors", "Structural steel",
              "pm@ironlinesteel.example", "6604"),
    VendorRow("supply", "Northside Building Supply", "Lumber & building materials",
              "orders@northsidesupply.example", "3382"),
    VendorRow("roofing", "Summit Roofing & Sheet Metal", "Roofing",
              "contracts@summitroofing.example", "9047"),
    VendorRow("openings", "Clearview Door & Glazing", "Doors, frames & windows",
              "sales@clearviewglazing.example", "2275"),
    VendorRow("drywall", "Pacific Drywall & Acoustics", "Drywall, insulation & acoustics",
              "bids@pacificdrywall.example", "5519"),
    VendorRow("flooring", "Heritage Floor Covering", "Flooring & tile",
              "commercial@heritagefloors.example", "8163"),
    VendorRow("painting", "Brightline Painting Co.", "Painting",
              "estimates@brightlinepainting.example", "0438"),
    VendorRow("mechanical", "Valley Mechanical Contractors", "Plumbing, HVAC & fire protection",
              "precon@valleymechanical.example", "7790"),
    VendorRow("electrical", "Ampere Electric, Inc.", "Electrical & low voltage",
              "estimating@ampereelectric.example", "3126"),
]  # fmt: skip

SUB, PO = CommitmentType.SUBCONTRACT, CommitmentType.PURCHASE_ORDER
L, M, E, S = CostType.LABOR, CostType.MATERIAL, CostType.EQUIPMENT, CostType.SUBCONTRACT

COST_CODES = [
    CostCodeRow("01-500", "General conditions", L, 58_000_000, 52_490_000),
    CostCodeRow("01-540", "Temporary facilities & equipment", E, 18_500_000, 16_650_000),
    CostCodeRow("03-300", "Cast-in-place concrete", S, 71_500_000, 63_990_000,
                CommitmentRow("concrete", SUB, 62_070_000,
                              "Footings, slab on grade, elevated deck topping")),
    CostCodeRow("04-200", "Unit masonry", S, 56_000_000, 50_400_000,
                CommitmentRow("masonry", SUB, 49_644_000, "CMU walls and brick veneer")),
    CostCodeRow("05-120", "Structural steel", S, 67_000_000, 60_970_000,
                CommitmentRow("steel", SUB, 60_665_000,
                              "Frame, metal deck and miscellaneous metals, furnish and erect")),
    CostCodeRow("06-100", "Rough carpentry", M, 14_500_000, 12_900_000,
                CommitmentRow("supply", PO, 12_126_348, "Lumber, blocking and sheathing")),
    CostCodeRow("07-200", "Insulation", S, 12_000_000, 10_800_000,
                CommitmentRow("drywall", SUB, 10_368_000, "Batt and rigid insulation")),
    CostCodeRow("07-500", "Membrane roofing", S, 38_000_000, 34_390_000,
                CommitmentRow("roofing", SUB, 33_530_000, "TPO roofing and sheet metal flashing")),
    CostCodeRow("08-100", "Doors & frames", M, 19_500_000, 17_160_000,
                CommitmentRow("openings", PO, 16_387_512, "Hollow metal frames, wood doors")),
    CostCodeRow("08-500", "Windows", S, 41_000_000, 36_900_000,
                CommitmentRow("openings", SUB, 36_162_000,
                              "Aluminum windows and storefront, furnish and install")),
    CostCodeRow("09-200", "Gypsum board", S, 46_500_000, 41_620_000,
                CommitmentRow("drywall", SUB, 40_163_000, "Metal studs, gypsum board, taping")),
    CostCodeRow("09-300", "Tiling", S, 13_845_000, 12_460_000,
                CommitmentRow("flooring", SUB, 11_837_000, "Restroom floor and wall tile")),
    CostCodeRow("09-650", "Resilient flooring", S, 17_500_000, 15_580_000,
                CommitmentRow("flooring", SUB, 15_112_500, "Sheet vinyl and rubber base")),
    CostCodeRow("09-900", "Painting", S, 15_000_000, 13_500_000,
                CommitmentRow("painting", SUB, 12_960_000, "Interior and exterior painting",
                              executed=False)),
    CostCodeRow("10-100", "Visual display units", M, 4_955_000, 4_365_000,
                CommitmentRow("supply", PO, 4_054_527, "Markerboards and tackboards")),
    CostCodeRow("12-500", "Furnishings", M, 9_500_000, 8_550_000),
    CostCodeRow("21-100", "Fire suppression", S, 21_000_000, 18_900_000,
                CommitmentRow("mechanical", SUB, 18_427_500, "Wet-pipe sprinkler system")),
    CostCodeRow("22-100", "Plumbing", S, 48_000_000, 42_960_000,
                CommitmentRow("mechanical", SUB, 41_671_000, "Domestic water, waste and vent")),
    CostCodeRow("23-000", "HVAC", S, 101_000_000, 91_400_000,
                CommitmentRow("mechanical", SUB, 90_668_500,
                              "Rooftop units, ductwork, controls, test and balance")),
    CostCodeRow("26-000", "Electrical", S, 82_000_000, 73_800_000,
                CommitmentRow("electrical", SUB, 71_955_000, "Power, lighting, fire alarm")),
    CostCodeRow("27-000", "Communications", S, 18_500_000, 16_840_000,
                CommitmentRow("electrical", SUB, 16_166_000, "Data cabling, PA and clocks")),
    CostCodeRow("31-200", "Earthwork", S, 39_000_000, 35_100_000,
                CommitmentRow("site", SUB, 34_398_000, "Excavation, backfill, fine grading")),
    CostCodeRow("32-100", "Paving", S, 27_200_000, 24_480_000,
                CommitmentRow("site", SUB, 23_500_500, "Asphalt paving and concrete walks",
                              executed=False)),
]  # fmt: skip
