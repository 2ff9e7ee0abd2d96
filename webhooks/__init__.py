"""Webhook endpoints, the event outbox and signed delivery by Celery (README "Webhooks and
events")."""
