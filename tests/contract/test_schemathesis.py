"""Schemathesis over /v1/openapi.json against a live, seeded server (docs/openapi.md,
"Fuzzing the API"): every check, including `positive_data_acceptance`, `negative_data_rejection` and
the stateful phase's links, must pass.

Bounded here (a fixed seed, a few examples per operation: a few minutes on this machine);
`make fuzz` runs the same harness longer with a random seed (FUZZ_SEED, FUZZ_MAX_EXAMPLES,
and FUZZ_PHASES to run only some phases).
The configuration is in schemathesis.toml, the hooks in tests/contract/hooks.py.

One schemathesis run covers the whole schema in every phase (examples, coverage, fuzzing,
then the stateful phase, whose links join operations of every resource). It used to be cut
in four parts for pytest-xdist to spread; each part paid for a seeded server and a
schemathesis start, about 5 s of CPU, and the suite is CPU-bound, so one run costs less.
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
REPORT_DIR = settings.VAR_DIR / "schemathesis"  # the last run's output and JUnit report

PHASES = os.environ.get("FUZZ_PHASES", "examples,coverage,fuzzing,stateful")


def test_every_operation_has_exactly_one_tag(settings):
    """Every operation of the served schema carries one tag, its resource, by which the API
    reference (/docs) groups operations."""
    settings.ALLOWED_HOSTS = ["testserver"]
    schema = Client().get("/v1/openapi.json").json()
    methods = {"get", "post", "put", "patch", "delete"}
    tags = {
        operation["operationId"]: operation.get("tags", [])
        for item in schema["paths"].values()
        for method, operation in item.items()
        if method in methods
    }
    assert len(tags) > 90
    assert {op: t for op, t in tags.items() if len(t) != 1} == {}


@pytest.mark.postgres
def test_schemathesis_finds_no_failure(seeded_server, tmp_path):
    schema = httpx.get(f"{seeded_server.url}/v1/openapi.json").json()
    ids_file = tmp_path / "ids.json"
    ids_file.write_text(json.dumps(seeded_ids(seeded_server, schema)))
    report_dir = REPORT_DIR
    command = [
        str(SCHEMATHESIS),
        "run",
        f"{seeded_server.url}/v1/openapi.json",
        "--checks=all",
        f"--seed={SEED}",
        f"--max-examples={MAX_EXAMPLES}",
        f"--phases={PHASES}",
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
        f"seed {SEED}, {MAX_EXAMPLES} examples; "
        f"full output: {report_dir / 'output.txt'}\n" + run.stdout[-20_000:] + run.stderr
    )
    assert run.returncode == 0, report
