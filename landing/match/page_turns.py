"""Page turns: the asyncio shell of the page slots (landing.core.matching.page_slots). An input takes a slot at its
first page question and holds it until it ends; an input that never asks one (a literal, `fetch=none`, a URL that
states its DOI) never waits for a slot."""

import asyncio
import time
from collections import deque

from landing.core.matching.page_slots import Slots, asked, given_back, left, longest_wait, next_turn, page_work, taken


class PageSlots:
    """The slots of one Matcher: `take(client)` waits for the client's turn, `give_back(client)` frees its slot."""

    def __init__(self, total: int, reserve: int = 0):
        self.slots = Slots(total, reserve)
        self.waiters: dict[str, deque] = {}  # client -> (since, future) of its inputs waiting, oldest first

    async def take(self, client: str) -> float:
        """Wait for a slot of `client`'s; the seconds waited. Cancelled while waiting, the input leaves the queue (a
        slot given to it just then is given back)."""
        since = time.monotonic()
        turn = asyncio.get_running_loop().create_future()
        self.slots = asked(self.slots, client, since)
        self.waiters.setdefault(client, deque()).append((since, turn))
        self._give()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.give_back(client)
            else:
                self._forget(client, since, turn)
            raise
        return time.monotonic() - since

    def give_back(self, client: str) -> None:
        """`client`'s input ended: its slot goes to whoever's turn is next."""
        self.slots = given_back(self.slots, client)
        self._give()

    def _give(self) -> None:
        while (client := next_turn(self.slots)) is not None:
            since, turn = self.waiters[client][0]
            if turn.done():
                # Cancelled (its client gone), its task not run yet: it leaves the queue now, and the slot goes on.
                # Given to it, the slot would be held by no input, for ever.
                self._forget(client, since, turn)
                continue
            self.waiters[client].popleft()
            if not self.waiters[client]:
                del self.waiters[client]
            self.slots = taken(self.slots, client)
            turn.set_result(None)

    def _forget(self, client: str, since: float, turn: asyncio.Future) -> None:
        """A waiting input that gave up leaves the queue, once (`_give` may have taken it out already)."""
        queue = self.waiters.get(client)
        if not queue or (since, turn) not in queue:
            return
        queue.remove((since, turn))
        if not queue:
            del self.waiters[client]
        self.slots = left(self.slots, client, since)

    def stats(self) -> dict:
        """total, held, free, waiting (inputs), longest_wait (seconds), clients (holding or waiting)."""
        slots = self.slots
        return {
            "total": slots.total,
            "held": slots.holding,
            "free": slots.total - slots.holding,
            "waiting": slots.queued,
            "longest_wait": longest_wait(slots, time.monotonic()),
            "clients": len(set(slots.held) | set(slots.waiting)),
        }


class Turn:
    """One input's questions asked through `ask`, its first page question waiting for a slot of `client`'s, which the
    input then holds until `end()`. Waiting does not count against the input's deadline (`timer`, set by whoever
    bounds it): the deadline counts from when its turn came, as it always did."""

    def __init__(self, slots: PageSlots, client: str, ask):
        self.slots, self.client, self._ask = slots, client, ask
        self.held = False
        self.timer: asyncio.Timeout | None = None

    async def ask(self, question):
        if not self.held and page_work(question):
            await self._wait()
        return await self._ask(question)

    async def _wait(self) -> None:
        when = self.timer.when() if self.timer is not None else None
        if when is not None:
            self.timer.reschedule(None)
        waited = await self.slots.take(self.client)
        self.held = True
        if when is not None:
            self.timer.reschedule(when + waited)

    def end(self) -> None:
        """The input ended: its slot, if it took one, is free."""
        if self.held:
            self.held = False
            self.slots.give_back(self.client)
