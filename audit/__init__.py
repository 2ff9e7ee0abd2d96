"""The append-only audit trail: who changed what, when, with before/after values."""
