"""What the benchmarks read of other processes from Linux's /proc: resident memory, children, CPU time."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command's name (which may hold spaces): state, ppid, …"""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _pids() -> Iterator[int]:
    return (int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit())


def children_of(pid: int) -> list[int]:
    found = []
    for child in _pids():
        try:
            if int(_stat_fields(child)[1]) == pid:
                found.append(child)
        except OSError:
            continue
    return found


def pids_named(name: str) -> list[int]:
    """Every process whose command name is ``name`` (``postgres``: the server and its backends)."""
    found = []
    for pid in _pids():
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == name:
                found.append(pid)
        except OSError:
            continue
    return found


def cpu_seconds(pids: Iterable[int]) -> float:
    """User and system CPU the processes have used so far (a process gone meanwhile counts 0)."""
    total = 0
    for pid in pids:
        try:
            fields = _stat_fields(pid)
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICKS_PER_S
