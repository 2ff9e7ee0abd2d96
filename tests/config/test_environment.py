"""JOBCOST_ENV (docs/operations/production.md): production refuses to start with the built-in or a
missing secret key and without named hosts; the documented production environment passes
`manage.py check --deploy` with no warning; development keeps a generated key in var/.

Each case starts a real `manage.py` process with exactly the environment given (nothing
inherited but PATH), so the settings are read as a deployment would read them.
"""

from __future__ import annotations

import re
import secrets
import stat
from pathlib import Path

import pytest
from django.conf import settings

from config.environment import BUILTIN_SECRET_KEY
from tests.config.manage import manage

BASE_DIR = Path(settings.BASE_DIR)


def _documented_production_block() -> str:
    """The sh block of docs/operations/production.md, "Environment", verbatim."""
    page = (BASE_DIR / "docs" / "operations" / "production.md").read_text()
    part = page.split("\n## Environment\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", part, flags=re.DOTALL)
    assert len(blocks) == 1, "the Production/Environment part must hold exactly one sh block"
    return blocks[0]


def test_the_documented_production_environment_passes_check_deploy(tmp_path):
    block = _documented_production_block()
    assert "JOBCOST_ENV=production" in block
    result = manage(
        tmp_path,
        {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50)},
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        shell_prelude=block,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


PRODUCTION = {"JOBCOST_ENV": "production", "DJANGO_ALLOWED_HOSTS": "jobcost.example.com"}
GOOD_KEY = "k" * 10 + secrets.token_urlsafe(50)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "DJANGO_SECRET_KEY"),
        ({"JOBCOST_ENV": ""}, "DJANGO_SECRET_KEY"),  # unset or empty is production
        ({"DJANGO_SECRET_KEY": BUILTIN_SECRET_KEY}, "not the built-in development key"),
        ({"DJANGO_SECRET_KEY": "short-but-not-built-in"}, "at least 50 random characters"),
        ({"DJANGO_SECRET_KEY": GOOD_KEY, "DJANGO_ALLOWED_HOSTS": "*"}, "DJANGO_ALLOWED_HOSTS"),
        ({"DJANGO_SECRET_KEY": GOOD_KEY, "DJANGO_ALLOWED_HOSTS": ""}, "DJANGO_ALLOWED_HOSTS"),
        (
            {"DJANGO_SECRET_KEY": GOOD_KEY, "DJANGO_ALLOWED_HOSTS": "a.example.com,*"},
            "without '*'",
        ),
        ({"JOBCOST_ENV": "staging"}, "JOBCOST_ENV='staging' is not an environment"),
    ],
)
def test_production_refuses_to_start_with_unsafe_settings(tmp_path, env, message):
    result = manage(tmp_path, {**PRODUCTION, **env}, "check")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr, result.stderr
    assert not (tmp_path / "var" / "secret_key").exists()


def test_production_starts_with_its_own_key_and_hosts(tmp_path):
    result = manage(tmp_path, {**PRODUCTION, "DJANGO_SECRET_KEY": GOOD_KEY}, "check")
    assert result.returncode == 0, result.stderr


def test_development_generates_a_key_once_and_keeps_it_private(tmp_path):
    show = ["shell", "-c", "from django.conf import settings; print(settings.SECRET_KEY)"]
    (tmp_path / "var").mkdir()  # `make install` creates it; the settings never do
    first = manage(tmp_path, {"JOBCOST_ENV": "development"}, *show)
    assert first.returncode == 0, first.stderr
    kept = tmp_path / "var" / "secret_key"
    key = kept.read_text().strip()
    assert first.stdout.strip().splitlines()[-1] == key
    assert len(key) >= 50 and key != BUILTIN_SECRET_KEY
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    second = manage(tmp_path, {"JOBCOST_ENV": "development"}, *show)
    assert second.stdout.strip().splitlines()[-1] == key
    assert [p.name for p in kept.parent.iterdir() if "secret_key" in p.name] == ["secret_key"]


def test_reading_the_settings_creates_no_folder(tmp_path):
    """Without var/, development refuses with what to do, and nothing is created; with
    DJANGO_SECRET_KEY set it starts, still creating nothing (no broker folders either)."""
    missing = manage(tmp_path, {"JOBCOST_ENV": "development"}, "check")
    assert missing.returncode != 0
    assert "make install" in missing.stderr, missing.stderr
    keyed = manage(tmp_path, {"JOBCOST_ENV": "development", "DJANGO_SECRET_KEY": GOOD_KEY}, "check")
    assert keyed.returncode == 0, keyed.stderr
    assert not (tmp_path / "var").exists()


def test_the_embedded_broker_keeps_its_exchange_bindings_under_var(tmp_path):
    """Without REDIS_URL (`make run`) Celery's filesystem broker writes each exchange's
    bindings to a control folder: var/broker/control, not `control/` in the folder the process
    started in (the project's root, where it used to appear)."""
    for folder in ("out", "processed", "control"):
        (tmp_path / "var" / "broker" / folder).mkdir(parents=True)
    declare = (
        "from config.celery import app\n"
        "with app.connection_for_write() as conn:\n"
        "    app.amqp.queues['webhooks'](conn.default_channel).declare()\n"
    )
    env = {"JOBCOST_ENV": "development", "DJANGO_SECRET_KEY": GOOD_KEY}
    declared = manage(tmp_path, env, "shell", "-c", declare)
    assert declared.returncode == 0, declared.stderr
    control = tmp_path / "var" / "broker" / "control"
    assert [path.name for path in control.iterdir()] == ["webhooks.exchange"]
    assert "webhooks" in (control / "webhooks.exchange").read_text()
