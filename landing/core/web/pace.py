"""A rate as turns booked on a clock: at most `rate` a second on average, a short burst allowed after a pause.

Scrapy's slot delay sends one request per delay, and a busy event loop wakes a timer only once per turn, so a
short delay gave a fraction of the rate it stood for (bench/README.md "Figures behind choices in the code").
Booking turns against the clock (the generic cell rate algorithm) lets a late wake-up take the turns it is owed,
so the rate holds however long the loop's turns are.

>>> pace = Pace(rate=10, burst=2)
>>> [round(pace.book(0.0), 2) for _ in range(4)]
[0.0, 0.0, 0.1, 0.2]
>>> round(pace.book(5.0), 2)  # after a pause the burst is there again, never more
0.0
>>> Pace(rate=0).book(0.0)  # no rate: never wait
0.0
"""


class Pace:
    def __init__(self, rate: float, burst: int = 1):
        self.interval = 1 / rate if rate > 0 else 0.0
        self.tolerance = (max(1, burst) - 1) * self.interval
        self.due = float("-inf")  # when the next turn is due at the steady rate

    def book(self, now: float) -> float:
        """Book the next turn: the seconds from `now` until it may be taken (0: at once)."""
        if not self.interval:
            return 0.0
        start = max(now, self.due - self.tolerance)
        self.due = max(self.due, start) + self.interval
        return start - now
