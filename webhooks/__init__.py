"""Webhook endpoints, the event outbox and signed delivery by Celery (docs/webhooks.md)."""
