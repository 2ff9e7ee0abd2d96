"""`manage.py` run as a deployment runs it: a real process with exactly the environment given
(nothing inherited but PATH), for the tests of what the settings read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings


def manage(tmp_path: Path, env: dict[str, str], *args: str, shell_prelude: str = ""):
    """Run `manage.py <args>` (after `shell_prelude`, a bash snippet) with `env` alone, the
    settings `config.settings` and the var folder in `tmp_path`; the finished process."""
    command = f'{shell_prelude}\nexec "$PYTHON" manage.py "$@"'
    return subprocess.run(
        ["bash", "-c", command, "manage", *args],
        cwd=Path(settings.BASE_DIR),
        env={
            "PATH": os.environ["PATH"],
            "PYTHON": sys.executable,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "JOBCOST_VAR_DIR": str(tmp_path / "var"),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
