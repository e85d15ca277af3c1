"""Give the memory the C allocator keeps after a peak back to the system (glibc's `malloc_trim`).

A continuous crawl runs for months. Its Python objects stay flat, but each transient peak (a round's records, a
prune, a relisting) leaves freed memory in glibc's heaps, which it keeps: the crawl's RSS climbed in steps to the
highest peak so far and never came down (docs/continuous.md "Memory"). Trimming once a slice returns it.
"""

import ctypes
import ctypes.util

_name = ctypes.util.find_library("c")
try:
    _trim = ctypes.CDLL(_name).malloc_trim if _name else None
except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim, nothing kept the same way
    _trim = None


def trim() -> bool:
    """Return the allocator's free memory to the system; False where the C library has no malloc_trim."""
    if _trim is None:
        return False
    _trim(0)
    return True
