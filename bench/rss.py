"""Resident memory of a tree of processes over time, read from Linux's `/proc` (no
dependency), for the memory soak (`manage.py bench_soak`, docs/benchmarks.md, "Memory soak").

A `Sampler` thread reads, every `interval` seconds, the RSS (`VmRSS` of `/proc/<pid>/status`)
of each root process it was given and of all its descendants, found afresh at every sample
(so a worker a master starts late, or replaces, is seen). `assess` turns the samples into one
`Growth` per process: its RSS at the first sample after the warm-up, at the last sample, and
the growth between them in per cent of the first.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")


def rss_kib(pid: int) -> int | None:
    """The resident set size of `pid` in KiB (`VmRSS`), or None when the process is gone (or
    is a zombie, which has no `VmRSS` line)."""
    try:
        text = (PROC / str(pid) / "status").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])  # "VmRSS:    123456 kB"
    return None


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields of `/proc/<pid>/stat` after "pid (comm) " (so `[0]` is the state, `[1]` the
    parent, `[11]` and `[12]` the user and system CPU ticks), or None when the process is
    gone. `comm` may hold spaces and parentheses: the split is after the last one."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return stat[stat.rfind(")") + 2 :].split()


def cpu_seconds(pid: int | str) -> float | None:
    """The CPU seconds (user and system) `pid` has used so far, from `/proc/<pid>/stat` in
    whole clock ticks, or None when the process is gone."""
    fields = stat_fields(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def parents() -> dict[int, int]:
    """Every live process's parent: `{pid: ppid}` from `/proc/<pid>/stat`."""
    found = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (fields := stat_fields(entry.name)) is not None:
            found[int(entry.name)] = int(fields[1])
    return found


def descendants(pid: int, tree: dict[int, int] | None = None) -> list[int]:
    """The pids of `pid`'s children, their children, … (not `pid` itself), in ascending order;
    `tree` is a `parents()` answer to reuse (read afresh when None)."""
    tree = parents() if tree is None else tree
    children: dict[int, list[int]] = {}
    for child, parent in tree.items():
        children.setdefault(parent, []).append(child)
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, []))
    return sorted(found)


@dataclass
class Series:
    """One process's samples: `(seconds since the sampler started, RSS in KiB)`."""

    label: str
    pid: int
    samples: list[tuple[float, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Growth:
    """One process's growth after the warm-up. RSS in KiB: `start` (its first sample),
    `base` (its first sample at or after the warm-up, None when it started later or was gone
    by then), `end` (its last sample) and `peak`; `percent` is `(end - base) / base × 100`
    (None without a base); `alive` says whether it was still running at the last sample."""

    label: str
    pid: int
    start: int
    base: int | None
    end: int
    peak: int
    percent: float | None
    alive: bool

    def passes(self, ceiling: float) -> bool:
        """True when the process lived through the soak from before the end of the warm-up and
        grew by less than `ceiling` per cent."""
        return self.alive and self.percent is not None and self.percent < ceiling


class Sampler:
    """Samples the RSS of `roots` (`[(label, pid, label of its descendants)]`) and of their
    descendants every `interval` seconds on a daemon thread, from `start()` to `stop()`, which
    takes one last sample. `series` holds one `Series` per pid seen, in first-seen order; `last`
    is the time of the last sample (seconds since `start()`)."""

    def __init__(self, roots: list[tuple[str, int, str]], interval: float) -> None:
        self.roots = roots
        self.interval = interval
        self.series: dict[int, Series] = {}
        self.last = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self._started = 0.0

    def start(self) -> None:
        """Take the first sample now, then one every `interval` seconds."""
        self._started = time.monotonic()
        self.sample(at=0.0)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread, then take the last sample (the soak's end)."""
        self._stop.set()
        self._thread.join()
        self.sample()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def sample(self, at: float | None = None) -> None:
        """Read every root's and descendant's RSS once (processes gone are skipped), as of `at`
        seconds since `start()` (default: now)."""
        now = time.monotonic() - self._started if at is None else at
        tree = parents()
        for label, root, child_label in self.roots:
            for pid, name in [(root, label)] + [(c, child_label) for c in descendants(root, tree)]:
                kib = rss_kib(pid)
                if kib is None:
                    continue
                series = self.series.setdefault(pid, Series(name, pid))
                series.samples.append((now, kib))
        self.last = now


def assess(sampler: Sampler, warmup: float) -> list[Growth]:
    """One `Growth` per process the sampler saw, in first-seen order: the growth from its first
    sample at or after `warmup` seconds to its last sample. A process without a sample at the
    sampler's last time has `alive` False."""
    rows = []
    for series in sampler.series.values():
        samples = series.samples
        after = [kib for t, kib in samples if t >= warmup]
        # A process first seen after the warm-up has no base: it replaced one that died, or
        # started late; it does not pass.
        base = after[0] if after and samples[0][0] <= warmup else None
        end = samples[-1][1]
        rows.append(
            Growth(
                label=series.label,
                pid=series.pid,
                start=samples[0][1],
                base=base,
                end=end,
                peak=max(kib for _, kib in samples),
                percent=(end - base) / base * 100 if base else None,
                alive=samples[-1][0] == sampler.last,
            )
        )
    return rows
