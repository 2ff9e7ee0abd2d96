"""Schemathesis over /v1/openapi.json against a live, seeded server (README "Fuzzing the
API"): every check, including `positive_data_acceptance`, `negative_data_rejection` and the
stateful phase's links, must pass.

Bounded here (a fixed seed, a few examples per operation: a few minutes on this machine);
`make fuzz` runs the same harness longer with a random seed (FUZZ_SEED, FUZZ_MAX_EXAMPLES).
The configuration is in schemathesis.toml, the hooks in tests/contract/hooks.py.

The run is cut in parts that pytest-xdist can spread over its workers: the examples, coverage
and fuzzing phases one schema tag at a time (every operation has exactly one tag, and
`test_the_parts_cover_every_operation` holds the parts to the schema), and the stateful phase,
whose links join operations of every tag, as one part over the whole schema. Each part gets a
freshly seeded server, so no part depends on what another wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.test import Client

from tests.contract.conftest import seeded_ids

SEED = int(os.environ.get("FUZZ_SEED", "20261120"))
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "5"))
TIMEOUT = int(os.environ.get("FUZZ_TIMEOUT", "600"))
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
REPORT_DIR = settings.VAR_DIR / "schemathesis"  # the last run's output and JUnit report, by part

# The schema's tags (one per resource), in three parts of about thirty-four operations each for
# the examples, coverage and fuzzing phases (a part pays for a seeded server and a schemathesis
# start, a few seconds of CPU each, so fewer, larger parts cost less in all while two workers
# still share them evenly); then the stateful phase over every operation.
TAG_PARTS = [
    ["pay-apps", "budgets", "events", "change-orders", "webhooks"],
    ["commitments", "invoices", "agent-actions", "projects", "budget-imports"],
    ["rfis", "cost-codes", "daily-logs", "lien-waivers", "owners", "vendors", "reports"],
]
UNIT_PHASES = "examples,coverage,fuzzing"
PARTS = [
    ("+".join(tags), [f"--phases={UNIT_PHASES}", *(f"--include-tag={tag}" for tag in tags)])
    for tags in TAG_PARTS
]
PARTS.append(("stateful", ["--phases=stateful"]))


def _operations(schema: dict) -> list[tuple[str, list[str]]]:
    methods = {"get", "post", "put", "patch", "delete"}
    return [
        (operation["operationId"], operation.get("tags", []))
        for item in schema["paths"].values()
        for method, operation in item.items()
        if method in methods
    ]


def test_the_parts_cover_every_operation(settings):
    """Every operation of the served schema has exactly one tag, and that tag is a part: no
    operation escapes the fuzzing when a resource is added."""
    settings.ALLOWED_HOSTS = ["testserver"]
    schema = Client().get("/v1/openapi.json").json()
    untagged = [op for op, tags in _operations(schema) if len(tags) != 1]
    assert untagged == []
    parted = [tag for tags in TAG_PARTS for tag in tags]
    assert len(parted) == len(set(parted))  # no tag in two parts
    assert {tags[0] for _op, tags in _operations(schema)} == set(parted)


@pytest.mark.postgres
@pytest.mark.parametrize(("part", "selection"), PARTS, ids=[part for part, _ in PARTS])
def test_schemathesis_finds_no_failure(seeded_server, tmp_path, part, selection):
    schema = httpx.get(f"{seeded_server.url}/v1/openapi.json").json()
    ids_file = tmp_path / "ids.json"
    ids_file.write_text(json.dumps(seeded_ids(seeded_server, schema)))
    report_dir = REPORT_DIR / part
    command = [
        str(SCHEMATHESIS),
        "run",
        f"{seeded_server.url}/v1/openapi.json",
        "--checks=all",
        f"--seed={SEED}",
        f"--max-examples={MAX_EXAMPLES}",
        *selection,
        "--report=junit",
        f"--report-junit-path={report_dir / 'junit.xml'}",
        "--no-color",
    ]
    env = {
        **os.environ,
        "JOBCOST_FUZZ_IDS": str(ids_file),
        "JOBCOST_FUZZ_KEY": seeded_server.secret,
        "PYTHONPATH": str(settings.BASE_DIR),
    }
    run = subprocess.run(
        command,
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "output.txt").write_text(run.stdout + run.stderr)
    report = (
        f"part {part}: seed {SEED}, {MAX_EXAMPLES} examples; "
        f"full output: {report_dir / 'output.txt'}\n" + run.stdout[-20_000:] + run.stderr
    )
    assert run.returncode == 0, report
