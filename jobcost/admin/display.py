"""How the admin shows money and percentages: dollars from integer cents, exact percents.

Money is formatted with integer arithmetic only (`divmod` by 100), never through a float, so
`840000000` cents always reads `$8,400,000.00` and `-123450` reads `-$1,234.50`.
"""

from __future__ import annotations

from decimal import Decimal

from jobcost.money import plain_dollars

__all__ = ["accounting", "dollars", "percent", "plain_dollars"]

EMPTY = "—"


def dollars(cents: int | Decimal | None, currency: str = "usd") -> str:
    """`840000000` → `$8,400,000.00`; negative → `-$1,234.50`; None → `—`.

    `cents` is an integer amount of the currency's minor unit (a Decimal from a database sum
    must be integral). US dollars get a `$`; another currency is written after the amount in
    upper case (`1,234.50 CAD`), since the record never converts between currencies. Raises
    TypeError for a float and ValueError for a fractional Decimal: money is never a float."""
    if cents is None:
        return EMPTY
    if isinstance(cents, float):
        raise TypeError("Money is integer cents, never a float.")
    if isinstance(cents, Decimal):
        if cents != cents.to_integral_value():
            raise ValueError(f"{cents} is not a whole number of cents.")
        cents = int(cents)
    sign = "-" if cents < 0 else ""
    whole, fraction = divmod(abs(cents), 100)
    amount = f"{whole:,}.{fraction:02d}"
    if currency.lower() == "usd":
        return f"{sign}${amount}"
    return f"{sign}{amount} {currency.upper()}"


def accounting(cents: int | Decimal | None, currency: str = "usd") -> str:
    """A money column's figure: `dollars`, with a negative amount in parentheses as
    accountants write it (`-123450` → `($1,234.50)`); None → `—`."""
    if cents is None:
        return EMPTY
    text = dollars(cents, currency)
    return f"({text[1:]})" if text.startswith("-") else text


def percent(value: Decimal | int | None) -> str:
    """An exact percentage (`Decimal("37.50")`) → `37.50%`; None → `—`."""
    if value is None:
        return EMPTY
    if isinstance(value, float):
        raise TypeError("Percentages are exact decimals, never floats.")
    value = Decimal(value)
    if value.is_zero():
        value = abs(value)  # never "-0.00%"
    return f"{value:.2f}%"
