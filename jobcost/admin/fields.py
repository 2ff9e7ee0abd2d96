"""Form fields of the back office: money typed in dollars, references labelled for humans."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from django import forms
from django.core.exceptions import ValidationError

from jobcost.admin.display import plain_dollars
from jobcost.money import MONEY_MAX


class DollarsField(forms.Field):
    """An amount typed in dollars (`8400000`, `8,400,000.00`, `$1,234.5`) cleaned to integer
    cents through Decimal (never a float). At most two decimals; `min_value`/`max_value` are
    cents (default 0 to the money cap `MONEY_MAX`, docs/operations/limits.md). Empty → None when not
    required."""

    widget = forms.TextInput
    default_error_messages = {
        "invalid": "Enter an amount in dollars, such as 1234.50.",
        "precision": "Enter at most two decimals (whole cents).",
        "min_value": "Enter an amount of at least %(limit)s.",
        "max_value": "Enter an amount of at most %(limit)s.",
    }

    def __init__(self, *, min_value: int = 0, max_value: int = MONEY_MAX, **kwargs) -> None:
        self.min_value = min_value
        self.max_value = max_value
        super().__init__(**kwargs)

    def prepare_value(self, value):
        """Cents from the instance are shown as plain dollars; typed text is shown as typed."""
        if isinstance(value, int) and not isinstance(value, bool):
            return plain_dollars(value)
        return value

    def to_python(self, value) -> int | None:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if value in self.empty_values or str(value).strip() == "":
            return None
        text = str(value).strip().replace(",", "").replace(" ", "")
        negative = text.startswith("-")
        text = text.removeprefix("-").removeprefix("$")
        try:
            amount = Decimal(text)
        except InvalidOperation as exc:
            raise ValidationError(self.error_messages["invalid"], code="invalid") from exc
        if not amount.is_finite() or text.startswith(("+", "-")):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        cents = -amount.scaleb(2) if negative else amount.scaleb(2)
        if cents < self.min_value:
            raise ValidationError(
                self.error_messages["min_value"],
                code="min_value",
                params={"limit": plain_dollars(self.min_value)},
            )
        if cents > self.max_value:
            raise ValidationError(
                self.error_messages["max_value"],
                code="max_value",
                params={"limit": plain_dollars(self.max_value)},
            )
        if cents != cents.to_integral_value():
            raise ValidationError(self.error_messages["precision"], code="precision")
        return int(cents)


class LabelledChoiceField(forms.ModelChoiceField):
    """A ModelChoiceField whose options read `label_of(obj)` (e.g. an owner with its account),
    so a choice across accounts is never ambiguous."""

    def __init__(self, queryset, *, label_of: Callable[[object], str], **kwargs) -> None:
        self.label_of = label_of
        super().__init__(queryset, **kwargs)

    def label_from_instance(self, obj) -> str:
        return self.label_of(obj)


class LabelledMultipleChoiceField(forms.ModelMultipleChoiceField):
    """The multiple-choice twin of `LabelledChoiceField`."""

    def __init__(self, queryset, *, label_of: Callable[[object], str], **kwargs) -> None:
        self.label_of = label_of
        super().__init__(queryset, **kwargs)

    def label_from_instance(self, obj) -> str:
        return self.label_of(obj)


def with_account(obj) -> str:
    """`Acme Owner (Contractor 1)`: a party labelled with its account (select `account`)."""
    return f"{obj} ({obj.account.name})"
