"""AIA G702/G703 arithmetic (docs/computations.md), pure functions over loaded rows.

G703 row (continuation sheet), all cents:
  G = total_completed_and_stored = D previous + E this_period + F materials_stored
  percent_complete = G / C scheduled_value × 100 (0 when C is 0), two decimals
  H = balance_to_finish = C − G
  I = retainage = round(G × retainage_pct / 100), half away from zero, once per row
G702 (application), from the rows:
  1 original_contract_sum = Σ C of the cost-code rows (= the contract, checked at creation)
  2 net_change_by_change_orders = Σ C of the change-order rows
  3 contract_sum_to_date = 1 + 2
  4 total_completed_and_stored = Σ G
  5 total_retainage = Σ I (so the G702 always equals the sum of its G703);
    5b retainage_stored_materials = Σ round(F × pct / 100) per row; 5a = 5 − 5b
  6 total_earned_less_retainage = 4 − 5
  7 less_previous_certificates = line 6 of the latest earlier submitted/approved/paid app
  8 current_payment_due = 6 − 7
  9 balance_to_finish_including_retainage = 3 − 6
  work_this_period = Σ E; retainage_this_period = round(work_this_period × pct / 100);
  net_due_this_period = work_this_period − retainage_this_period (the draft's fields)
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from jobcost.money import percent_of, ratio_pct


@dataclass(frozen=True)
class G703Row:
    """One computed continuation-sheet row."""

    item: str
    description: str
    cost_code: str | None
    change_order: str | None
    scheduled_value: int
    previous: int
    this_period: int
    materials_stored: int
    total_completed_and_stored: int
    percent_complete: Decimal
    balance_to_finish: int
    retainage: int
    retainage_stored: int


def g703_row(line, retainage_pct: Decimal) -> G703Row:
    """Compute a row from a stored `PayAppLine`."""
    total = line.previous + line.this_period + line.materials_stored
    return G703Row(
        item=line.item,
        description=line.description,
        cost_code=line.cost_code_id,
        change_order=line.change_order_id,
        scheduled_value=line.scheduled_value,
        previous=line.previous,
        this_period=line.this_period,
        materials_stored=line.materials_stored,
        total_completed_and_stored=total,
        percent_complete=ratio_pct(total, line.scheduled_value),
        balance_to_finish=line.scheduled_value - total,
        retainage=percent_of(total, retainage_pct),
        retainage_stored=percent_of(line.materials_stored, retainage_pct),
    )


@dataclass(frozen=True)
class G702:
    """The application's summary lines (cents)."""

    original_contract_sum: int
    net_change_by_change_orders: int
    contract_sum_to_date: int
    total_completed_and_stored: int
    retainage_completed_work: int
    retainage_stored_materials: int
    total_retainage: int
    total_earned_less_retainage: int
    less_previous_certificates: int
    current_payment_due: int
    balance_to_finish_including_retainage: int
    work_this_period: int
    retainage_this_period: int
    net_due_this_period: int


def g702(rows: list[G703Row], retainage_pct: Decimal, previous_certificates: int) -> G702:
    """Sum the rows into the G702 lines; `previous_certificates` is line 7 (cents)."""
    original = sum(r.scheduled_value for r in rows if r.change_order is None)
    changes = sum(r.scheduled_value for r in rows if r.change_order is not None)
    total = sum(r.total_completed_and_stored for r in rows)
    total_retainage = sum(r.retainage for r in rows)
    stored_retainage = sum(r.retainage_stored for r in rows)
    earned_less_retainage = total - total_retainage
    work = sum(r.this_period for r in rows)
    retainage_this_period = percent_of(work, retainage_pct)
    return G702(
        original_contract_sum=original,
        net_change_by_change_orders=changes,
        contract_sum_to_date=original + changes,
        total_completed_and_stored=total,
        retainage_completed_work=total_retainage - stored_retainage,
        retainage_stored_materials=stored_retainage,
        total_retainage=total_retainage,
        total_earned_less_retainage=earned_less_retainage,
        less_previous_certificates=previous_certificates,
        current_payment_due=earned_less_retainage - previous_certificates,
        balance_to_finish_including_retainage=original + changes - earned_less_retainage,
        work_this_period=work,
        retainage_this_period=retainage_this_period,
        net_due_this_period=work - retainage_this_period,
    )
