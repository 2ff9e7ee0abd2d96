"""docs/errors.md lists every error code the service can emit, so it cannot go stale.

The codes are the members of the error-code enums (`jobcost.error_codes`, `webhooks.errors`):
every raise, class default and `jc:` serializer code names one.
"""

from __future__ import annotations

import re
from enum import StrEnum

from django.conf import settings

from jobcost import error_codes
from webhooks import errors as webhook_errors

REFERENCE = settings.BASE_DIR / "docs" / "errors.md"

# Defaults of the base error classes: every raise sets a specific code (docs: "Base classes").
BASE_DEFAULTS = {"invalid_request", "validation_failed"}

# docs/errors.md codes of resources still to be built: documented ahead, marked as later. None today
# (`url_invalid` arrived with the webhooks); the checks below hold for the next one.
LATER: set[str] = set()


# Codes only a budget import's `errors` carry, explained in prose ("Refusals inside a budget
# import"), not in a table of error responses.
ROW_ONLY = {"duplicate_code"}


def emitted_codes() -> set[str]:
    enums = [
        value
        for module in (error_codes, webhook_errors)
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, StrEnum) and value is not StrEnum
    ]
    return {member.value for enum in enums for member in enum}


def documented_codes() -> set[str]:
    return set(re.findall(r"^\| (?:\d{3} \| )?`([a-z_]+)` \|", REFERENCE.read_text(), re.M))


def test_the_enums_hold_the_codes_of_each_kind():
    codes = emitted_codes()
    assert {"cursor_invalid", "resource_missing", "parameter_unknown", "parameter_missing"} <= codes
    assert {"body_too_large", "cost_code_required", "role_forbidden", "url_invalid"} <= codes


def test_every_emitted_code_is_in_the_error_reference():
    missing = emitted_codes() - documented_codes() - BASE_DEFAULTS - ROW_ONLY
    assert not missing, f"add these codes to docs/errors.md: {sorted(missing)}"
    base = REFERENCE.read_text().split("## Base classes", 1)[1]
    assert all(f"`{code}`" in base for code in BASE_DEFAULTS)


def _rows(code: str) -> list[str]:
    return [line for line in REFERENCE.read_text().splitlines() if line.startswith(f"| `{code}` |")]


def test_spec_codes_of_later_resources_are_listed_and_marked():
    for code in LATER:
        rows = _rows(code)
        assert len(rows) == 1, code
        assert "(later issue: " in rows[0], code
    assert not LATER & emitted_codes(), "an emitted code is still listed as later"
    # The last one to arrive: the webhooks emit it now, documented with its param.
    assert "url_invalid" in emitted_codes()
    [row] = _rows("url_invalid")
    assert row.startswith("| `url_invalid` | `url` |") and "(later issue: " not in row


def test_only_codes_of_later_resources_are_marked_later():
    marked = {
        code
        for code in documented_codes()
        for line in REFERENCE.read_text().splitlines()
        if line.startswith(f"| `{code}` |") and "(later issue: " in line
    }
    assert marked == LATER, "docs/errors.md marks emitted codes as later"


def test_every_documented_row_names_a_code_that_exists_or_is_planned():
    stale = documented_codes() - emitted_codes() - LATER
    assert not stale, f"docs/errors.md lists codes nothing emits: {sorted(stale)}"
