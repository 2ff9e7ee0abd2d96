"""Reads: visible querysets with everything their API shape needs, in a bounded number of
queries (docs/computations.md: rollups are exact at every read, whatever the project's size)."""
