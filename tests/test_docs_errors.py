"""docs/errors.md lists every error code the service can emit, so it cannot go stale.

The codes are read from the source itself: every `code="…"` keyword, every `default_code`
of an error class, every `"jc:…"` serializer code and the DRF translations in
`jobcost.api.errors`. A DRF field error's own code (`invalid`, …) is not emitted as such: the
exception handler translates it, so the translation is what must be documented.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.conf import settings

from jobcost.errors import _DRF_CODE_MAP

SOURCE_DIRS = ("jobcost", "audit", "webhooks", "config")
REFERENCE = settings.BASE_DIR / "docs" / "errors.md"

# Defaults of the base error classes: every raise sets a specific code (docs: "Base classes").
BASE_DEFAULTS = {"invalid_request", "validation_failed"}

# docs/errors.md codes of resources still to be built: documented ahead, marked as later. None today
# (`url_invalid` arrived with the webhooks); the checks below hold for the next one.
LATER: set[str] = set()


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _default_codes(node: ast.Assign) -> set[str]:
    """`default_code = "x"` or `status, type, default_code = 400, "…", "x"`."""
    pairs = []
    for target in node.targets:
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            pairs += zip(target.elts, node.value.elts, strict=True)
        else:
            pairs.append((target, node.value))
    return {
        value.value
        for name, value in pairs
        if getattr(name, "id", "") == "default_code" and isinstance(value, ast.Constant)
    }


def _codes_in(tree: ast.AST) -> set[str]:
    codes: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg == "code" and isinstance(value, ast.Constant):
                    code = str(value.value)
                    if _call_name(node) == "ValidationError" and not code.startswith("jc:"):
                        code = _DRF_CODE_MAP.get(code, "parameter_invalid")
                    codes.add(code.removeprefix("jc:"))
        elif isinstance(node, ast.Assign):
            codes |= _default_codes(node)
        elif isinstance(node, ast.Constant) and re.fullmatch(r"jc:[a-z_]+", str(node.value)):
            codes.add(node.value[3:])
    return codes


def emitted_codes() -> set[str]:
    codes = set(_DRF_CODE_MAP.values())
    for directory in SOURCE_DIRS:
        for path in Path(settings.BASE_DIR, directory).rglob("*.py"):
            if "migrations" not in path.parts:
                codes |= _codes_in(ast.parse(path.read_text(), filename=str(path)))
    return codes


def documented_codes() -> set[str]:
    return set(re.findall(r"^\| (?:\d{3} \| )?`([a-z_]+)` \|", REFERENCE.read_text(), re.M))


def test_the_scan_finds_the_codes_of_each_kind():
    codes = emitted_codes()
    # keyword, class default, jc: serializer code, DRF translation, tuple-assigned default
    assert {"cursor_invalid", "resource_missing", "parameter_unknown", "parameter_missing"} <= codes
    assert {"body_too_large", "cost_code_required", "role_forbidden"} <= codes
    assert "invalid" not in codes  # a DRF field code, translated before it is emitted


def test_every_emitted_code_is_in_the_error_reference():
    missing = emitted_codes() - documented_codes() - BASE_DEFAULTS
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
