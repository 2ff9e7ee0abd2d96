"""Row functions generated for one serializer and one row type (docs/architecture.md).

`jobcost.api.output` compiles a serializer into a plan: one `FieldPlan` per readable field,
in declared order, each with its compiled function `value(row, call)` (DRF's semantics: the
attribute, None as None, `SkipField` to leave the key out). Calling those functions one by
one cost three or four Python calls per field, and a page of 100 invoices has 2,600 fields.

`row_function(plan, row_type)` writes, as Python source compiled once (as `dataclasses` writes
`__init__`), the function for rows of `row_type`: a field whose source is a column of that
model (its class attribute is Django's plain `DeferredAttribute`, so reading it reads the
instance's `__dict__`) is read from `__dict__` and converted inline — the same conversion as
its compiled function, `str`, `int`, ISO date, the UTC strftime of a timestamp, or the
field's value-only converter; a column missing from `__dict__` (deferred) and every other
field call the field's compiled function. For a row that is not a model instance every field
calls its compiled function. tests/jobcost/api/test_output.py compares every resource with
DRF field by field.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from inspect import getattr_static
from typing import Any

from django.db.models import Model
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from rest_framework.fields import SkipField

_MISSING = object()

# Inline conversion of a column value `v` (never None here) by kind; `c{i}` is the field's own
# conversion for anything unusual, `F{i}` a timestamp field's strftime format.
_EXPRESSIONS = {
    "str": "v if v.__class__ is _str else _str(v)",
    "int": "v if v.__class__ is _int else _int(v)",
    "date": "v.isoformat() if v.__class__ is _date else c{i}(v)",
    "datetime": (
        "v.astimezone(tz).strftime(F{i}) if v.__class__ is _datetime and v.utcoffset() "
        "is not None else c{i}(v, call)"
    ),
    "call": "c{i}(v)",
}


@dataclass(frozen=True)
class FieldPlan:
    """One readable field of a compiled serializer: its output `key`, its compiled `value`
    function, and — when a model's column may be read inline — the `column` name, the
    conversion `kind` (a key of `_EXPRESSIONS`) and `convert` (for `datetime`, the pair of
    strftime format and the `(value, call)` converter; else a one-argument converter)."""

    key: str
    value: Callable[[Any, Any], Any]
    column: str | None = None
    kind: str | None = None
    convert: Any = None


def _is_column(row_type: type, name: str) -> bool:
    return (
        isinstance(row_type, type)
        and issubclass(row_type, Model)
        and type(getattr_static(row_type, name, None))
        in (DeferredAttribute, ForeignKeyDeferredAttribute)
    )


def row_function(plan: list[FieldPlan], row_type: type) -> Callable[[Any, Any], dict]:
    """The function `(row, call) -> dict` for rows of exactly `row_type` (see the module's
    docstring): the same dict, keys in plan order, as calling each field's `value` in turn
    and leaving out those that raise `SkipField`."""
    inline = [f.kind is not None and _is_column(row_type, f.column) for f in plan]
    env: dict[str, Any] = {
        "_M": _MISSING,
        "_Skip": SkipField,
        "_str": str,
        "_int": int,
        "_date": datetime.date,
        "_datetime": datetime.datetime,
    }
    lines = ["def render(row, call):", "    out = {}"]
    if any(inline):
        lines.append("    d = row.__dict__")
    if any(f.kind == "datetime" for f, read in zip(plan, inline, strict=True) if read):
        lines.append("    tz = call.tz")
    for i, (field, read) in enumerate(zip(plan, inline, strict=True)):
        env[f"f{i}"] = field.value
        key = repr(field.key)
        call = [
            "try:",
            f"    out[{key}] = f{i}(row, call)",
            "except _Skip:",
            "    pass",
        ]
        if not read:
            lines += ["    " + line for line in call]
            continue
        if field.kind == "datetime":
            env[f"F{i}"], env[f"c{i}"] = field.convert
        else:
            env[f"c{i}"] = field.convert
        expression = _EXPRESSIONS[field.kind].format(i=i)
        lines += [
            f"    v = d.get({field.column!r}, _M)",
            "    if v is _M:",
            *("        " + line for line in call),
            "    else:",
            f"        out[{key}] = None if v is None else ({expression})",
        ]
    lines.append("    return out")
    source = "\n".join(lines)
    # Generated from the plan's names and kinds only (no request data): see the docstring.
    exec(compile(source, f"<row function of {row_type.__name__}>", "exec"), env)  # noqa: S102
    return env["render"]
