"""The test suite's settings: the project's own, in the development environment (README,
"Production"), unless the caller chose one. Subprocesses the tests start (gunicorn, Celery
workers, manage.py) inherit both this module's name and JOBCOST_ENV."""

import os

os.environ.setdefault("JOBCOST_ENV", "development")

from config.settings import *  # noqa: F403
