"""docs/errors.md and the error-code enums say the same thing, and no code is a bare string.

Every code is a member of one domain's `StrEnum`, found by reading the source for classes named
`…ErrorCode` (`jobcost/error_codes.py`, `webhooks/errors.py`). docs/errors.md gives each enum
a section, named in its heading, whose table lists exactly the enum's members, each with the
status the source raises it with. The lint below keeps codes out of string literals: outside
the enums' modules no code is spelled as a string, no `jc:` field code is written by hand
(`jobcost.errors.field_code` builds them), and 409 `invalid_state_transition` is built only by
`jobcost.services.common.not_allowed`.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from enum import StrEnum
from functools import cache
from importlib import import_module
from pathlib import Path

from django.conf import settings

from jobcost.errors import ERROR_TYPES as ENVELOPE_TYPES

SOURCE_DIRS = ("jobcost", "audit", "webhooks", "config", "bench")
REFERENCE = settings.BASE_DIR / "docs" / "errors.md"

# docs/errors.md codes of resources still to be built: members documented ahead, marked
# "(later issue: …)", that nothing raises yet. None today (`url_invalid` arrived with the
# webhooks); the checks below hold for the next one.
LATER: set[str] = set()

# Envelope `type`s that some codes share by name (`invalid_request`, `validation_failed`,
# `rate_limited`): written as strings where the types are defined, and only there.
ERROR_TYPES = set(ENVELOPE_TYPES)
TYPE_MODULES = {"jobcost/errors.py"}
# The one builder of 409 `invalid_state_transition` (module, function).
TRANSITION_BUILDER = ("jobcost/services/common.py", "not_allowed")


# --- the source, read once ----------------------------------------------------------------
@cache
def sources() -> tuple[tuple[str, ast.Module], ...]:
    """(path relative to the checkout, syntax tree) of every source file; not migrations."""
    found = []
    for directory in SOURCE_DIRS:
        for path in sorted(Path(settings.BASE_DIR, directory).rglob("*.py")):
            if "migrations" not in path.parts:
                rel = path.relative_to(settings.BASE_DIR).as_posix()
                found.append((rel, ast.parse(path.read_text(), filename=rel)))
    return tuple(found)


@cache
def error_code_enums() -> dict[str, type[StrEnum]]:
    """Every `class …ErrorCode` of the source, by name, imported from its module."""
    enums = {}
    for rel, tree in sources():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name.endswith("ErrorCode"):
                module = import_module(rel.removesuffix(".py").replace("/", "."))
                enums[node.name] = getattr(module, node.name)
    return enums


def enum_modules() -> set[str]:
    return {
        rel
        for rel, tree in sources()
        if any(isinstance(n, ast.ClassDef) and n.name in error_code_enums() for n in tree.body)
    }


def all_codes() -> dict[str, str]:
    """code → the name of its enum."""
    return {m.value: name for name, enum in error_code_enums().items() for m in enum}


def member(node: ast.AST) -> str | None:
    """The code an expression `SomeErrorCode.MEMBER` names, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        enum = error_code_enums().get(node.value.id)
        if enum is not None and node.attr in enum.__members__:
            return enum[node.attr].value
    return None


def call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def class_assignments(node: ast.ClassDef) -> dict[str, ast.expr]:
    """A class body's `name = value`, `name: T = value` and `a, b = x, y` assignments."""
    found: dict[str, ast.expr] = {}
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and statement.value is not None:
            found[getattr(statement.target, "id", "")] = statement.value
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple):
                    for name, value in zip(target.elts, statement.value.elts, strict=True):
                        found[getattr(name, "id", "")] = value
                else:
                    found[getattr(target, "id", "")] = statement.value
    return found


@cache
def error_classes() -> dict[str, int]:
    """`ApiError` and every subclass in the source, by name → HTTP status (its own `status`,
    else its base's)."""
    classes = {"ApiError": 400}
    defs = [n for _, tree in sources() for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    grew = True
    while grew:
        grew = False
        for node in defs:
            bases = [getattr(b, "id", getattr(b, "attr", "")) for b in node.bases]
            base = next((b for b in bases if b in classes), None)
            if node.name in classes or base is None:
                continue
            own = class_assignments(node).get("status")
            classes[node.name] = own.value if isinstance(own, ast.Constant) else classes[base]
            grew = True
    return classes


# --- docs/errors.md -----------------------------------------------------------------------
def documented() -> dict[str | None, dict[str, str]]:
    """Each section's enum name → {code: documented status, or "—" for a code that is never
    an error response}; rows outside a domain's section under None."""
    sections: dict[str | None, dict[str, str]] = {None: {}}
    current: str | None = None
    for line in REFERENCE.read_text().splitlines():
        if line.startswith("#"):
            heading = re.search(r"\(`(\w+ErrorCode)`\)$", line)
            current = heading[1] if heading else None
            sections.setdefault(current, {})
        elif row := re.match(r"^\| `([a-z_]+)` \| (\d{3}|—) \|", line):
            sections[current][row[1]] = row[2]
        elif re.match(r"^\| `[a-z_]+` \|", line):
            sections[None][line.split("`")[1]] = "?"  # a code row without a status
    return sections


def documented_codes() -> dict[str, str]:
    return {code: status for rows in documented().values() for code, status in rows.items()}


# --- what the source raises -----------------------------------------------------------------
def default_of(node: ast.ClassDef) -> str | None:
    """The code a class's `default_code = Enum.MEMBER` names."""
    return member(class_assignments(node).get("default_code"))


def raised_statuses() -> dict[str, set[int]]:
    """code → the statuses it is raised with: `SomeError(…, code=Enum.MEMBER)` (or a
    subclass's `super().__init__(…, code=…)`), the classes' `default_code`s, and
    `field_code(Enum.MEMBER)` (a serializer's field error, 400)."""
    classes = error_classes()
    found: dict[str, set[int]] = defaultdict(set)
    for _, tree in sources():
        inits = {
            id(call): node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and node.name in classes
            for call in ast.walk(node)
            if isinstance(call, ast.Call) and call_name(call) == "__init__"
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                raising = inits.get(id(node), call_name(node))
                given = [member(k.value) for k in node.keywords if k.arg == "code"]
                if raising == "field_code" and node.args:
                    raising, given = "InvalidRequest", [member(node.args[0])]
                for code in given:
                    if code and raising in classes:
                        found[code].add(classes[raising])
            elif isinstance(node, ast.ClassDef) and node.name in classes and default_of(node):
                found[default_of(node)].add(classes[node.name])
    return found


def referenced_codes() -> set[str]:
    """Codes named as `Enum.MEMBER` anywhere outside the enums' own modules."""
    modules = enum_modules()
    return {
        code
        for rel, tree in sources()
        if rel not in modules
        for node in ast.walk(tree)
        if (code := member(node))
    }


def test_each_code_is_one_member_of_one_enum():
    enums = error_code_enums()
    assert {"RequestErrorCode", "ProjectErrorCode", "WebhookErrorCode"} <= set(enums)
    values = [m.value for enum in enums.values() for m in enum]
    assert len(values) == len(set(values)), "a code is a member of two enums"
    for enum in enums.values():
        assert issubclass(enum, StrEnum)
        for m in enum:
            assert re.fullmatch(r"[a-z_]+", m.value) and m.name == m.value.upper(), m


def test_each_enum_has_a_section_listing_exactly_its_codes():
    sections = documented()
    assert not sections.pop(None), "codes documented outside a domain's section"
    enums = error_code_enums()
    assert set(sections) == set(enums), "one section per enum, named in its heading"
    for name, rows in sections.items():
        codes = {m.value for m in enums[name]}
        assert set(rows) == codes, (
            f"{name}: undocumented {sorted(codes - set(rows))}, "
            f"not members {sorted(set(rows) - codes)}"
        )


def test_each_code_is_documented_with_the_status_it_is_raised_with():
    statuses = documented_codes()
    raised = raised_statuses()
    assert {"cursor_invalid", "resource_missing", "parameter_unknown"} <= set(raised)
    assert raised["body_too_large"] == {413}  # a class's default
    assert raised["rows_invalid"] == {422}  # a subclass in a service (RowsRefused)
    for code, found in raised.items():
        assert found == {int(statuses[code])}, f"{code}: raised {found}, doc {statuses[code]}"
    never_raised = {code for code, status in statuses.items() if status == "—"}
    # Codes only a budget import's `errors` lists (a row's refusal), never an error response.
    assert never_raised == {"duplicate_code", "formula_not_calculated"}
    assert not never_raised & set(raised)


def test_every_code_is_used_or_planned():
    unused = set(all_codes()) - referenced_codes() - LATER
    assert not unused, f"members nothing names (stale docs): {sorted(unused)}"
    assert not LATER & referenced_codes(), "a code is used but still listed as later"


def _rows(code: str) -> list[str]:
    return [line for line in REFERENCE.read_text().splitlines() if line.startswith(f"| `{code}` |")]


def test_codes_of_later_resources_are_listed_and_marked():
    for code in LATER:
        rows = _rows(code)
        assert len(rows) == 1, code
        assert "(later issue: " in rows[0], code
    # The last one to arrive: the webhooks raise it now, documented with its param.
    assert "url_invalid" in referenced_codes()
    [row] = _rows("url_invalid")
    assert row.startswith("| `url_invalid` | 400 | `url` |") and "(later issue: " not in row


def test_only_codes_of_later_resources_are_marked_later():
    marked = {code for code in documented_codes() if "(later issue: " in _rows(code)[0]}
    assert marked == LATER, "docs/errors.md marks used codes as later"


# --- the lint: no code spelled as a string --------------------------------------------------
def _docstrings(tree: ast.Module) -> set[int]:
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.ClassDef, ast.FunctionDef)))]
    return {
        id(n.body[0].value)
        for n in nodes
        if n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)
    }


def _is_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _enum_typed_parameters(tree: ast.Module) -> dict[str, tuple[int, str]]:
    """Callables whose signature types a parameter as an enum (`StrEnum`, `…ErrorCode`):
    name (the class, for an `__init__`) → (positional index or -1, parameter name)."""
    owners = {
        id(item): node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
    }
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        name = owners.get(id(node), node.name) if node.name == "__init__" else node.name
        positional = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
        for arg in node.args.args + node.args.kwonlyargs:
            typed = ast.unparse(arg.annotation) if arg.annotation else ""
            if "StrEnum" in typed or "ErrorCode" in typed:
                index = positional.index(arg.arg) if arg.arg in positional else -1
                found[name] = (index, arg.arg)
    return found


def offences(rel: str, tree: ast.Module, carriers: dict[str, tuple[int, str]]) -> list[str]:
    """Where `tree` spells an error code as a string instead of naming an enum member."""
    codes = all_codes()
    skip = _docstrings(tree)
    in_enum_module = rel in enum_modules()
    found = []

    def say(node: ast.AST, what: str) -> None:
        found.append(f"{rel}:{node.lineno}: {what}")

    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            parent = parents.get(id(node))
            is_key = isinstance(parent, ast.Dict) and any(k is node for k in parent.keys)
            is_type = node.value in ERROR_TYPES and rel in TYPE_MODULES
            if node.value in codes and not (is_key or is_type or in_enum_module):
                say(node, f'"{node.value}": name {codes[node.value]}.{node.value.upper()}')
            prefix = isinstance(parent, ast.Assign) and any(
                getattr(t, "id", "") == "FIELD_CODE_PREFIX" for t in parent.targets
            )
            if node.value.startswith("jc:") and not prefix:
                say(node, f'"{node.value}": build field codes with jobcost.errors.field_code')
        elif isinstance(node, ast.Call) and call_name(node) in carriers:
            index, name = carriers[call_name(node)]
            given = [k.value for k in node.keywords if k.arg == name]
            given += [node.args[index]] if 0 <= index < len(node.args) else []
            for value in given:
                if _is_literal(value):
                    say(value, f"{call_name(node)}({name}=<a string>): name an enum member")
        elif isinstance(node, ast.ClassDef):
            default = class_assignments(node).get("default_code")
            if default is not None and _is_literal(default):
                say(default, f"{node.name}.default_code is a string: name an enum member")
    return found


def test_no_error_code_is_a_bare_string():
    carriers = {name: (-1, "code") for name in error_classes()}
    for _, tree in sources():
        carriers.update(_enum_typed_parameters(tree))
    assert {"FileRefused", "row_error", "refuse"} <= set(carriers)
    found = [line for rel, tree in sources() for line in offences(rel, tree, carriers)]
    assert not found, "\n".join(found)


def test_the_lint_finds_each_kind_of_bare_code():
    snippet = """
class Refused(Conflict):
    default_code = "some_new_code"

def refuse(row, code: StrEnum): ...

raise NotFound("No.", code="route_missing")
raise Refused("No.", code=f"{kind}_closed")
raise ValidationError("x", code="jc:parameter_unknown")
refuse(1, "duplicate_code")
errors = {409: ("project_closed",)}
if error.code == "lines_sum_mismatch": ...
changes = {"lien_waivers_missing": []}  # a field of that name, not a code
"""
    tree = ast.parse(snippet)
    carriers = {"NotFound": (-1, "code"), "Refused": (-1, "code"), **_enum_typed_parameters(tree)}
    found = offences("jobcost/example.py", tree, carriers)
    lines = sorted({int(line.split(":")[1]) for line in found})
    assert lines == [3, 7, 8, 9, 10, 11, 12], found


def test_only_not_allowed_builds_invalid_state_transition():
    module, builder = TRANSITION_BUILDER
    built = []
    for rel, tree in sources():
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        inside = {
            id(n) for f in functions if (rel, f.name) == (module, builder) for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or id(node) in inside:
                continue
            codes = [member(k.value) for k in node.keywords if k.arg == "code"]
            if "invalid_state_transition" in codes or (
                call_name(node) == "Conflict" and not codes  # its default code
            ):
                built.append(f"{rel}:{node.lineno}")
    assert not built, f"use {builder}() for 409 invalid_state_transition: {built}"
