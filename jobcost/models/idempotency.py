"""Stored responses for idempotent POST/PATCH (docs/conventions.md)."""

from django.db import models
from django.utils import timezone


class IdempotencyRecord(models.Model):
    """One handled request per (API key, Idempotency-Key): its fingerprint (method, path and
    the SHA-256 of the body as canonical JSON) and the response it produced. Written in the
    same transaction as the request's own writes, so a crash leaves neither."""

    api_key = models.ForeignKey("jobcost.ApiKey", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=2000)
    body_sha256 = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["api_key", "key"], name="idempotency_key_unique")
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}] → {self.response_status}"
