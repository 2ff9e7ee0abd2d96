"""docs/quickstart.md, run as a reader runs it: every sh block of the walk-through, in order,
in one bash session, against a live server of the test database seeded as `make run` seeds it
(`seed_demo`). Each block's output must hold every line of the output the page shows below
it, but for what differs from run to run (IDs, keys, timestamps, the server's version) and
what the page abridges (`…`). README.md's short quickstart runs the same way."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.live_gunicorn import database_url

BASE = Path(settings.BASE_DIR)
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
# What changes from run to run: object IDs and key secrets, timestamps, request IDs, headers
# that carry dates, sizes or the server's version.
VARIES = re.compile(
    r"[a-z]{2,5}_[A-Za-z0-9]{16,}|jc_(?:test|live)_|\d{4}-\d\d-\d\dT\d\d:|req_|…"
    r"|^\s*(?:Date|Server|Request-Id|RateLimit-[\w-]+|Content-Length|Idempotency-Key):",
    re.IGNORECASE,
)
MARK = "=== quickstart block {} ==="
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _steps(markdown: str) -> list[tuple[str, str]]:
    """[(sh block, the output block after it or "")], in the page's order."""
    steps: list[tuple[str, str]] = []
    for kind, body in BLOCK.findall(markdown):
        if kind == "sh":
            steps.append((body, ""))
        elif steps and not steps[-1][1]:
            steps[-1] = (steps[-1][0], body)
    return steps


def _stable_lines(shown: str) -> list[str]:
    return [
        line.strip().rstrip(",")
        for line in shown.splitlines()
        if line.strip() and line.strip() not in "{}[]," and not VARIES.search(line)
    ]


def _run(commands: list[str], live_server, tmp_path) -> list[str]:
    """Each of `commands` run in turn in one bash session against `live_server` after
    `seed_demo`, as `make run` leaves it; the output of each."""
    call_command("seed_demo", stdout=io.StringIO())
    script = ["set -euo pipefail"]
    for number, block in enumerate(commands):
        script += [f"echo '{MARK.format(number)}'", block]
    (tmp_path / "var").mkdir()
    before = set(BASE.iterdir())
    try:
        result = _bash(script, live_server, tmp_path)
    finally:
        # What the page saves in the project folder (the PDF of step 8) goes with the test:
        # a new file the commands name, and no other process's.
        for made in set(BASE.iterdir()) - before:
            if made.is_file() and made.name in "\n".join(commands):
                made.unlink()
    assert result.returncode == 0, result.stderr[-2000:]
    outputs = re.split(r"=== quickstart block \d+ ===\n", result.stdout)[1:]
    assert len(outputs) == len(commands)
    return outputs


def _bash(script: list[str], live_server, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", "\n".join(script).replace("http://127.0.0.1:8000", live_server.url)],
        cwd=BASE,
        env={
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "DATABASE_URL": database_url(),
            "JOBCOST_VAR_DIR": str(tmp_path / "var"),
        },
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_quickstart_runs_as_written(live_server, tmp_path):
    steps = _steps((BASE / "docs" / "quickstart.md").read_text())
    assert len(steps) >= 10, "the walk-through has its steps"
    outputs = _run([commands for commands, _ in steps], live_server, tmp_path)
    checked = [
        (number, line, line in output)
        for number, ((_, shown), output) in enumerate(zip(steps, outputs, strict=True))
        for line in _stable_lines(shown)
    ]
    assert len(checked) > 100, "most of what the page shows is compared"
    assert [(number, line) for number, line, found in checked if not found] == []


def test_the_readme_quickstart_runs_as_written(live_server, tmp_path):
    readme = (BASE / "README.md").read_text()
    section = readme.split("\n## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    (commands,) = [body for kind, body in BLOCK.findall(section) if kind == "sh"]
    assert len(commands.splitlines()) <= 10
    (output,) = _run([commands], live_server, tmp_path)
    assert '"number": "2026-014"' in output  # the project, listed then retrieved
    assert '"object": "pay_app"' in output
    assert "01-500,General conditions" in output  # the job cost report as CSV
