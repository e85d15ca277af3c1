"""Backoff per host: a host whose requests fail (no connection, a 5xx) is left alone for a pause that doubles with each
failed try, jittered, capped; then one request at a time tries it (a probe) until it answers again.

Retrying at once spent a DOI's three tries within the second an outage began. Paused per host, a host that is down
gets one request per pause, however many DOIs wait for it, and an outage of a minute costs a few probes, no DOI.

>>> schedule = Schedule(base=1.0, cap=8.0, outage_max=60.0)
>>> [schedule.pause(streak, draw=1.0) for streak in range(1, 6)]  # draw: a number in [0, 1], the jitter's share
[1.0, 2.0, 4.0, 8.0, 8.0]
>>> [schedule.pause(streak, draw=0.0) for streak in range(1, 6)]
[0.5, 1.0, 2.0, 4.0, 4.0]
>>> down = Outage.begin("https://doi.org/10.1/a", now=0.0, draw=1.0, schedule=schedule)
>>> down.wait(0.5), down.wait(1.0)  # the pause, then a probe may go
(0.5, 0.0)
>>> down = down.failed("https://doi.org/10.1/b", now=0.2, draw=1.0, schedule=schedule, probe=False)
>>> down.streak, down.until, down.widespread  # a request sent before the pause: the pause stands
(1, 1.0, True)
>>> down = down.probing(1.0, hold=30.0)
>>> down.wait(1.1)  # the others wait for the probe's answer
29.9
>>> down = down.failed("https://doi.org/10.1/a", now=1.5, draw=1.0, schedule=schedule, probe=True)
>>> down.streak, down.until  # the probe failed: twice the pause
(2, 3.5)
>>> schedule.retries(tries=5, max_tries=2, outage=down, now=30.0), schedule.retries(5, 2, down, now=61.0)
(True, False)
"""

import random
from dataclasses import dataclass, replace

BASE = 1.0  # seconds: the first pause's length, before its jitter


@dataclass(frozen=True)
class Schedule:
    """How long a failing host pauses (base, doubled per failed try, at most `cap` seconds) and how long its outage
    is outlived (`outage_max` seconds since its first failure) before its requests are given up."""

    base: float = BASE
    cap: float = 60.0
    outage_max: float = 300.0

    def pause(self, streak: int, draw: float) -> float:
        """Seconds of the pause after the `streak`-th failed try in a row: half of base·2^(streak-1) (capped) fixed,
        the other half times `draw` (in [0, 1]), so hosts down together do not all come back at the same moment."""
        ceiling = min(self.cap, self.base * 2 ** min(streak - 1, 60))
        return ceiling / 2 + ceiling / 2 * draw

    def retries(self, tries: int, max_tries: int, outage: "Outage", now: float) -> bool:
        """Whether a request that failed on a host in `outage`, retried `tries` times already, is tried again: within
        its own `max_tries` (RETRY_TIMES), or for as long as a widespread outage lasts, up to `outage_max`."""
        if tries < max_tries:
            return True
        return outage.widespread and now - outage.since < self.outage_max


@dataclass(frozen=True)
class Outage:
    """A host failing since `since` with no answer in between: no request before `until`, then one probe at a time.

    `urls` holds up to two URLs whose failure said the host is down (no connection, 502, 503, 504), not that one page
    is broken (a 500): two different ones make the outage `widespread`, the host failing whatever is asked.
    """

    since: float
    until: float
    streak: int = 1
    urls: frozenset = frozenset()
    probe: bool = False  # a probe is in flight (until then `until` is when it counts as lost)

    @classmethod
    def begin(cls, url: str, now: float, draw: float, schedule: Schedule, down: bool = True) -> "Outage":
        """The outage a host's first failure since it last answered begins; `down`: the failure says the host is."""
        return cls(since=now, until=now + schedule.pause(1, draw), urls=frozenset((url,) if down else ()))

    @property
    def widespread(self) -> bool:
        return len(self.urls) > 1

    def failed(self, url: str, now: float, draw: float, schedule: Schedule, probe: bool, down: bool = True) -> "Outage":
        """The outage after another failure. The probe's failure doubles the pause when it says the host is down; a
        request sent before the outage began, still in flight, changes only what has failed."""
        urls = self.urls if self.widespread or not down else self.urls | {url}
        if not probe:
            return replace(self, urls=urls)
        if not down:  # one page's error, however long the host asked to be left alone: no longer a pause
            return replace(self, until=now + schedule.pause(1, draw), probe=False, urls=urls)
        streak = self.streak + 1
        return Outage(self.since, now + schedule.pause(streak, draw), streak, urls)

    def wait(self, now: float) -> float:
        """Seconds a request to the host waits before it may go, as the probe (0: now)."""
        return max(0.0, self.until - now)

    def asked(self, now: float, seconds: float) -> "Outage":
        """The outage once the host asked for `seconds` of quiet (Retry-After): the pause lasts at least that long."""
        return replace(self, until=max(self.until, now + seconds))

    def probing(self, now: float, hold: float) -> "Outage":
        """The outage once a request went out as its probe: the others wait for its answer, or `hold` seconds."""
        return replace(self, until=now + hold, probe=True)

    def released(self, now: float) -> "Outage":
        """The outage once its probe ended neither answered nor failed (dropped, refused): another may go."""
        return replace(self, until=now, probe=False)


def draws(seed: int | None = None):
    """The jitter's source: numbers in [0, 1), seeded for a repeatable schedule.

    >>> next(draws(7)) == next(draws(7))
    True
    """
    rng = random.Random(seed)
    while True:
        yield rng.random()
