"""Exact money arithmetic (docs/conventions.md, Rounding): integer cents, Decimal ratios, rounding
to the cent half away from zero, once per line."""

from decimal import ROUND_HALF_UP, Decimal

# The largest amount of money the API accepts or computes, in cents: $100,000,000,000.00
# (docs/operations/limits.md). Every money input is at most this in magnitude (400
# `parameter_invalid`), and a write that would carry a computed total past it is refused (422
# `amount_out_of_range`), so no sum ever leaves the signed 64-bit range a read returns.
MONEY_MAX = 10**13

HUNDRED = Decimal(100)
TWO_PLACES = Decimal("0.01")


def round_cents(value: Decimal) -> int:
    """Round a Decimal amount of cents to a whole cent, half away from zero
    (`ROUND_HALF_UP` in Python's decimal module rounds ties away from zero)."""
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def divide_cents(numerator: int, denominator: int) -> int:
    """`numerator / denominator` in whole cents, exactly (integer arithmetic, any size),
    rounded once, half away from zero. `denominator` must not be 0."""
    quotient, remainder = divmod(abs(numerator), abs(denominator))
    if 2 * remainder >= abs(denominator):
        quotient += 1
    return quotient if (numerator < 0) == (denominator < 0) else -quotient


def percent_of(amount_cents: int, pct: Decimal) -> int:
    """`amount × pct / 100`, rounded to the cent: e.g. retainage on a G703 row."""
    return round_cents(Decimal(amount_cents) * Decimal(pct) / HUNDRED)


def ratio_pct(numerator: int, denominator: int) -> Decimal:
    """`numerator / denominator × 100` to two decimals, half away from zero; 0 when the
    denominator is 0."""
    if denominator == 0:
        return Decimal(0).quantize(TWO_PLACES)
    return (Decimal(numerator) * HUNDRED / Decimal(denominator)).quantize(
        TWO_PLACES, rounding=ROUND_HALF_UP
    )


def format_dollars(cents: int) -> str:
    """`123456` → `$1,234.56`; negative amounts as `-$1,234.56` (for messages)."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{part:02d}"


def cents_problem(value, *, allow_negative: bool = False, positive: bool = False) -> str | None:
    """Why `value` is not an acceptable amount of cents, or None when it is: an integer (not a
    bool), not negative unless `allow_negative`, at most MONEY_MAX in magnitude, not zero when
    `positive`. The one definition of the money input rule (docs/conventions.md,
    docs/operations/limits.md): the API's `CentsField` and the bulk services
    (`cost_codes_create_many`) both ask it."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "must be an integer number of cents (no decimals, no strings)"
    if value < 0 and not allow_negative:
        return "must not be negative"
    if abs(value) > MONEY_MAX:
        return (
            f"must be at most {format_dollars(MONEY_MAX)} ({MONEY_MAX} cents)"
            + (" in magnitude" if allow_negative else "")
            + f"; got {format_dollars(value)}"
        )
    if positive and value == 0:
        return "must be greater than zero"
    return None


def plain_dollars(cents: int) -> str:
    """`840000000` → `8400000.00`, `-5` → `-0.05`: cents as dollars with two decimals, no `$`
    and no separators (an editable box, a CSV cell), by integer arithmetic."""
    sign = "-" if cents < 0 else ""
    whole, fraction = divmod(abs(int(cents)), 100)
    return f"{sign}{whole}.{fraction:02d}"


def printed_dollars(cents: int) -> str:
    """`123450` → `1,234.50`; `-123450` → `(1,234.50)`: a figure as a printed document shows
    it (the column says dollars; negatives in parentheses), by integer arithmetic."""
    whole, fraction = divmod(abs(int(cents)), 100)
    text = f"{whole:,}.{fraction:02d}"
    return f"({text})" if cents < 0 else text
