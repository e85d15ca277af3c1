"""landing.crawl.heap: the memory glibc keeps after a peak, given back to the system."""

import subprocess
import sys
from pathlib import Path

# In a child of its own: the test's process holds pytest's heap. 80 MB of blocks past pymalloc's 512 bytes, every
# 16th kept, so that the freed ones are holes glibc keeps rather than a top of its heap it returns by itself.
PEAK = """
import psutil
from landing.crawl import heap
blocks = [bytes(4000) for _ in range(20000)]
kept = blocks[::16]
del blocks
before = psutil.Process().memory_info().rss
trimmed = heap.trim()
print(trimmed, (before - psutil.Process().memory_info().rss) // 2**20, len(kept))
"""


def test_trimming_after_a_freed_peak_gives_most_of_it_back_to_the_system():
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", PEAK], cwd=root, capture_output=True, text=True, timeout=60)
    trimmed, returned_mb, kept = done.stdout.split()
    assert (trimmed, kept) == ("True", "1250") and int(returned_mb) >= 50, done.stderr
