"""landing.match.page_turns: an input's page work waits for its client's turn at a slot; nothing else waits."""

import asyncio

import pytest

from landing.core.matching.questions import Exists, Fetch
from landing.match.page_turns import PageSlots, Turn

PAGE, LOOKUP = Fetch("https://example.org/page"), Exists("10.1/x")


async def answered(question):
    return question


async def one_slot_held() -> tuple[PageSlots, Turn]:
    """One slot, held by client "a"'s page question."""
    slots = PageSlots(1)
    holder = Turn(slots, "a", answered)
    await holder.ask(PAGE)
    return slots, holder


async def settled():
    """Let every task that can run, run."""
    for _ in range(10):
        await asyncio.sleep(0)


def test_a_question_that_is_no_page_work_is_answered_while_every_slot_is_held():
    async def ask_with_slots_held():
        slots, holder = await one_slot_held()
        lookup = await Turn(slots, "b", answered).ask(LOOKUP)
        return lookup, slots.stats()["held"], slots.stats()["waiting"]

    assert asyncio.run(ask_with_slots_held()) == (LOOKUP, 1, 0)


def test_a_page_question_waits_until_a_slot_is_given_back_then_holds_it_for_its_later_pages():
    async def wait_for_the_slot():
        slots, first = await one_slot_held()
        second = Turn(slots, "b", answered)
        asking = asyncio.ensure_future(second.ask(PAGE))
        await settled()
        before = (asking.done(), slots.stats()["waiting"])
        first.end()
        await asking
        await second.ask(PAGE)  # its slot is its own until it ends: no second wait
        return before, dict(slots.slots.held)

    assert asyncio.run(wait_for_the_slot()) == ((False, 1), {"b": 1})


def test_an_input_cancelled_while_waiting_leaves_the_queue_and_holds_no_slot():
    async def cancel_a_waiter():
        slots, first = await one_slot_held()
        asking = asyncio.ensure_future(Turn(slots, "b", answered).ask(PAGE))
        await settled()
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        first.end()
        return slots.stats()

    stats = asyncio.run(cancel_a_waiter())
    assert (stats["held"], stats["waiting"], stats["clients"]) == (0, 0, 0)


def test_waiting_inputs_cancelled_with_a_slot_given_back_before_they_run_hold_no_slot_after():
    async def client_gone_at_once():
        slots, holder = await one_slot_held()
        waiting = [asyncio.ensure_future(Turn(slots, "b", answered).ask(PAGE)) for _ in range(3)]
        await settled()
        for task in waiting:
            task.cancel()  # their turns cancelled now, their tasks run later
        holder.end()  # the slot given back before the cancelled inputs' tasks have run
        await asyncio.gather(*waiting, return_exceptions=True)
        later = Turn(slots, "c", answered)
        await asyncio.wait_for(later.ask(PAGE), 1)
        return [task.cancelled() for task in waiting], slots.stats()["held"], slots.stats()["waiting"]

    assert asyncio.run(client_gone_at_once()) == ([True, True, True], 1, 0)


def test_the_time_waited_for_a_slot_moves_the_inputs_deadline_by_as_much():
    async def wait_under_a_deadline():
        slots, first = await one_slot_held()
        second = Turn(slots, "b", answered)
        async with asyncio.timeout(1000) as timer:
            second.timer = timer
            before = timer.when()
            asking = asyncio.ensure_future(second.ask(PAGE))
            await settled()
            paused = timer.when()
            first.end()
            await asking
            return before, paused, timer.when()

    before, paused, after = asyncio.run(wait_under_a_deadline())
    assert paused is None and after > before
