"""The benchmarks (docs/benchmarks.md): the `bench_*` management commands that `make bench-*`
runs, and what they share — the job they write to (`job`), gunicorn on a loopback port
(`server`), the raw-psycopg ceiling of the read benchmark (`ceiling`), the loopback webhook
receiver (`receiver`) and the process sampler of the memory soak (`rss`).

An app of its own, at the top of the layers (it imports `audit`, `jobcost` and `webhooks`;
nothing imports it), installed only when benchmarking: `config/settings.py` adds it to
`INSTALLED_APPS` when `JOBCOST_BENCH=1`, which every `make bench-*` target sets, so a
production server carries none of its commands.
"""
