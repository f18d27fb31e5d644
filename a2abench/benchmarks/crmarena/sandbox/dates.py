"""SOQL date literals (TODAY, LAST_N_DAYS:n, THIS_QUARTER, ...) and date functions.

Ranges follow Salesforce's definitions with an en_US locale (weeks start on Sunday), the
default fiscal year (fiscal = calendar) and a UTC user, evaluated against the `today` the
sandbox was opened with. Each range is a pair of inclusive days.
"""

from __future__ import annotations

import datetime as dt

_FIXED = {
    "YESTERDAY", "TODAY", "TOMORROW", "LAST_WEEK", "THIS_WEEK", "NEXT_WEEK", "LAST_MONTH",
    "THIS_MONTH", "NEXT_MONTH", "LAST_90_DAYS", "NEXT_90_DAYS", "THIS_QUARTER",
    "LAST_QUARTER", "NEXT_QUARTER", "THIS_YEAR", "LAST_YEAR", "NEXT_YEAR",
    "THIS_FISCAL_QUARTER", "LAST_FISCAL_QUARTER", "NEXT_FISCAL_QUARTER", "THIS_FISCAL_YEAR",
    "LAST_FISCAL_YEAR", "NEXT_FISCAL_YEAR",
}
_WITH_N = {
    "LAST_N_DAYS", "NEXT_N_DAYS", "N_DAYS_AGO", "LAST_N_WEEKS", "NEXT_N_WEEKS", "N_WEEKS_AGO",
    "LAST_N_MONTHS", "NEXT_N_MONTHS", "N_MONTHS_AGO", "LAST_N_QUARTERS", "NEXT_N_QUARTERS",
    "N_QUARTERS_AGO", "LAST_N_YEARS", "NEXT_N_YEARS", "N_YEARS_AGO",
    "LAST_N_FISCAL_QUARTERS", "NEXT_N_FISCAL_QUARTERS", "N_FISCAL_QUARTERS_AGO",
    "LAST_N_FISCAL_YEARS", "NEXT_N_FISCAL_YEARS", "N_FISCAL_YEARS_AGO",
}
_UNITS = {"DAY": "day", "DAYS": "day", "WEEK": "week", "WEEKS": "week", "MONTH": "month",
          "MONTHS": "month", "QUARTER": "quarter", "QUARTERS": "quarter", "YEAR": "year",
          "YEARS": "year"}
ONE_DAY = dt.timedelta(days=1)


def literal_takes_n(name: str) -> bool | None:
    """True for `LAST_N_DAYS`-style literals, False for fixed ones, None if unknown."""
    if name in _FIXED:
        return False
    if name in _WITH_N:
        return True
    return None


def _start(day: dt.date, unit: str) -> dt.date:
    if unit == "day":
        return day
    if unit == "week":   # en_US weeks start on Sunday
        return day - dt.timedelta(days=(day.weekday() + 1) % 7)
    if unit == "month":
        return day.replace(day=1)
    if unit == "quarter":
        return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
    return day.replace(month=1, day=1)


def _shift(start: dt.date, unit: str, k: int) -> dt.date:
    if unit == "day":
        return start + dt.timedelta(days=k)
    if unit == "week":
        return start + dt.timedelta(weeks=k)
    months = {"month": 1, "quarter": 3, "year": 12}[unit] * k
    index = start.year * 12 + start.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


def literal_range(name: str, n: int | None, today: dt.date) -> tuple[dt.date, dt.date]:
    """Inclusive (first day, last day) of a date literal relative to `today`."""
    name = name.replace("_FISCAL", "")
    fixed = {"YESTERDAY": -1, "TODAY": 0, "TOMORROW": 1}
    if name in fixed:
        day = today + dt.timedelta(days=fixed[name])
        return day, day
    if name == "LAST_90_DAYS":   # includes today: 91 days in all
        return today - dt.timedelta(days=90), today
    if name == "NEXT_90_DAYS":
        return today + ONE_DAY, today + dt.timedelta(days=90)
    k = n or 0
    if name == "LAST_N_DAYS":    # LAST_N_DAYS:1 is yesterday and today
        return today - dt.timedelta(days=k), today
    if name == "NEXT_N_DAYS":
        return today + ONE_DAY, today + dt.timedelta(days=k)
    if name == "N_DAYS_AGO":
        day = today - dt.timedelta(days=k)
        return day, day
    word, unit_word = _split(name)
    unit = _UNITS[unit_word]
    start = _start(today, unit)
    if word == "THIS":
        return start, _shift(start, unit, 1) - ONE_DAY
    if word in ("LAST", "NEXT"):
        step = -1 if word == "LAST" else 1
        first = _shift(start, unit, step)
        return first, _shift(first, unit, 1) - ONE_DAY
    if word == "LAST_N":        # whole units before the current one
        return _shift(start, unit, -k), start - ONE_DAY
    if word == "NEXT_N":        # whole units after the current one
        return _shift(start, unit, 1), _shift(start, unit, k + 1) - ONE_DAY
    first = _shift(start, unit, -k)   # N_<UNIT>S_AGO
    return first, _shift(first, unit, 1) - ONE_DAY


def _split(name: str) -> tuple[str, str]:
    if name.startswith("N_") and name.endswith("_AGO"):
        return "AGO", name[2:-4]
    for prefix in ("LAST_N_", "NEXT_N_"):
        if name.startswith(prefix):
            return prefix[:-1], name[len(prefix):]
    word, _, unit = name.partition("_")
    return word, unit


# -- date functions -------------------------------------------------------------------
DATE_FUNCTIONS = frozenset({
    "CALENDAR_MONTH", "CALENDAR_QUARTER", "CALENDAR_YEAR", "DAY_IN_MONTH", "DAY_IN_WEEK",
    "DAY_IN_YEAR", "DAY_ONLY", "FISCAL_MONTH", "FISCAL_QUARTER", "FISCAL_YEAR", "HOUR_IN_DAY",
    "WEEK_IN_MONTH", "WEEK_IN_YEAR",
})
DATETIME_ONLY = frozenset({"DAY_ONLY", "HOUR_IN_DAY"})


def function_sql(name: str, expr: str) -> str:
    """SQLite expression computing date function `name` over the stored text in `expr`."""
    name = name.replace("FISCAL_", "CALENDAR_")   # fiscal year = calendar year (the default)
    part = {
        "CALENDAR_MONTH": f"CAST(substr({expr}, 6, 2) AS INTEGER)",
        "CALENDAR_YEAR": f"CAST(substr({expr}, 1, 4) AS INTEGER)",
        "CALENDAR_QUARTER": f"((CAST(substr({expr}, 6, 2) AS INTEGER) + 2) / 3)",
        "DAY_IN_MONTH": f"CAST(substr({expr}, 9, 2) AS INTEGER)",
        "DAY_IN_WEEK": f"(CAST(strftime('%w', substr({expr}, 1, 10)) AS INTEGER) + 1)",
        "DAY_IN_YEAR": f"CAST(strftime('%j', substr({expr}, 1, 10)) AS INTEGER)",
        "DAY_ONLY": f"substr({expr}, 1, 10)",
        "HOUR_IN_DAY": f"CAST(substr({expr}, 12, 2) AS INTEGER)",
        "WEEK_IN_MONTH": f"((CAST(substr({expr}, 9, 2) AS INTEGER) + 6) / 7)",
        "WEEK_IN_YEAR": f"((CAST(strftime('%j', substr({expr}, 1, 10)) AS INTEGER) + 6) / 7)",
    }
    return part[name]
