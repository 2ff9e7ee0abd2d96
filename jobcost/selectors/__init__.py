"""Reads: visible querysets with everything their API shape needs, in a bounded number of
queries (SPEC §9: rollups are exact at every read, whatever the project's size)."""
