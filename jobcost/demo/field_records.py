"""Data of the demo job's field records (docs/field-records.md): its RFIs, the superintendent's
daily logs of November's first three weeks, and the agent's proposals waiting for a person to
approve.

The story (see `progress` for the money side): RFI-001 settled the anchor bolts of the first
footings in September; RFI-002 asked how the north parking lot drains, and the answer (the
civil engineer's ASI-03) became CO-001 / CCO-001; RFI-003 asked for the entry canopy's
connection at the brick veneer, and the answer deleted the canopy (CO-002 / CCO-002); RFI-004
is the rock hit at the north-wing footings on 3 November, answered on the 5th and priced as
CO-003, still pending with the district; RFI-005 (rooftop-unit curbs larger than the framed
roof openings) is a week overdue; RFI-006 (head-of-wall joints at the rated corridor walls)
is open and not yet due.

The daily logs cover every working day from Monday 2 to Thursday 19 November 2026: the
storm-line tie-in, the rock and its removal, the lean-concrete fill and the footing pour, the
rain day of Friday the 13th, the deck topping and the deliveries that pay app #3 bills as
stored materials. Friday the 20th has no log: the agent drafted one from the
superintendent's end-of-day text, and it waits with three other proposals (code the invoice
received that day, ask an RFI raised in the log of the 19th, and carry RFI-005's exposure in
the HVAC forecast).

Dates are fixed business dates (never today's date), so every load is the same. Vendors are
named by their key in `school_addition.VENDORS`; `None` is the contractor's own forces.
Hours are worker-hours (headcount × hours on site).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from jobcost.models import RfiStatus

D = datetime.date
OPEN, ANSWERED, CLOSED = RfiStatus.OPEN, RfiStatus.ANSWERED, RfiStatus.CLOSED


@dataclass(frozen=True)
class RfiRow:
    """An RFI and where it stands: `final` is `open`, `answered` or `closed` (answered first).
    Change orders name their RFI by number (`progress.ChangeOrderRow.rfi`)."""

    number: str
    subject: str
    question: str
    due_date: datetime.date
    final: str
    answer: str = ""
    cost_impact: bool = False


RFIS = (
    RfiRow(
        "RFI-001", "Anchor bolt layout at column base plates, grid line C",
        "S-201 shows four anchor rods at 12 in. square for the C-line column base plates; "
        "detail 5/S-501 shows four rods at 10 in. square under a 14 in. plate. Granite Ridge "
        "sets the C-line anchor rods on 14 September. Which governs?",
        D(2026, 9, 11), CLOSED,
        answer="Detail 5/S-501 governs: four 3/4 in. F1554 Grade 36 anchor rods at 10 in. "
        "square, 14 x 14 x 1 in. base plate. S-201 will be corrected by bulletin.",
    ),
    RfiRow(
        "RFI-002", "Storm drainage at the north parking lot",
        "The grading plan C-201 falls the north parking lot toward the new building at 1 %, "
        "and no catch basins or storm lines are shown north of grid line A. How is the north "
        "lot to be drained?",
        D(2026, 10, 2), CLOSED,
        answer="See ASI-03 from the district's civil engineer: an 18-inch RCP storm line "
        "with three catch basins along the north lot, connected to the street main. Submit a "
        "change order request for the added scope.",
        cost_impact=True,
    ),
    RfiRow(
        "RFI-003", "Entry canopy connection at the brick veneer",
        "Detail 7/A-521 runs the entry canopy's steel outriggers through the brick veneer "
        "with no thermal break or flashing at the penetrations, and the embed plates on S-502 "
        "do not line up with the CMU backup. Please provide the connection and flashing "
        "detail.",
        D(2026, 10, 23), CLOSED,
        answer="The district has agreed to delete the entry canopy (value engineering); no "
        "connection is needed. Price the deletion of the canopy framing and decking as a "
        "deductive change order and close the veneer per wall section 3/A-501.",
        cost_impact=True,
    ),
    RfiRow(
        "RFI-004", "Rock at the north-wing footings",
        "Excavation for footings F-7 to F-12 (grid line A) hit rock about 2 ft below grade, "
        "some 3 ft above bottom of footing. Borings B-3 and B-4 of the geotechnical report "
        "show no rock above 12 ft. The geotechnical engineer's field memo of 4 November is "
        "attached. Bear the footings on the rock as found, or remove it to the design "
        "elevation?",
        D(2026, 11, 6), ANSWERED,
        answer="Structural engineer, with the geotechnical engineer's concurrence: do not bear "
        "on the rock as found. Remove it to 12 in. below bottom of footing, place 2,000 psi "
        "lean concrete to bottom of footing and form the footings as designed. Proceed on "
        "time and materials and submit a change order request with the T&M tickets.",
        cost_impact=True,
    ),
    RfiRow(
        "RFI-005", "Rooftop unit curbs larger than the roof framing openings",
        "The approved rooftop-unit submittal (23 74 13-01) has factory curbs of 92 x 58 in. "
        "for RTU-1 to RTU-4; the roof framing openings on S-301 are 88 x 54 in. Ironline is "
        "holding the opening framing at the four units. Reframe the openings to the curbs, or "
        "set curb adapters on the framing as drawn?",
        D(2026, 11, 13), OPEN,
        cost_impact=True,
    ),
    RfiRow(
        "RFI-006", "Head-of-wall joint at the rated corridor walls",
        "The 1-hour corridor walls (wall type 3/A-601) run to the underside of the fluted "
        "metal deck, but no head-of-wall assembly is shown for the deflection the structural "
        "notes allow (L/360, about 3/4 in. at mid-span). Which listed head-of-wall joint "
        "system is to be used, and are the flutes to be filled with listed firestop?",
        D(2026, 12, 1), OPEN,
    ),
)  # fmt: skip


@dataclass(frozen=True)
class CrewRow:
    """One crew on site: `trade`, `vendor` key (None: the contractor's own forces),
    `headcount` and `hours` (worker-hours)."""

    trade: str
    vendor: str | None
    headcount: int
    hours: int


def crew(trade: str, vendor: str | None, headcount: int, hours: int | None = None) -> CrewRow:
    """A crew working a full 8-hour day unless `hours` says otherwise."""
    return CrewRow(trade, vendor, headcount, headcount * 8 if hours is None else hours)


@dataclass(frozen=True)
class DailyLogRow:
    date: datetime.date
    weather: str
    crews: tuple[CrewRow, ...]
    notes: str
    delays: str = ""


SUPERVISION = crew("Supervision", None, 2, 20)  # superintendent and assistant, 10-hour days
LABORERS = crew("Laborers", None, 3)
CARPENTERS = crew("Carpenters", None, 2)
OWN_FORCES = (SUPERVISION, LABORERS, CARPENTERS)
EARTHWORK, CONCRETE, MASONRY = "Earthwork", "Concrete", "Masonry"
STEEL, PLUMBING, HVAC = "Structural steel", "Plumbing", "HVAC"
SPRINKLERS, ELECTRICAL = "Fire sprinklers", "Electrical"

DAILY_LOGS = (
    DailyLogRow(
        D(2026, 11, 2), "Clear, 45–67 °F, calm",
        (*OWN_FORCES, crew(EARTHWORK, "site", 5), crew(CONCRETE, "concrete", 6),
         crew(MASONRY, "masonry", 8), crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 4)),
        "Cascade tied the north-lot storm line into the street main (CO-001) and started "
        "excavating the north-wing footings F-7 to F-12. Ironline erecting second-floor beams, "
        "grid lines 4–7. Keystone laying CMU at the south classroom wing.",
    ),
    DailyLogRow(
        D(2026, 11, 3), "Clear, 43–69 °F, calm",
        (*OWN_FORCES, crew(EARTHWORK, "site", 5), crew(CONCRETE, "concrete", 6),
         crew(MASONRY, "masonry", 8), crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 4)),
        "Cascade hit rock in the north-wing footing excavations about 2 ft below grade, some "
        "3 ft above bottom of footing; borings B-3 and B-4 show none above 12 ft. Photos sent "
        "to the architect and the geotechnical engineer.",
        "Footing excavation at F-7 to F-12 stopped at 10:30 on rock; Granite Ridge's footing "
        "crew moved to the south-wing grade beams and Cascade to backfilling the storm trench.",
    ),
    DailyLogRow(
        D(2026, 11, 4), "Sunny, 46–70 °F, breezy in the afternoon",
        (*OWN_FORCES, crew(EARTHWORK, "site", 3), crew(CONCRETE, "concrete", 5),
         crew(MASONRY, "masonry", 8), crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 4)),
        "Geotechnical engineer on site at 09:00: weathered granite the excavator bucket cannot "
        "rip; recommends removal to 12 in. below bottom of footing with lean-concrete fill. "
        "RFI-004 sent to the architect the same day.",
        "North-wing footings on hold pending the answer to RFI-004 (day 2).",
    ),
    DailyLogRow(
        D(2026, 11, 5), "Partly cloudy, 47–66 °F",
        (*OWN_FORCES, crew(EARTHWORK, "site", 4, 24), crew(CONCRETE, "concrete", 5),
         crew(MASONRY, "masonry", 8), crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 5)),
        "The structural engineer answered RFI-004: remove the rock to 12 in. below bottom of "
        "footing, place lean concrete, form the footings as designed; proceed on time and "
        "materials. Cascade mobilized an excavator with a hydraulic hammer at 13:00 (T&M "
        "ticket CSW-T-0412).",
        "North-wing footings on hold until 13:00 (RFI-004).",
    ),
    DailyLogRow(
        D(2026, 11, 6), "Clear, 44–65 °F",
        (*OWN_FORCES, crew(EARTHWORK, "site", 4), crew(CONCRETE, "concrete", 5),
         crew(MASONRY, "masonry", 8), crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 5)),
        "Rock removed at F-7 to F-9. RFI-005 sent: the approved rooftop-unit curbs are larger "
        "than the roof framing openings on S-301, so Ironline is holding the openings at "
        "RTU-1 to RTU-4. Summit Roofing's mobilization invoice SRS-3301 returned: no roofing "
        "work has started.",
    ),
    DailyLogRow(
        D(2026, 11, 9), "Clear, cold morning, 38–62 °F",
        (*OWN_FORCES, crew(EARTHWORK, "site", 4), crew(CONCRETE, "concrete", 6),
         crew(MASONRY, "masonry", 9), crew(STEEL, "steel", 7), crew("Windows", "openings", 2),
         crew(PLUMBING, "mechanical", 3), crew(ELECTRICAL, "electrical", 5)),
        "Rock removal finished at F-10 to F-12 (T&M ticket CSW-T-0419). Clearview delivered "
        "the aluminum windows for the east classroom wing (42 units), stored inside on the "
        "first floor and covered.",
    ),
    DailyLogRow(
        D(2026, 11, 10), "Overcast, 45–61 °F",
        (*OWN_FORCES, crew(EARTHWORK, "site", 2), crew(CONCRETE, "concrete", 8),
         crew(MASONRY, "masonry", 9), crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 5)),
        "Granite Ridge placed 24 CY of lean concrete under F-7 to F-12 (T&M ticket GRC-T-118) "
        "and set the footing rebar; the district's inspector of record observed.",
    ),
    DailyLogRow(
        D(2026, 11, 11), "Partly cloudy, 46–63 °F",
        (*OWN_FORCES, crew(CONCRETE, "concrete", 6), crew(MASONRY, "masonry", 9),
         crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 5)),
        "Veterans Day: the inspector of record was off, so the north-wing footing pour is set "
        "for Thursday. Ironline finished the second-floor beams and started the metal deck at "
        "the east wing.",
    ),
    DailyLogRow(
        D(2026, 11, 12), "Overcast, 48–57 °F, rain from 15:00 (0.2 in.)",
        (SUPERVISION, LABORERS, crew(CONCRETE, "concrete", 9), crew(MASONRY, "masonry", 9, 58),
         crew(STEEL, "steel", 7, 49), crew(PLUMBING, "mechanical", 3),
         crew(ELECTRICAL, "electrical", 5)),
        "North-wing footings F-7 to F-12 poured (38 CY), inspector of record present.",
        "Rain from 15:00: Keystone stopped laying at 14:30 and covered the walls; Ironline "
        "stopped deck welding.",
    ),
    DailyLogRow(
        D(2026, 11, 13), "Rain, 1.1 in., 44–52 °F, gusts to 25 mph",
        (SUPERVISION, crew("Laborers", None, 4), crew(EARTHWORK, "site", 2, 8)),
        "Laborers pumped the north-wing footing area and checked the storm-water measures; "
        "Cascade repaired the wattles at the north-lot inlet.",
        "Rain day: no masonry, steel, concrete or electrical work. Keystone and Ironline sent "
        "their crews home at 07:30.",
    ),
    DailyLogRow(
        D(2026, 11, 16), "Cloudy, clearing by noon, 45–60 °F; site muddy",
        (*OWN_FORCES, crew(EARTHWORK, "site", 3), crew(CONCRETE, "concrete", 6),
         crew(MASONRY, "masonry", 9), crew(STEEL, "steel", 7, 42),
         crew(PLUMBING, "mechanical", 4), crew(ELECTRICAL, "electrical", 5)),
        "Cascade backfilled the north-wing footings; Granite Ridge formed the north-wing grade "
        "beams. Valley Mechanical started the plumbing rough-in at the first-floor restrooms.",
        "The crane could not set up on the wet ground until crane mats were placed; steel "
        "erection started at 10:00.",
    ),
    DailyLogRow(
        D(2026, 11, 17), "Clear, 41–62 °F",
        (*OWN_FORCES, crew(EARTHWORK, "site", 2), crew(CONCRETE, "concrete", 10),
         crew(MASONRY, "masonry", 9), crew(STEEL, "steel", 7), crew(PLUMBING, "mechanical", 4),
         crew(HVAC, "mechanical", 3), crew(ELECTRICAL, "electrical", 5)),
        "Second-floor deck topping, area A, placed (62 CY), special inspector present. Valley "
        "Mechanical received the four rooftop units, stored on cribbing in the laydown yard "
        "and tarped.",
    ),
    DailyLogRow(
        D(2026, 11, 18), "Clear, 40–64 °F",
        (*OWN_FORCES, crew(CONCRETE, "concrete", 5), crew(MASONRY, "masonry", 10),
         crew(STEEL, "steel", 6), crew(PLUMBING, "mechanical", 4), crew(HVAC, "mechanical", 4),
         crew(SPRINKLERS, "mechanical", 2), crew(ELECTRICAL, "electrical", 5)),
        "Valley Mechanical's sprinkler fitters started the first-floor corridor mains. "
        "Keystone started the brick veneer at the south elevation.",
    ),
    DailyLogRow(
        D(2026, 11, 19), "Partly cloudy, 44–63 °F",
        (*OWN_FORCES, crew(CONCRETE, "concrete", 6), crew(MASONRY, "masonry", 10),
         crew(STEEL, "steel", 6), crew(PLUMBING, "mechanical", 3), crew(HVAC, "mechanical", 4),
         crew(SPRINKLERS, "mechanical", 2), crew(ELECTRICAL, "electrical", 5)),
        "Keystone raised that A-401 does not dimension the masonry control joints at the north "
        "elevation; laying out per specification 04 20 00 (25 ft maximum spacing) until "
        "confirmed. Ironline completed the roof deck at the east wing.",
    ),
)  # fmt: skip

# --- The agent's pending proposals --------------------------------------------------------

# The demo's agent: an API key of role `agent`, restricted to the demo project, whose secret
# is discarded when it is created (nobody can call the API with it). It exists so that the
# proposals below have a real proposer, as they would in use.
AGENT_KEY_NAME = "Demo agent (seed_demo; secret not kept)"


@dataclass(frozen=True)
class InvoiceCodingRow:
    """`invoice.code`: code the vendor's invoice `number` with `lines` (cost code, cents)."""

    vendor: str
    number: str
    lines: tuple[tuple[str, int], ...]
    rationale: str


INVOICE_CODING = InvoiceCodingRow(
    "electrical", "AE-5621", (("26-000", 9_640_000),),
    "AE-5621 ($96,400.00, received 2026-11-20) is billed on Ampere Electric's electrical "
    "subcontract, whose balance covers it. Its continuation sheet is second-floor branch "
    "rough-in and fire alarm devices, all 26-000 scope, so code it wholly to 26-000 "
    "Electrical, as AE-5530, AE-5588 and AE-5610 were.",
)  # fmt: skip

PROPOSED_RFI = {
    "subject": "Masonry control joints at the north elevation",
    "question": "A-401 shows the north elevation's brick veneer and CMU backup but does not "
    "locate the control joints. Specification 04 20 00 calls for joints at 25 ft maximum "
    "spacing and at changes in wall height. Keystone proposes joints at grid lines 2, 4 and 6 "
    "and at each side of the stair tower. Please confirm this layout or give the joint "
    "locations.",
    "due_date": "2026-11-30",
    "cost_impact": False,
}
PROPOSED_RFI_RATIONALE = (
    "Raised in the daily log of 2026-11-19: Keystone is laying out the north elevation's "
    "control joints from the specification because A-401 does not dimension them. Asking now "
    "keeps the north veneer, due to start after Thanksgiving, off an unconfirmed layout."
)

PROPOSED_LOG = DailyLogRow(
    D(2026, 11, 20), "Clear, 42–63 °F",
    (*OWN_FORCES, crew(CONCRETE, "concrete", 6), crew(MASONRY, "masonry", 9),
     crew(STEEL, "steel", 6), crew(PLUMBING, "mechanical", 3), crew(HVAC, "mechanical", 4),
     crew(SPRINKLERS, "mechanical", 2), crew(ELECTRICAL, "electrical", 5)),
    "Second-floor deck topping, area B, formed and reinforced; pour set for Monday. Keystone "
    "continued the brick veneer at the south elevation. Ampere's invoice AE-5621 received.",
)  # fmt: skip
PROPOSED_LOG_RATIONALE = (
    "No daily log was filed for Friday 2026-11-20. Drafted from the superintendent's 16:40 "
    "text message and the gate sign-in sheet; check the headcounts before approving."
)


@dataclass(frozen=True)
class ForecastRow:
    """`budget.update`: a cost-to-complete estimate (cents) for the budget line of `code`."""

    code: str
    cost_to_complete: int
    rationale: str


# HVAC: Valley Mechanical's subcontract balance after its approved invoice VMC-H-1105
# ($906,685.00 − $114,000.00 = $792,685.00) plus four curb adapters at $4,850.00.
CURB_ADAPTERS = 1_940_000
HVAC_FORECAST = ForecastRow(
    "23-000", 79_268_500 + CURB_ADAPTERS,
    "Forecast HVAC on its subcontract: Valley Mechanical's remaining balance of $792,685.00 "
    "plus $19,400.00 for four curb adapters (their budget quote VMQ-2291, $4,850.00 a unit) "
    "in case RFI-005, a week overdue, is answered with adapters rather than reframed "
    "openings. The default cost to complete ($800,000.00, the revised budget less cost to "
    "date) does not carry that exposure.",
)  # fmt: skip
