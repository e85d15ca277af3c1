"""landing.crawl.stopping: a stop ends every request the downloader holds at once, queued ones included."""

import json
import sys
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.core.downloader import Slot
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from landing.crawl.stopping import Stopped, drop_queued
from tests import forked

ROOT = Path(__file__).resolve().parents[2]


def test_dropping_ends_every_queued_request_with_stopped_and_the_slots_wait():
    slots = {"a.example": Slot(1, 30, 0), "b.example": Slot(1, 30, 0)}
    clock, failures = Clock(), []
    slots["a.example"].latercall = clock.callLater(30, failures.append, "the wait ran")
    for url in ("https://a.example/1", "https://a.example/2", "https://b.example/1"):
        queued = Deferred()
        queued.addErrback(lambda failure: failures.append((type(failure.value), str(failure.value))))
        slots[url.split("/")[2]].queue.append((Request(url), queued))
    assert drop_queued(slots) == 3
    clock.advance(60)
    assert [len(slot.queue) for slot in slots.values()] == [0, 0] and slots["a.example"].latercall is None
    assert failures == [
        (Stopped, "dropped, the crawl is stopping: https://a.example/1"),
        (Stopped, "dropped, the crawl is stopping: https://a.example/2"),
        (Stopped, "dropped, the crawl is stopping: https://b.example/1"),
    ]


@pytest.mark.parametrize(
    "mode, answered, dropped",
    [("queue", 1, 3), ("robots", 0, 5)],
    ids=["queued-behind-the-delay", "waiting-on-robots-txt"],
)
def test_a_stop_closes_the_spider_at_once_though_its_hosts_slot_waits_a_minute(mode, answered, dropped):
    # Scrapy's stop waited for each queued request to reach the handler, one per DOWNLOAD_DELAY (60 s here).
    done = forked.run([sys.executable, "-m", "tests.crawl.stop_crawl", mode], ROOT, None, timeout=100)
    told = json.loads(done.stdout.strip().splitlines()[-1])
    assert (told["answered"], told["dropped"]) == (answered, dropped), done.stderr[-2000:]
    assert told["seconds"] < 10, told
