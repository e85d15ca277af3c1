"""The matcher's caches: layers of kept answers (in this process, in Redis) behind one interface, composed as a stack.

A layer keeps JSON-ready values by key and never fails a caller: a layer that cannot answer misses. `stack(...)` asks
its layers in order, fills the layers above the one that answered, and writes to every layer; it is a layer itself, so
that a matcher holds one object whatever its layers.
"""

import time
from typing import Protocol

from landing.core.web.recent import Recent


class Layer(Protocol):
    """Answers kept by key: (True, value) when held, (False, None) when not (a None value is held, not missing)."""

    async def get(self, key) -> tuple[bool, object]: ...

    async def put(self, key, value) -> None: ...

    async def close(self) -> None: ...


class Memory:
    """A layer in this process: at most `entries` values, the least recently used dropped first, each kept for `ttl`
    seconds (None: for ever) on `clock`; with `weigh(key, value)` (an estimate of an entry's bytes), at most `weight` of
    them in all."""

    def __init__(self, entries: int, ttl: float | None = None, clock=time.monotonic, *, weigh=None, weight: int = 0):
        if entries < 1:
            raise ValueError(f"entries={entries}: keep at least 1")
        self.entries, self.ttl = entries, ttl
        self.values = Recent(entries, ttl=ttl, clock=clock, weigh=weigh, weight=weight)

    def __len__(self) -> int:
        return len(self.values)

    def held(self, key) -> tuple[bool, object]:
        """get, at once: a layer in this process needs no turn of the event loop.

        >>> near = Memory(10)
        >>> near.values["k"] = None
        >>> near.held("k"), near.held("j")
        ((True, None), (False, None))
        """
        return self.values.found(key)

    async def get(self, key) -> tuple[bool, object]:
        return self.held(key)

    async def put(self, key, value) -> None:
        self.values[key] = value

    def keep(self, key, value) -> bool:
        """put, at once."""
        self.values[key] = value
        return True

    async def close(self) -> None:
        pass


class Stack:
    """Layers asked in order (see `stack`); `stats`, when given, counts each get once: a hit, whichever layer held the
    value, or a miss."""

    def __init__(self, layers: tuple, stats: dict | None = None):
        self.layers, self.stats = layers, stats
        keeps = [getattr(layer, "keep", None) for layer in layers]
        self.keeps = None if None in keeps else keeps  # each layer's keep, when every layer has one
        self.first = getattr(layers[0], "held", None) if layers else None  # the first layer's held, if it has one

    async def get(self, key) -> tuple[bool, object]:
        for depth, layer in enumerate(self.layers):
            found, value = await layer.get(key)
            if found:
                for above in self.layers[:depth]:  # asked again, the value is found sooner
                    await above.put(key, value)
                self._count("hits")
                return True, value
        self._count("misses")
        return False, None

    def held(self, key) -> tuple[bool, object]:
        """What the first layer holds, when it answers at once (a Memory: `held`); else (False, None), as a miss. A
        value found is counted in `stats` as a hit; nothing found is not counted: whoever finds nothing here asks
        `get`, or counts the miss (`missed`).

        >>> import asyncio
        >>> near, far = Memory(10), Memory(10)
        >>> asyncio.run(far.put("k", 1))
        >>> stack(near, far).held("k"), stack(far, near).held("k"), stack().held("k")
        ((False, None), (True, 1), (False, None))
        """
        found = self.first(key) if self.first is not None else (False, None)
        if found[0]:
            self._count("hits")
        return found

    def missed(self) -> None:
        """Count a miss of a value not asked with `get` (a result matched at once, landing.match.answering)."""
        self._count("misses")

    async def put(self, key, value) -> None:
        for layer in self.layers:
            await layer.put(key, value)

    def keep(self, key, value) -> bool:
        """put, with no turn of the event loop, when every layer can (`keep`: Memory at once, Redis in its next batch,
        nobody waiting for it): whether it did; False, and nothing kept, when a layer cannot.

        >>> near, far = Memory(10), Memory(10)
        >>> stack(near, far).keep("k", 1), near.held("k"), far.held("k")
        (True, (True, 1), (True, 1))
        """
        if self.keeps is None:
            return False
        return all([keep(key, value) for keep in self.keeps])

    async def close(self) -> None:
        for layer in self.layers:
            await layer.close()

    def _count(self, outcome: str) -> None:
        if self.stats is not None:
            self.stats[outcome] += 1


def stack(*layers: Layer, stats: dict | None = None) -> Stack:
    """One layer of `layers`, the fastest first: a get asks each in turn, a put writes to each; with no layer, a cache
    that keeps nothing.

    >>> import asyncio
    >>> near, far = Memory(10), Memory(10)
    >>> cache = stack(near, far, stats={"hits": 0, "misses": 0})
    >>> asyncio.run(far.put("k", 1))
    >>> asyncio.run(cache.get("k")), asyncio.run(near.get("k")), asyncio.run(cache.get("j"))
    ((True, 1), (True, 1), (False, None))
    >>> cache.stats
    {'hits': 1, 'misses': 1}
    """
    return Stack(layers, stats)
