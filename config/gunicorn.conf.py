"""Gunicorn settings for production (docs/operations/production.md, "Serving the API (gunicorn)").

    .venv/bin/gunicorn -c config/gunicorn.conf.py config.wsgi:application

Every value can be overridden by the environment variable named beside it (command-line flags
win over both). Defaults suit a small host behind a reverse proxy that buffers slow clients.
"""

import gc
import multiprocessing
import os
import sys


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


# Where to listen. Behind a proxy on the same host, loopback is enough.
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")

# Worker processes: (2 × CPU cores) + 1, gunicorn's rule of thumb for a mostly I/O-bound app
# (database round trips). Each holds its own database connections (one per thread).
workers = _int("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1)

# Threads per worker (the gthread worker): a request blocked on PostgreSQL or Redis leaves the
# worker's other threads serving. Workers × threads is the most concurrent requests, and the
# most database connections the web tier opens.
worker_class = "gthread"
threads = _int("GUNICORN_THREADS", 4)

# Seconds a worker may stay silent before the arbiter kills and replaces it. The API's own work
# is bounded well under it (1 MiB bodies, bounded arrays, timeouts on Redis and the broker); it
# is the last guard against a request that hangs anyway.
timeout = _int("GUNICORN_TIMEOUT", 30)

# Seconds a worker gets to finish its requests in flight after SIGTERM (a deploy) before it is
# killed.
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)

# Seconds an idle keep-alive connection is held open for the client's next request.
keepalive = _int("GUNICORN_KEEPALIVE", 5)

# Longest request line (method, path and query string) in bytes, else 414. The longest the API
# needs is a list with every filter, a signed cursor and a few `expand[]` paths: well under 2 KB.
limit_request_line = _int("GUNICORN_LIMIT_REQUEST_LINE", 4094)

# Most header fields in one request, else 400. Clients send about ten (Authorization,
# Idempotency-Key, Jobcost-Version, Content-Type, proxy headers…).
limit_request_fields = _int("GUNICORN_LIMIT_REQUEST_FIELDS", 50)

# Longest single header field (name and value) in bytes, else 400. An API key is under 60
# bytes and an Idempotency-Key at most 255; proxy headers such as X-Forwarded-For grow with the
# chain of proxies.
limit_request_field_size = _int("GUNICORN_LIMIT_REQUEST_FIELD_SIZE", 8190)

# Access log: stdout by default, a file path, or "off" for none; combined format plus the
# request's duration in microseconds.
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-")
if accesslog == "off":
    accesslog = None
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(D)s'


# Python's cyclic garbage collector: once a worker has loaded the application, what is alive
# then (Django, the apps, their modules: some 300,000 objects) is frozen, moved where no
# collection scans it again (`gc.freeze`). A request keeps its few thousand objects alive
# until it answers (a 100-invoice list: 500 model instances and their dicts), so they survive
# the young collections and soon call for a full one, which scanned the whole application
# every time: a fifth of a list's CPU (docs/benchmarks.md, "Reads under gunicorn"). "off" leaves the
# collector as Python sets it.
freeze_gc = os.environ.get("GUNICORN_GC_FREEZE", "on").lower() != "off"

# Seconds a thread holding the GIL runs before a waiting thread may take it (Python's
# `sys.setswitchinterval`, 0.005 by default). A worker's threads share one GIL: a thread
# rendering a PDF (pure Python, for seconds) made each of a read's dozen returns from
# PostgreSQL wait up to 5 ms for it: a read beside two renderings took a median 0.05–0.10 s
# and up to 0.68 s; at 1 ms a median 0.03 s and at most 0.35 s, the renderings no slower
# (docs/operations/limits.md, "Rendering PDFs").
switch_interval = float(os.environ.get("GUNICORN_SWITCH_INTERVAL", "0.001"))


def post_worker_init(worker):
    """Runs in each worker once it has loaded the application, before it serves."""
    sys.setswitchinterval(switch_interval)
    if freeze_gc:
        gc.collect()
        gc.freeze()
