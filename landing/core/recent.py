"""A mapping that keeps only its most recently used entries: the crawl's caches of hosts, robots.txt and answers."""

from collections import OrderedDict


class Recent(OrderedDict):
    """Forgets its least recently used entries past `size`, except those `keep(value)` says are still needed.

    >>> recent = Recent(2)
    >>> recent["a"], recent["b"] = 1, 2
    >>> recent.get("a"), recent.get("z")
    (1, None)
    >>> recent["c"] = 3  # "b" is now the least recently used
    >>> list(recent)
    ['a', 'c']
    """

    def __init__(self, size: int, keep=None):
        super().__init__()
        self.size, self.keep = max(size, 1), keep

    def __reduce__(self):
        """Copied (a deep copy of the crawl's settings holds one) with its size, not as a plain OrderedDict would be.

        >>> import copy
        >>> recent = Recent(2)
        >>> recent["a"] = 1
        >>> copied = copy.deepcopy(recent)
        >>> copied.size, dict(copied)
        (2, {'a': 1})
        """
        return type(self), (self.size, self.keep), None, None, iter(self.items())

    def __getitem__(self, key):
        value = super().__getitem__(key)
        self.move_to_end(key)
        return value

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) > self.size:
            # Keys only, read without __getitem__: reading through it would reorder the mapping mid-scan.
            old = next(
                (k for k in self if k != key and not (self.keep and self.keep(OrderedDict.__getitem__(self, k)))), None
            )
            if old is not None:
                del self[old]
