"""The `Audited` model mixin: the one way a model joins the append-only trail (docs/audit.md).

A model that inherits it has every save and delete written as an audit entry by the signals
(`audit.signals`), in the saving transaction. The model declares, as class attributes:

- `OBJECT`: its API object name (`invoice`), the entry's `target_type`;
- `AUDIT_SKIP`: stored fields never recorded (a key's hash, internal clocks), beside the
  timestamps every write moves (`created_at`, `updated_at`);
- `AUDIT_MASKED`: fields recorded masked as the API shows them (`whsec_…abcd`);
- `AUDIT_NAMES`: stored fields whose API name differs (`{"cost_to_complete_estimate":
  "cost_to_complete"}`).

Reading a row costs nothing: no snapshot is taken when a row is loaded. A service that is about
to change a row calls `track()` on it (the services' `lock` does), so the entry's `before`
values come from memory; a row saved untracked has its `before` read from the database in the
saving transaction (one query), so the trail is right either way.
"""

from __future__ import annotations

from typing import ClassVar, Self

from django.db import models

from audit.values import snapshot


class Audited(models.Model):
    """Abstract mixin: every write of the model lands on the audit trail (see the module)."""

    OBJECT: ClassVar[str]
    AUDIT_SKIP: ClassVar[frozenset[str]] = frozenset()
    AUDIT_MASKED: ClassVar[frozenset[str]] = frozenset()
    AUDIT_NAMES: ClassVar[dict[str, str]] = {}

    class Meta:
        abstract = True

    def track(self) -> Self:
        """Remember the row's current values as the `before` of its next audited save;
        returns the row. Call it on rows about to change (after `select_for_update`)."""
        self._audit_before = snapshot(self)
        return self
