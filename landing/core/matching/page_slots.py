"""Page slots shared between clients: only page work takes one, no client takes the last ones, a freed one goes to the
waiting client holding fewest (docs/service.md "Fair work per client").

A value (`Slots`) and functions that return the next value; the asyncio shell that makes inputs wait is
landing.match.page_turns.
"""

from dataclasses import dataclass, field, replace
from types import MappingProxyType

from landing.core.matching.questions import Fetch, Question, Resolve


def page_work(question: Question) -> bool:
    """Whether a question fetches a publisher's page (a page, or where a DOI resolves to): what takes a slot. The
    registries' questions (a DOI's existence, a PII, titles) are quick API calls, and an input needing none of the
    former (a literal, `fetch=none`, a URL that states its DOI) never waits for a slot.

    >>> page_work(Fetch("https://example.org/a")), page_work(Resolve("10.1/x"))
    (True, True)
    >>> from landing.core.matching.questions import Exists
    >>> page_work(Exists("10.1/x"))
    False
    """
    return isinstance(question, Fetch | Resolve)


def reserve_of(total: int, share: float) -> int:
    """The slots kept from any one client: `share` of `total`, none when a single slot is all there is.

    >>> reserve_of(100, 0.25), reserve_of(3, 0.25), reserve_of(1, 0.5), reserve_of(8, 0)
    (25, 0, 0, 0)
    """
    return min(int(total * share), total - 1)


@dataclass(frozen=True)
class Slots:
    """The page slots: how many (`total`), how many no one client may hold (`reserve`: they stay free for the next
    client), the slots each client holds, and the arrival times of each client's inputs waiting, oldest first."""

    total: int
    reserve: int = 0
    held: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    waiting: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @property
    def holding(self) -> int:
        """Slots held, over every client."""
        return sum(self.held.values())

    @property
    def queued(self) -> int:
        """Inputs waiting for a slot, over every client."""
        return sum(len(times) for times in self.waiting.values())

    @property
    def cap(self) -> int:
        """The most slots one client may hold."""
        return self.total - self.reserve


def _with(mapping, client: str, value) -> MappingProxyType:
    """mapping with client's value replaced (removed when empty)."""
    changed = dict(mapping)
    if value:
        changed[client] = value
    else:
        changed.pop(client, None)
    return MappingProxyType(changed)


def asked(slots: Slots, client: str, since: float) -> Slots:
    """An input of `client` asks for a slot at time `since`: it waits (next_turn says whose turn comes)."""
    return replace(slots, waiting=_with(slots.waiting, client, (*slots.waiting.get(client, ()), since)))


def left(slots: Slots, client: str, since: float) -> Slots:
    """An input of `client` that waited since `since` gave up (its client went away, the service stops).

    >>> left(asked(Slots(1), "a", 1.0), "a", 1.0).queued
    0
    """
    times = list(slots.waiting.get(client, ()))
    times.remove(since)
    return replace(slots, waiting=_with(slots.waiting, client, tuple(times)))


def next_turn(slots: Slots) -> str | None:
    """The client whose oldest waiting input takes the next slot now; None when no slot is free or every waiting
    client holds its cap. Fewest held first: a client holding none goes before one holding many, however long the
    latter's queue; between equals, the one waiting longest.

    >>> slots = asked(asked(replace(Slots(4), held=MappingProxyType({"a": 3})), "a", 1.0), "b", 2.0)
    >>> next_turn(slots)
    'b'
    >>> next_turn(replace(slots, held=MappingProxyType({"a": 3, "b": 1}))) is None
    True
    """
    if slots.holding >= slots.total:
        return None
    eligible = [
        (slots.held.get(client, 0), times[0], client)
        for client, times in slots.waiting.items()
        if slots.held.get(client, 0) < slots.cap
    ]
    return min(eligible)[2] if eligible else None


def taken(slots: Slots, client: str) -> Slots:
    """The oldest waiting input of `client` takes a slot (its turn came: next_turn named it)."""
    times = slots.waiting[client]
    held = _with(slots.held, client, slots.held.get(client, 0) + 1)
    return replace(slots, held=held, waiting=_with(slots.waiting, client, times[1:]))


def given_back(slots: Slots, client: str) -> Slots:
    """An input of `client` ended: its slot is free again.

    >>> given_back(taken(asked(Slots(1), "a", 0.0), "a"), "a").holding
    0
    """
    return replace(slots, held=_with(slots.held, client, slots.held[client] - 1))


def longest_wait(slots: Slots, now: float) -> float:
    """Seconds the input waiting longest has waited at `now`; 0 when none waits.

    >>> longest_wait(asked(asked(Slots(0), "a", 5.0), "b", 2.0), 10.0), longest_wait(Slots(1), 10.0)
    (8.0, 0.0)
    """
    firsts = [times[0] for times in slots.waiting.values()]
    return max(0.0, now - min(firsts)) if firsts else 0.0


def saturation(waited: float, bound: float) -> str | None:
    """Why a service whose input waiting longest for a page slot has waited `waited` seconds is saturated: over `bound`
    seconds (tuning.SERVE_SLOT_WAIT_SECONDS); None when it is not.

    >>> saturation(61.0, 60.0)
    'an input has waited 61 s for a page slot, over 60 s: page work is asked faster than slots free'
    >>> saturation(60.0, 60.0) is None
    True
    """
    if waited <= bound:
        return None
    return f"an input has waited {waited:.0f} s for a page slot, over {bound:g} s: page work is asked faster than slots free"
