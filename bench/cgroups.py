"""Benchmark helper: hold a process and its children to a share of the machine's CPU, in a cgroup of its own."""

import os
from pathlib import Path

CGROUP_CPU = Path("/sys/fs/cgroup/cpu")  # cgroup v1's cpu controller; v2 puts cpu.max in the unified tree


def cpu_cap(name: str, cores: float):
    """A cgroup whose processes share at most `cores` CPUs: (its folder, a preexec_fn that moves the child into it).

    Each worker is held to the same share of the machine, as if each had a machine of that size: with the sandbox
    server on the same 2 cores, uncapped workers measure how the machine is shared rather than how the crawl
    scales. Needs root and a writable cgroup tree (v1 or v2)."""
    period = 100_000
    if (CGROUP_CPU / "cpu.cfs_quota_us").exists():
        group = CGROUP_CPU / name
        group.mkdir(exist_ok=True)
        (group / "cpu.cfs_period_us").write_text(str(period))
        (group / "cpu.cfs_quota_us").write_text(str(int(cores * period)))
    else:
        group = Path("/sys/fs/cgroup") / name
        group.mkdir(exist_ok=True)
        (group / "cpu.max").write_text(f"{int(cores * period)} {period}")
    procs = str(group / "cgroup.procs")

    def join():
        with open(procs, "w") as out:
            out.write(str(os.getpid()))

    return group, join
