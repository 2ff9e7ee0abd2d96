"""The PostgreSQL connection's options (README "Configuration", docs/architecture.md): the
server binds parameters, and a statement a connection runs DATABASE_PREPARE_THRESHOLD times is
prepared there; "off" prepares nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from jobcost.models import Project


@pytest.mark.postgres
def test_a_statement_run_often_is_prepared_on_the_server(db):
    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    if threshold is None:
        pytest.skip("DATABASE_PREPARE_THRESHOLD is off in this environment: nothing is prepared")

    def prepared() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return [row[0] for row in cursor.fetchall() if '"jobcost_project"."number"' in row[0]]

    lookup = Project.objects.filter(number="no such project").values_list("number")
    # psycopg counts the executions: the first `threshold` run unprepared, the next prepares.
    runs = [list(lookup.filter(name=f"run {n}")) for n in range(threshold)]
    assert runs == [[]] * threshold
    assert prepared() == []
    list(lookup.filter(name="the next run"))
    assert len(prepared()) == 1


@pytest.mark.parametrize(
    ("value", "expected"), [("off", None), ("", None), (" No ", None), ("0", 0), (None, 5)]
)
def test_the_threshold_comes_from_the_environment(value, expected, tmp_path):
    env = _env(tmp_path)
    if value is not None:
        env["DATABASE_PREPARE_THRESHOLD"] = value
    code = (
        "import json; from django.conf import settings; "
        "print(json.dumps(settings.DATABASES['default']['OPTIONS']))"
    )
    result = _python(code, env)
    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)
    assert options == {"server_side_binding": True, "prepare_threshold": expected}


def test_a_threshold_that_is_not_a_number_is_refused(tmp_path):
    env = {**_env(tmp_path), "DATABASE_PREPARE_THRESHOLD": "sometimes"}
    result = _python("from django.conf import settings; settings.DATABASES", env)
    assert result.returncode != 0
    assert "ImproperlyConfigured: DATABASE_PREPARE_THRESHOLD must be a whole number" in (
        result.stderr
    )


def _env(tmp_path) -> dict[str, str]:
    """A PostgreSQL URL and the development settings, in a folder of the test's own; nothing
    connects (reading the settings does not)."""
    return {
        "JOBCOST_VAR_DIR": str(tmp_path),
        "PATH": os.environ["PATH"],
        "JOBCOST_ENV": "development",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": "postgres://jobcost@127.0.0.1:5432/jobcost",
    }


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
