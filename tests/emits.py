"""What the services emit, checked on every test (docs/events.md, "Emits"): a pytest plugin
that watches every audit entry written in the test process, finds the outermost public service
function on the stack that caused it (`jobcost/services/*.py`, `webhooks/services.py`,
`webhooks/endpoint_state.py`), and fails the test when that service's docstring has no
"Emits:" line naming the entry (`audit invoice.approved`) — so a docstring cannot fall behind
what its service does. `EMITS_DUMP=<file>` also writes what was seen, as JSON.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import sys
from pathlib import Path

import pytest

SERVICE_MODULES = (
    "jobcost.services.agent_actions",
    "jobcost.services.api_keys",
    "jobcost.services.backoffice_users",
    "jobcost.services.budget_imports",
    "jobcost.services.change_orders",
    "jobcost.services.commitments",
    "jobcost.services.cost_codes",
    "jobcost.services.daily_logs",
    "jobcost.services.invoices",
    "jobcost.services.lien_waivers",
    "jobcost.services.parties",
    "jobcost.services.pay_app_payments",
    "jobcost.services.pay_apps",
    "jobcost.services.projects",
    "jobcost.services.rfis",
    "webhooks.services",
    "webhooks.endpoint_state",
)
EMITS = re.compile(r"^\s*Emits:(?P<body>.*?)(?:\n\s*\n|\Z)", re.M | re.S)


def services() -> dict[str, object]:
    """Every public module-level function of the service modules, by `module.name`."""
    found = {}
    for name in SERVICE_MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.startswith("_") or not inspect.isfunction(value):
                continue
            if inspect.unwrap(value).__module__ == name:
                found[f"{name}.{attr}"] = value
    return found


def declared(function) -> dict[str, set[str]]:
    """The docstring's "Emits:" line as {"audit": {...}, "events": {...}}: `Emits: audit
    invoice.approved, budget_line.updated; events invoice.approved, budget.updated.` ("none"
    for a service that writes nothing)."""
    doc = inspect.getdoc(function) or ""
    match = EMITS.search(doc)
    result: dict[str, set[str]] = {"audit": set(), "events": set()}
    if match is None:
        return result
    for part in " ".join(match.group("body").split()).rstrip(".").split(";"):
        kind, _, names = part.strip().partition(" ")
        if kind in result:
            result[kind] = {n.strip() for n in names.split(",") if n.strip() not in ("", "none")}
    return result


def has_emits_line(function) -> bool:
    return EMITS.search(inspect.getdoc(function) or "") is not None


class Watcher:
    """Receives `entry_recorded` / `entries_recorded`; maps each entry to its service."""

    def __init__(self):
        table = services()
        self.codes = {inspect.unwrap(f).__code__: name for name, f in table.items()}
        # A service's audit entries are written as its `service` wrapper returns (after the
        # function's own frame is gone): that frame stands for the function it wraps.
        from jobcost.services.common import service

        self.wrapper = service(lambda: None).__code__
        self.functions = table
        self.seen: dict[str, set[str]] = {}
        self.problems: list[str] = []

    def outermost(self) -> str | None:
        found = None
        frame = sys._getframe(2)
        while frame is not None:
            name = self.codes.get(frame.f_code)
            if name is None and frame.f_code is self.wrapper:
                name = self.codes.get(inspect.unwrap(frame.f_locals["func"]).__code__)
            if name is not None:
                found = name
            frame = frame.f_back
        return found

    def note(self, entries) -> None:
        service = self.outermost()
        if service is None:
            return
        allowed = declared(self.functions[service])["audit"]
        for entry in entries:
            emitted = f"{entry.target_type}.{entry.action}"
            self.seen.setdefault(service, set()).add(emitted)
            if emitted not in allowed:
                self.problems.append(f"{service} wrote audit {emitted}, not on its Emits: line")

    def on_entry(self, sender, entry, **kwargs):
        self.note([entry])

    def on_entries(self, sender, entries, **kwargs):
        self.note(entries)


_watcher: Watcher | None = None


def watcher() -> Watcher:
    global _watcher
    if _watcher is None:
        _watcher = Watcher()
    return _watcher


@pytest.fixture(autouse=True)
def _emits_match_the_docstrings():
    """Fail the test when a service wrote an audit entry its "Emits:" line does not name."""
    from audit.services import entries_recorded, entry_recorded

    watch = watcher()
    entry_recorded.connect(watch.on_entry, dispatch_uid="tests.emits")
    entries_recorded.connect(watch.on_entries, dispatch_uid="tests.emits")
    before = len(watch.problems)
    yield
    entry_recorded.disconnect(dispatch_uid="tests.emits")
    entries_recorded.disconnect(dispatch_uid="tests.emits")
    problems = sorted(set(watch.problems[before:]))
    assert problems == [], "\n".join(problems)


def pytest_sessionfinish(session, exitstatus):
    dump = os.environ.get("EMITS_DUMP")
    if dump and _watcher is not None:
        data = {name: sorted(seen) for name, seen in sorted(_watcher.seen.items())}
        Path(dump).write_text(json.dumps(data, indent=1))
