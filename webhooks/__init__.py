"""Webhook endpoints, the event outbox and signed delivery by Celery (SPEC §10)."""
