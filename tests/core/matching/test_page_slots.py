"""The page slots' rules (landing.core.matching.page_slots): who takes a free slot, who gets a freed one."""

from landing.core.matching.page_slots import Slots, asked, given_back, left, longest_wait, next_turn, taken


def served(slots: Slots) -> tuple[Slots, list[str]]:
    """Every turn that comes now, in order: (the slots after, the clients served)."""
    order = []
    while (client := next_turn(slots)) is not None:
        slots = taken(slots, client)
        order.append(client)
    return slots, order


def waiting(slots: Slots, client: str, inputs: int, since: float = 0.0) -> Slots:
    for n in range(inputs):
        slots = asked(slots, client, since + n)
    return slots


def test_a_lone_client_takes_every_slot_but_the_reserve():
    slots, order = served(waiting(Slots(8, reserve=2), "a", 10))
    assert (order, dict(slots.held), slots.queued) == (["a"] * 6, {"a": 6}, 4)


def test_a_second_client_takes_a_reserved_slot_at_once_while_the_first_waits_for_more():
    slots, _ = served(waiting(Slots(8, reserve=2), "a", 10))
    slots, order = served(asked(slots, "b", 100.0))
    assert (order, dict(slots.held)) == (["b"], {"a": 6, "b": 1})


def test_a_freed_slot_goes_to_the_waiting_client_holding_fewest_however_long_the_others_queue():
    slots = Slots(4, held={"a": 3, "b": 1})
    slots = waiting(slots, "a", 50, since=0.0)
    slots = asked(slots, "b", 90.0)
    slots = asked(slots, "c", 99.0)
    slots, order = served(given_back(slots, "a"))
    assert order == ["c"]
    slots, order = served(given_back(slots, "c"))
    assert order == ["b"]


def test_between_clients_holding_as_many_the_one_waiting_longest_goes_first():
    slots = asked(asked(Slots(2, held={"a": 1, "b": 1}), "b", 5.0), "a", 7.0)
    slots, order = served(given_back(slots, "b"))
    assert order == ["b"]


def test_a_client_come_late_gets_the_freed_slots_until_both_hold_as_many():
    slots, _ = served(waiting(Slots(4), "a", 8))
    slots = waiting(slots, "b", 4, since=100.0)
    order = []
    for _ in range(4):
        slots, turns = served(given_back(slots, "a"))
        order += turns
    assert (order, dict(slots.held)) == (["b", "b", "a", "a"], {"a": 2, "b": 2})


def test_a_client_holding_its_cap_waits_even_with_slots_free():
    slots, order = served(waiting(Slots(4, reserve=1, held={"a": 3}), "a", 1))
    assert (order, slots.holding, slots.queued) == ([], 3, 1)


def test_an_input_that_gives_up_leaves_the_queue_and_its_turn_is_nobodys():
    slots = left(asked(Slots(1, held={"a": 1}), "b", 3.0), "b", 3.0)
    assert (dict(slots.waiting), served(given_back(slots, "a"))[1]) == ({}, [])


def test_the_longest_wait_is_the_oldest_waiting_inputs():
    slots = asked(asked(asked(Slots(1, held={"x": 1}), "a", 4.0), "b", 1.0), "a", 0.5)
    assert longest_wait(slots, 10.0) == 9.0
