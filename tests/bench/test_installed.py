"""The benchmarks' app (bench/) is installed only when benchmarking: `manage.py` lists the
`bench_*` commands with JOBCOST_BENCH=1 (every `make bench-*` target sets it) and not without."""

from __future__ import annotations

import pytest

from tests.config.manage import manage

GOOD_KEY = "bench-" + "k" * 60


@pytest.mark.parametrize(("flag", "listed"), [({}, False), ({"JOBCOST_BENCH": "1"}, True)])
def test_the_bench_commands_exist_only_with_jobcost_bench(tmp_path, flag, listed):
    env = {"JOBCOST_ENV": "development", "DJANGO_SECRET_KEY": GOOD_KEY, **flag}
    result = manage(tmp_path, env, "help", "--commands")
    assert result.returncode == 0, result.stderr
    commands = set(result.stdout.split())
    assert "seed_demo" in commands
    bench = {
        "bench_bounds",
        "bench_import",
        "bench_reads",
        "bench_rollups",
        "bench_soak",
        "bench_webhooks",
        "bench_writes",
    }
    assert (bench & commands) == (bench if listed else set())
