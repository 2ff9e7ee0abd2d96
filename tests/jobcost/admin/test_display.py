"""Money in the back office is dollars from integer cents, never through a float."""

from decimal import Decimal

import pytest
from django import forms

from jobcost.admin.display import dollars, percent, plain_dollars
from jobcost.admin.fields import DollarsField


@pytest.mark.parametrize(
    ("cents", "currency", "shown"),
    [
        (840_000_000, "usd", "$8,400,000.00"),
        (-123_450, "usd", "-$1,234.50"),
        (0, "usd", "$0.00"),
        (7, "usd", "$0.07"),
        (-5, "usd", "-$0.05"),
        (9_223_372_036_854_775_807, "usd", "$92,233,720,368,547,758.07"),
        (123_450, "cad", "1,234.50 CAD"),
        (Decimal("275981013"), "usd", "$2,759,810.13"),
        (None, "usd", "—"),
    ],
)
def test_dollars_formats_cents_exactly(cents, currency, shown):
    assert dollars(cents, currency) == shown


def test_dollars_refuses_floats_and_fractional_cents():
    with pytest.raises(TypeError):
        dollars(12.5)
    with pytest.raises(ValueError):
        dollars(Decimal("12.5"))


def test_percent_and_plain_dollars():
    assert percent(Decimal("32.28")) == "32.28%"
    assert percent(Decimal("7.6")) == "7.60%"
    assert percent(0) == "0.00%"
    assert plain_dollars(840_000_000) == "8400000.00"
    assert plain_dollars(-123_450) == "-1234.50"


@pytest.mark.parametrize(
    ("typed", "cents"),
    [
        ("8400000", 840_000_000),
        ("8,400,000.00", 840_000_000),
        ("$1,234.5", 123_450),
        ("0.07", 7),
        ("1234.500", 123_450),
        ("", None),
    ],
)
def test_dollars_field_cleans_to_cents(typed, cents):
    assert DollarsField(required=False).clean(typed) == cents


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("12.345", "at most two decimals"),
        ("abc", "amount in dollars"),
        ("NaN", "amount in dollars"),
        ("--5", "amount in dollars"),
        ("-1.00", "at least 0.00"),
        ("100000000000.01", "at most 100000000000.00"),  # the money cap, docs/operations/limits.md
    ],
)
def test_dollars_field_rejects_bad_amounts(typed, message):
    with pytest.raises(forms.ValidationError) as raised:
        DollarsField().clean(typed)
    assert message in raised.value.messages[0]


def test_dollars_field_allows_negative_only_when_asked():
    assert DollarsField(min_value=-(2**63)).clean("-$1,234.50") == -123_450
