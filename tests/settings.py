"""The test suite's settings: the project's own, in the development environment (README,
"Production"), unless the caller chose one. Subprocesses the tests start (gunicorn, Celery
workers, manage.py) inherit both this module's name and JOBCOST_ENV.

Beyond the project's settings, no test reaches past loopback (tests/network.py, installed here
so that those subprocesses are guarded too), and webhook hosts resolve through the tests' own
resolver, which never asks a DNS server (tests/webhooks/resolvers.py).
"""

import os

from tests import network

os.environ.setdefault("JOBCOST_ENV", "development")

network.install()

from config.settings import *  # noqa: E402, F403

# Literal addresses, loopback names and the tests' public names; never a DNS query.
WEBHOOKS_RESOLVER = "tests.webhooks.resolvers.offline"
