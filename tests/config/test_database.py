"""The PostgreSQL connection's options (docs/operations/configuration.md, docs/architecture.md): the
server binds parameters, and a statement a connection runs DATABASE_PREPARE_THRESHOLD times is
prepared there; "off" prepares nothing."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.db import connection

from config import environment
from jobcost.models import Project
from tests.config.manage import manage


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


# A PostgreSQL URL (reading the settings connects to nothing) and a key, so that nothing is
# kept in the test's var folder.
URL = {
    "JOBCOST_ENV": "development",
    "DATABASE_URL": "postgres://jobcost@127.0.0.1:5432/jobcost",
    "DJANGO_SECRET_KEY": "a development key long enough for Django's check, not kept anywhere",
}
OPTIONS = (
    "import json; from django.conf import settings; "
    "print(json.dumps(settings.DATABASES['default']['OPTIONS']))"
)


@pytest.mark.parametrize(
    ("value", "expected"), [("off", None), ("", None), (" No ", None), ("0", 0), (None, 5)]
)
def test_the_threshold_is_read_from_the_environment(value, expected, monkeypatch):
    if value is None:
        monkeypatch.delenv("DATABASE_PREPARE_THRESHOLD", raising=False)
    else:
        monkeypatch.setenv("DATABASE_PREPARE_THRESHOLD", value)
    assert environment.prepare_threshold() == expected


def test_the_settings_take_the_threshold_from_the_environment(tmp_path):
    """What a deployment's process reads: the connection's options, from the environment."""
    env = {**URL, "DATABASE_PREPARE_THRESHOLD": "off"}
    result = manage(tmp_path, env, "shell", "--no-imports", "-c", OPTIONS)
    assert result.returncode == 0, result.stderr
    options = json.loads(result.stdout)
    assert options == {"server_side_binding": True, "prepare_threshold": None}


def test_a_threshold_that_is_not_a_number_is_refused(tmp_path):
    env = {**URL, "DATABASE_PREPARE_THRESHOLD": "sometimes"}
    result = manage(tmp_path, env, "check")
    assert result.returncode != 0
    assert "ImproperlyConfigured: DATABASE_PREPARE_THRESHOLD must be a whole number" in (
        result.stderr
    )
