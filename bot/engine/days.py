"""Calendar days as values, without the `datetime` module: the engine reads no clock, and keeps
that visible in its imports. A waiver's expiry and "today" (an input) are `Day`s."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _month_days(year: int, month: int) -> int:
    # The Gregorian rule, rather than `calendar`, which imports `datetime` and `locale` (a test
    # holds the two equal over every month of 10,000 years).
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return _MONTH_DAYS[month - 1] + leap


@dataclass(frozen=True, slots=True, order=True)
class Day:
    """A proleptic Gregorian date; ordered, so `expires < today` compares days."""

    year: int
    month: int
    day: int

    @classmethod
    def parse(cls, text: str) -> Day:
        """`YYYY-MM-DD`; ValueError naming the problem otherwise."""
        found = _ISO.fullmatch(text)
        if found is None:
            raise ValueError(f"expected a date as YYYY-MM-DD, got {text[:40]!r}")
        year, month, day = map(int, found.groups())
        if not 1 <= month <= 12:
            raise ValueError(f"{text}: there is no month {month}")
        if not 1 <= day <= _month_days(year, month):
            raise ValueError(f"{text}: that month has {_month_days(year, month)} days")
        return cls(year, month, day)

    def iso(self) -> str:
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def plus(self, days: int) -> Day:
        """The day `days` (≥ 0) later."""
        year, month, day = self.year, self.month, self.day + days
        while day > _month_days(year, month):
            day -= _month_days(year, month)
            month += 1
            if month == 13:
                year, month = year + 1, 1
        return Day(year, month, day)
