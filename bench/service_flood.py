"""Step 7 of bench/service.py: connections from one client held open (idle, or an unfinished head) while another
client asks, then closed; the other client's statuses and latency, and the service's RSS before, held and after."""

import http.client
import resource
import socket
import time
from pathlib import Path
from urllib.parse import quote, urlsplit


def rss_mb(pid: int) -> float:
    """A process's resident memory, in MB (Linux's /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def flood(url: str, pid: int, inputs: list[str], count: int, settle: float) -> dict:
    """`count` connections from 127.0.0.1, every other one sending an unfinished head of 12,000 bytes (within the
    service's bounds, so held until the head's time runs out), held while a client from 127.0.0.2 asks /healthz and a GET per input; then closed, and
    the service's RSS read `settle` seconds later: the figures."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the bench's own descriptors: one per connection
    host, port = urlsplit(url).hostname, urlsplit(url).port
    before = rss_mb(pid)
    head = b"GET /match?q=10.1234/x HTTP/1.1\r\nHost: bench\r\n" + b"".join(
        b"X-Field-%d: %s\r\n" % (n, b"y" * 4000) for n in range(3)
    )
    held, failed = [], 0
    for n in range(count):
        try:
            sock = socket.create_connection((host, port), timeout=5)
        except OSError:
            failed += 1
            continue
        held.append(sock)
        if n % 2:
            sock.setblocking(False)
            try:
                sock.send(head)  # as much as the socket takes: the service reads it, or refuses the head
            except OSError:
                pass
    time.sleep(2)  # what was sent is read
    peak = rss_mb(pid)
    closed = 0
    for sock in held:  # refused connections were answered 503 (or 431) and closed by the service
        sock.setblocking(False)
        try:
            sock.recv(1, socket.MSG_PEEK)  # an answer, or the end: either way the service is done with it
            closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    other = http.client.HTTPConnection(host, port, timeout=30, source_address=("127.0.0.2", 0))
    statuses, seconds = {}, []
    for path in ["/healthz"] + [f"/match?q={quote(text, safe='')}&fetch=none" for text in inputs]:
        began = time.perf_counter()
        other.request("GET", path)
        answer = other.getresponse()
        answer.read()
        seconds.append(time.perf_counter() - began)
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
    other.close()
    for sock in held:
        sock.close()
    time.sleep(settle)
    after = rss_mb(pid)
    seconds.sort()
    return {
        "connections": len(held),
        "not_connected": failed,
        "refused_or_closed": closed,
        "statuses": statuses,
        "p50_ms": round(1000 * seconds[len(seconds) // 2], 1),
        "p99_ms": round(1000 * seconds[int(len(seconds) * 0.99)], 1),
        "rss_mb": {"before": round(before), "held": round(peak), "after": round(after)},
        "after_vs_before": round(after / before, 3),
    }


def show_flood(found: dict, settle: float) -> None:
    rss = found["rss_mb"]
    print(
        f"  {found['connections']:,} connections held ({found['refused_or_closed']:,} refused or closed by the service,"
        f" {found['not_connected']} not connected); the other client: {found['statuses']}, p50 {found['p50_ms']} ms,"
        f" p99 {found['p99_ms']} ms",
        flush=True,
    )
    print(
        f"  RSS {rss['before']} MB before, {rss['held']} MB held, {rss['after']} MB {settle:g} s after they closed"
        f" ({found['after_vs_before']:.1%} of before)",
        flush=True,
    )
