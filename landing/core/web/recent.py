"""A mapping that keeps only its most recently used entries: the crawl's caches of hosts and robots.txt, the
matcher's answers and results."""

from collections import OrderedDict

_ABSENT = object()


class Recent(OrderedDict):
    """Forgets its least recently used entries past `size`, except those `keep(value)` says are still needed; with
    `ttl`, each entry for `ttl` seconds of `clock()` after it was set; with `weigh(key, value)`, also those past
    `weight` in all (the newest entry is kept whatever it weighs).

    >>> recent = Recent(2)
    >>> recent["a"], recent["b"] = 1, 2
    >>> recent.get("a"), recent.get("z")
    (1, None)
    >>> recent["c"] = 3  # "b" is now the least recently used
    >>> list(recent)
    ['a', 'c']
    >>> now = [0.0]
    >>> lasting = Recent(2, ttl=10, clock=lambda: now[0])
    >>> lasting["a"] = 1
    >>> now[0] = 10.0
    >>> "a" in lasting, len(lasting)
    (False, 0)
    >>> light = Recent(10, weigh=lambda key, value: len(value), weight=6)
    >>> light["a"], light["b"], light["c"] = "xx", "yy", "zzzz"  # 8 in all: "a" goes
    >>> list(light), light.weighed
    (['b', 'c'], 6)
    """

    def __init__(self, size: int, keep=None, ttl: float | None = None, clock=None, weigh=None, weight: int = 0):
        super().__init__()
        self.size, self.keep, self.ttl, self.clock = max(size, 1), keep, ttl, clock
        self.expires: dict = {}  # key -> when it is forgotten, with a ttl
        self.weigh, self.weight = weigh, weight
        self.weights: dict = {}  # key -> its weight, with `weigh`
        self.weighed = 0  # their sum

    def __reduce__(self):
        """Copied (a deep copy of the crawl's settings holds one) with its size, not as a plain OrderedDict would be.

        >>> import copy
        >>> recent = Recent(2)
        >>> recent["a"] = 1
        >>> copied = copy.deepcopy(recent)
        >>> copied.size, dict(copied)
        (2, {'a': 1})
        """
        arguments = (self.size, self.keep, self.ttl, self.clock, self.weigh, self.weight)
        return type(self), arguments, None, None, iter(self.items())

    def __contains__(self, key) -> bool:
        if self.ttl is not None and key in self.expires and self.clock() >= self.expires[key]:
            del self[key]  # expired: as if never set
        return super().__contains__(key)

    def __getitem__(self, key):
        if self.ttl is not None and key not in self:
            raise KeyError(key)
        value = super().__getitem__(key)
        self.move_to_end(key)
        return value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def found(self, key) -> tuple[bool, object]:
        """(True, value) when `key` is held, else (False, None): `key in self` then `self[key]` in one lookup, one
        reading of the clock.

        >>> recent = Recent(2)
        >>> recent["a"] = None
        >>> recent.found("a"), recent.found("b")
        ((True, None), (False, None))
        """
        if self.ttl is not None and self.clock() >= self.expires.get(key, float("inf")):
            del self[key]  # expired: as if never set
            return False, None
        value = dict.get(self, key, _ABSENT)  # a miss costs no exception: most of a stream's inputs are new
        if value is _ABSENT:
            return False, None
        self.move_to_end(key)
        return True, value

    def __setitem__(self, key, value):
        OrderedDict.__setitem__(self, key, value)
        self.move_to_end(key)
        if self.ttl is not None:
            self.expires[key] = self.clock() + self.ttl
        weigh = self.weigh
        if weigh is not None:
            weight = weigh(key, value)
            self.weighed += weight - self.weights.get(key, 0)
            self.weights[key] = weight
        while len(self) > self.size or weigh is not None and self.weighed > self.weight and len(self) > 1:
            # Keys only, read without __getitem__: reading through it would reorder the mapping mid-scan.
            old = next(
                (k for k in self if k != key and not (self.keep and self.keep(OrderedDict.__getitem__(self, k)))), None
            )
            if old is None:
                return
            del self[old]

    def __delitem__(self, key):
        super().__delitem__(key)
        self.expires.pop(key, None)
        if self.weigh is not None:
            self.weighed -= self.weights.pop(key, 0)
