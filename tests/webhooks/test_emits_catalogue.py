"""The services' "Emits:" lines, the event catalogue and docs/events.md in step (docs/events.md,
"The 'Emits:' line"). What the services really write is checked against the same lines by the
`tests.emits` plugin on every test."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from tests.emits import declared, has_emits_line, services
from webhooks.catalogue import CATALOGUE, event_type

DOC = Path(settings.BASE_DIR) / "docs" / "events.md"
MARK = "<!-- emits-table: checked by tests/webhooks/test_emits_catalogue.py -->"


def _emitters() -> dict[str, list[str]]:
    """Event type → the services (`module.function`, short) whose line names it."""
    found: dict[str, list[str]] = {}
    for name, function in services().items():
        for type_ in declared(function)["events"]:
            found.setdefault(type_, []).append(name.rsplit(".", 2)[-2] + "." + name.split(".")[-1])
    return {type_: sorted(names) for type_, names in found.items()}


def expected_table() -> str:
    rows = ["| event type | emitted by |", "|---|---|"]
    emitters = _emitters()
    for type_ in sorted(CATALOGUE):
        rows.append(f"| `{type_}` | {', '.join(f'`{n}`' for n in emitters.get(type_, []))} |")
    return "\n".join(rows) + "\n"


def test_every_public_service_has_an_emits_line():
    missing = [name for name, function in services().items() if not has_emits_line(function)]
    assert missing == []


def test_each_lines_events_are_what_the_catalogue_makes_of_its_audit_entries():
    wrong = {}
    for name, function in services().items():
        lines = declared(function)
        made = set()
        for entry in lines["audit"]:
            object_name, _, action = entry.partition(".")
            type_ = event_type(object_name, action)
            if type_ is not None:
                made.add(type_)
        if made != lines["events"]:
            wrong[name] = {"declared": sorted(lines["events"]), "from audit": sorted(made)}
    assert wrong == {}


def test_every_catalogue_type_is_emitted_by_some_service():
    assert set(_emitters()) == set(CATALOGUE)


def test_docs_table_lists_the_catalogue_and_its_emitters():
    """docs/events.md ends with the table this test builds; on a change, paste the expected
    table from the failure."""
    text = DOC.read_text()
    assert MARK in text
    assert text.split(MARK, 1)[1].strip() + "\n" == expected_table(), expected_table()


def test_the_parser_reads_a_line_across_lines_and_none():
    def sample():
        """Do it.

        Emits: audit invoice.approved,
        budget_line.updated; events invoice.approved, budget.updated.
        """

    def quiet():
        """Read.

        Emits: none.
        """

    assert declared(sample) == {
        "audit": {"invoice.approved", "budget_line.updated"},
        "events": {"invoice.approved", "budget.updated"},
    }
    assert declared(quiet) == {"audit": set(), "events": set()}
    assert has_emits_line(quiet)
