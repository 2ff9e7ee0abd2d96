"""Data of the demo job in progress: three monthly billing periods (September to November
2026) of change orders, vendor invoices, lien waivers and AIA G702/G703 pay apps, as the
project accountant of `school_addition` would have entered them.

All money is integer cents; dates are the business dates (periods, invoice dates, waiver
receipts); the records' own timestamps are the moment of loading. Cost codes are named by
code and commitments by their cost code (each code has at most one commitment).

The story: site work and foundations began in August; September billed mobilization,
earthwork and the first footings; in October the owner added storm drainage at the north lot
(CO-001, with its subcontract change CCO-001), steel was delivered and partly erected, and
pay app #2 went in with the override for one waiver that arrived a week late; in November the
entry canopy was deleted (CO-002, with the steel deduction CCO-002), rock was hit at the north
footings (CO-003, pending), and pay app #3 is a draft with the month's work entered and three
vendors' waivers still missing. Each change order names the RFI that led to it (RFI-002,
RFI-003 and RFI-004 of `field_records`).

Billing tracks cost-to-cost progress: each cost code's cumulative billed value is about its
scheduled value × (its actual cost / its revised budget), rounded to $100, the subs' stored
materials billed as `materials_stored`; general conditions are billed by the month.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from jobcost.models import ChangeOrderKind, InvoiceStatus, LienWaiverStatus, PayAppStatus

D = datetime.date
OWNER, COMMITMENT = ChangeOrderKind.OWNER, ChangeOrderKind.COMMITMENT
RECEIVED, CODED, APPROVED, PAID, VOID = (
    InvoiceStatus.RECEIVED,
    InvoiceStatus.CODED,
    InvoiceStatus.APPROVED,
    InvoiceStatus.PAID,
    InvoiceStatus.VOID,
)
WAIVER_REQUESTED, WAIVER_RECEIVED, WAIVER_REJECTED = (
    LienWaiverStatus.REQUESTED,
    LienWaiverStatus.RECEIVED,
    LienWaiverStatus.REJECTED,
)


@dataclass(frozen=True)
class ChangeOrderLineRow:
    """A change order's share on one cost code: contract (or commitment) `amount` and the
    cost-budget change `budget_amount` (cents, negative when deductive)."""

    code: str
    description: str
    amount: int
    budget_amount: int


@dataclass(frozen=True)
class ChangeOrderRow:
    """An owner change order (numbered CO-nnn) or a commitment change order (CCO-nnn) on
    the commitment of cost code `commitment_code`. `final` is `approved` or `pending`.
    `rfi` is the number of the RFI that led to it (`field_records.RFIS`)."""

    number: str
    kind: str
    title: str
    description: str
    lines: tuple[ChangeOrderLineRow, ...]
    final: str
    commitment_code: str | None = None
    rfi: str | None = None

    @property
    def amount(self) -> int:
        return sum(line.amount for line in self.lines)


@dataclass(frozen=True)
class InvoiceRow:
    """A vendor invoice against the commitment of cost code `code`, coded wholly to that
    code. `final` is its last status; `waiver` the status of the lien waiver its approval
    requested (None when never approved), `waiver_on` the day it was received, and
    `waiver_late` a waiver received only after its pay app was submitted."""

    code: str
    number: str
    invoice_date: datetime.date
    amount: int
    final: str
    waiver: str | None = None
    waiver_on: datetime.date | None = None
    waiver_late: bool = False

    @property
    def due_date(self) -> datetime.date:
        return self.invoice_date + datetime.timedelta(days=30)


@dataclass(frozen=True)
class PayAppRow:
    """One billing period: its change orders (approved while its pay app is the draft, so
    owner ones land on it), its vendor invoices, the G703 entries keyed by cost code or
    change order number (`this_period`, `stored` = materials stored, cents), its final
    status, and whether it was submitted with the missing-waivers override."""

    period_start: datetime.date
    period_end: datetime.date
    final: str
    change_orders: tuple[ChangeOrderRow, ...] = ()
    invoices: tuple[InvoiceRow, ...] = ()
    this_period: dict[str, int] = field(default_factory=dict)
    stored: dict[str, int] = field(default_factory=dict)
    allow_missing_waivers: bool = False


STORM_DRAINAGE = ChangeOrderRow(
    "CO-001", OWNER, "Added storm drainage at north lot",
    "Owner's request (district civil engineer's ASI-03): 18-inch RCP storm line, three catch "
    "basins and a connection to the street main along the north parking lot.",
    (ChangeOrderLineRow("31-200", "Storm drain pipe, catch basins, trench and backfill",
                        4_850_000, 4_365_000),),
    final="approved", rfi="RFI-002",
)  # fmt: skip
STORM_DRAINAGE_SUB = ChangeOrderRow(
    "CCO-001", COMMITMENT, "Storm drainage at north lot",
    "Cascade Site Works' price for the CO-001 scope, added to its earthwork subcontract.",
    (ChangeOrderLineRow("31-200", "18-inch RCP, 3 catch basins, street connection",
                        4_280_000, 4_280_000),),
    final="approved", commitment_code="31-200", rfi="RFI-002",
)  # fmt: skip
CANOPY_DELETED = ChangeOrderRow(
    "CO-002", OWNER, "Deleted canopy at entry",
    "Deductive: the steel-framed canopy at the main entry is removed from the contract "
    "(value engineering agreed with the district).",
    (ChangeOrderLineRow("05-120", "Entry canopy framing and decking, deleted",
                        -1_200_000, -1_080_000),),
    final="approved", rfi="RFI-003",
)  # fmt: skip
CANOPY_DELETED_SUB = ChangeOrderRow(
    "CCO-002", COMMITMENT, "Delete entry canopy framing",
    "Deductive change to Ironline Steel Erectors' subcontract for the CO-002 scope.",
    (ChangeOrderLineRow("05-120", "Entry canopy framing, deleted", -1_050_000, -1_050_000),),
    final="approved", commitment_code="05-120", rfi="RFI-003",
)  # fmt: skip
ROCK_EXCAVATION = ChangeOrderRow(
    "CO-003", OWNER, "Unforeseen rock excavation",
    "Rock encountered at the north footings, below the geotechnical report's borings: "
    "breaking and removal, time and materials not to exceed. Awaiting the district's answer.",
    (ChangeOrderLineRow("31-200", "Rock breaking and haul-off at north footings",
                        3_675_000, 3_300_000),),
    final="pending", rfi="RFI-004",
)  # fmt: skip

# General conditions are billed by the month, temporary facilities front-loaded with
# mobilization; neither has vendor invoices here (self-performed, payroll not tracked yet).
SEPTEMBER = PayAppRow(
    D(2026, 9, 1), D(2026, 9, 30), PayAppStatus.PAID,
    invoices=(
        InvoiceRow("31-200", "CSW-1187", D(2026, 9, 25), 16_840_000, PAID,
                   WAIVER_RECEIVED, D(2026, 10, 6)),
        InvoiceRow("03-300", "GRC-24-311", D(2026, 9, 28), 14_260_000, PAID,
                   WAIVER_RECEIVED, D(2026, 10, 8)),
        InvoiceRow("22-100", "VMC-P-0926", D(2026, 9, 26), 2_880_000, PAID,
                   WAIVER_RECEIVED, D(2026, 10, 5)),
        InvoiceRow("26-000", "AE-5530", D(2026, 9, 30), 2_165_000, PAID,
                   WAIVER_RECEIVED, D(2026, 10, 9)),
    ),
    this_period={
        "01-500": 3_870_000, "01-540": 4_630_000, "03-300": 15_900_000, "22-100": 3_200_000,
        "26-000": 2_400_000, "31-200": 18_700_000,
    },
)  # fmt: skip
OCTOBER = PayAppRow(
    D(2026, 10, 1), D(2026, 10, 31), PayAppStatus.APPROVED,
    change_orders=(STORM_DRAINAGE, STORM_DRAINAGE_SUB),
    invoices=(
        InvoiceRow("31-200", "CSW-1204", D(2026, 10, 27), 13_625_000, PAID,
                   WAIVER_RECEIVED, D(2026, 11, 3)),
        InvoiceRow("03-300", "GRC-24-347", D(2026, 10, 28), 22_630_000, PAID,
                   WAIVER_RECEIVED, D(2026, 11, 4)),
        InvoiceRow("05-120", "ISE-8812", D(2026, 10, 29), 24_800_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 5)),
        InvoiceRow("06-100", "NBS-40417", D(2026, 10, 15), 3_187_452, PAID,
                   WAIVER_RECEIVED, D(2026, 10, 26)),
        InvoiceRow("04-200", "KMC-2210", D(2026, 10, 30), 5_840_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 5)),
        InvoiceRow("22-100", "VMC-P-1027", D(2026, 10, 27), 3_890_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 4)),
        InvoiceRow("26-000", "AE-5588", D(2026, 10, 31), 5_220_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 9), waiver_late=True),
    ),
    this_period={
        "01-500": 3_870_000, "01-540": 930_000, "03-300": 25_300_000, "04-200": 6_500_000,
        "05-120": 19_000_000, "06-100": 3_600_000, "22-100": 4_300_000, "26-000": 5_800_000,
        "31-200": 11_950_000, "CO-001": 3_200_000,
    },
    stored={"05-120": 8_200_000},  # second-floor steel delivered, not yet erected
    allow_missing_waivers=True,
)  # fmt: skip
NOVEMBER = PayAppRow(
    D(2026, 11, 1), D(2026, 11, 30), PayAppStatus.DRAFT,
    change_orders=(CANOPY_DELETED, CANOPY_DELETED_SUB, ROCK_EXCAVATION),
    invoices=(
        InvoiceRow("31-200", "CSW-1221", D(2026, 11, 18), 4_800_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 20)),
        InvoiceRow("03-300", "GRC-24-383", D(2026, 11, 17), 17_150_000, APPROVED,
                   WAIVER_REQUESTED),
        InvoiceRow("05-120", "ISE-8840", D(2026, 11, 19), 19_850_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 21)),
        InvoiceRow("04-200", "KMC-2234", D(2026, 11, 16), 15_280_000, APPROVED,
                   WAIVER_REJECTED),  # sent unsigned
        InvoiceRow("06-100", "NBS-40522", D(2026, 11, 12), 2_196_024, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 19)),
        InvoiceRow("22-100", "VMC-P-1117", D(2026, 11, 17), 4_430_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 20)),
        InvoiceRow("23-000", "VMC-H-1105", D(2026, 11, 5), 11_400_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 16)),
        InvoiceRow("26-000", "AE-5610", D(2026, 11, 13), 7_980_000, APPROVED,
                   WAIVER_RECEIVED, D(2026, 11, 20)),
        InvoiceRow("08-500", "CDG-7719", D(2026, 11, 10), 7_232_000, APPROVED,
                   WAIVER_REQUESTED),
        InvoiceRow("23-000", "VMC-H-1118", D(2026, 11, 18), 12_800_000, CODED),
        InvoiceRow("21-100", "VMC-F-1120", D(2026, 11, 20), 1_840_000, CODED),
        InvoiceRow("26-000", "AE-5621", D(2026, 11, 20), 9_640_000, RECEIVED),
        InvoiceRow("07-500", "SRS-3301", D(2026, 11, 6), 3_353_000, VOID),
    ),
    this_period={
        "01-500": 3_870_000, "01-540": 930_000, "03-300": 19_200_000, "04-200": 17_000_000,
        "05-120": 30_100_000, "06-100": 2_400_000, "22-100": 5_000_000, "23-000": 3_000_000,
        "26-000": 8_900_000, "31-200": 3_680_000, "CO-001": 1_650_000,
    },
    stored={"08-500": 8_000_000, "23-000": 9_600_000},  # windows and rooftop units on site
)  # fmt: skip

PAY_APPS = (SEPTEMBER, OCTOBER, NOVEMBER)


@dataclass(frozen=True)
class OwnerReceipt:
    """The owner's payment of a certified pay app (by its number): the day the money came in
    and the district's check number. The certificates themselves are dated the day the demo
    is loaded, the day the pay apps are submitted and approved through the services."""

    pay_app: int
    received_on: datetime.date
    reference: str


# September's certificate (#1, $438,300.00 in full) paid by the district's check; October's
# (#2, certified in full) not yet paid.
OWNER_RECEIPTS = (OwnerReceipt(1, D(2026, 11, 6), "CVUSD check 20417"),)

# The project manager's cost-to-complete forecast (cents) entered in November: on earthwork,
# the subcontract's remaining balance ($34,130.00) plus the pending rock excavation
# ($33,000.00 of cost, CO-003), so the exposure shows as a variance before the owner answers.
COST_TO_COMPLETE = {"31-200": 6_713_000}
