"""Writes. Every business rule lives here, called alike by the API, the admin, agent-action
approval, Celery tasks and management commands. Functions are `<entity>_<action>`,
keyword-only and atomic; they raise `jobcost.errors.ApiError` subclasses."""
