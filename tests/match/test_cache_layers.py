"""landing.match.cache_layers: the layers of the matcher's caches, composed as a stack; the in-process layer an LRU."""

import asyncio
import itertools

import pytest

from landing.match.cache_layers import Memory, stack


class Clock:
    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class Recent:
    """A Memory layer asked as plain calls: what its tests read."""

    def __init__(self, **kwargs):
        self.memory = Memory(**kwargs)

    def get(self, key):
        return asyncio.run(self.memory.get(key))

    def put(self, key, value):
        asyncio.run(self.memory.put(key, value))

    def __len__(self):
        return len(self.memory)


# --- Memory: the in-process layer, an LRU -------------------------------------------------------------------------------
def test_recent_never_holds_more_than_its_bound():
    recent, sizes = Recent(entries=10), []
    for key in itertools.islice(itertools.cycle(range(37)), 500):
        recent.get(key % 13)
        recent.put(key, key)
        sizes.append(len(recent))
    assert max(sizes) == 10


def test_recent_drops_the_least_recently_used_first():
    recent = Recent(entries=2)
    recent.put("a", 1)
    recent.put("b", 2)
    recent.get("a")
    recent.put("c", 3)
    assert [recent.get(key) for key in "abc"] == [(True, 1), (False, None), (True, 3)]


def test_recent_forgets_a_value_once_its_ttl_passed():
    clock = Clock()
    recent = Recent(entries=5, ttl=10, clock=clock)
    recent.put("a", 1)
    clock.now = 9.9
    first = recent.get("a")
    clock.now = 10.0
    assert (first, recent.get("a"), len(recent)) == ((True, 1), (False, None), 0)


def test_recent_keeps_a_none_value_apart_from_a_missing_one():
    recent = Recent(entries=2)
    recent.put("unregistered", None)
    assert (recent.get("unregistered"), recent.get("never asked")) == ((True, None), (False, None))


def test_a_recent_of_no_entries_is_refused_in_words():
    with pytest.raises(ValueError, match="entries=0: keep at least 1"):
        Recent(entries=0)


# --- stack: layers composed -------------------------------------------------------------------------------------
def test_a_value_found_in_a_lower_layer_is_kept_in_the_layers_above_it():
    async def scenario():
        near, middle, far = Memory(5), Memory(5), Memory(5)
        await far.put("k", 1)
        got = await stack(near, middle, far).get("k")
        return got, await near.get("k"), await middle.get("k")

    assert asyncio.run(scenario()) == ((True, 1), (True, 1), (True, 1))


def test_a_value_put_in_a_stack_is_kept_in_every_layer():
    async def scenario():
        near, far = Memory(5), Memory(5)
        await stack(near, far).put("k", None)
        return await near.get("k"), await far.get("k")

    assert asyncio.run(scenario()) == ((True, None), (True, None))


def test_a_stack_of_no_layers_keeps_nothing():
    async def scenario():
        empty = stack()
        await empty.put("k", 1)
        return await empty.get("k")

    assert asyncio.run(scenario()) == (False, None)


def test_a_stack_counts_each_get_once_whichever_layer_answers():
    async def scenario():
        near, far = Memory(5), Memory(5)
        await far.put("far", 1)
        await near.put("near", 2)
        counted = stack(near, far, stats={"hits": 0, "misses": 0})
        for key in ("far", "near", "none", "far"):
            await counted.get(key)
        return counted.stats

    assert asyncio.run(scenario()) == {"hits": 3, "misses": 1}


def test_a_stack_holds_at_once_only_what_its_first_layer_holds_and_counts_what_it_found():
    near, far = Memory(10), Memory(10)
    asyncio.run(far.put("far", 1))
    asyncio.run(near.put("near", None))
    cache = stack(near, far, stats={"hits": 0, "misses": 0})
    held = [cache.held(key) for key in ("near", "far", "none")]
    assert (held, cache.stats) == ([(True, None), (False, None), (False, None)], {"hits": 1, "misses": 0})
