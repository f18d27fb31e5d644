"""Relative date literals and date functions, against ranges worked out by hand."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from a2abench.benchmarks.crmarena.sandbox import dates

D = dt.date


@pytest.mark.parametrize(("today", "literal", "n", "first", "last"), [
    (D(2023, 6, 15), "TODAY", None, D(2023, 6, 15), D(2023, 6, 15)),
    (D(2023, 6, 15), "TOMORROW", None, D(2023, 6, 16), D(2023, 6, 16)),
    (D(2023, 6, 15), "LAST_N_DAYS", 1, D(2023, 6, 14), D(2023, 6, 15)),
    (D(2023, 6, 15), "NEXT_N_DAYS", 1, D(2023, 6, 16), D(2023, 6, 16)),
    (D(2024, 1, 3), "LAST_WEEK", None, D(2023, 12, 24), D(2023, 12, 30)),
    (D(2023, 6, 11), "THIS_WEEK", None, D(2023, 6, 11), D(2023, 6, 17)),
    (D(2023, 6, 17), "THIS_WEEK", None, D(2023, 6, 11), D(2023, 6, 17)),
    (D(2024, 1, 3), "THIS_QUARTER", None, D(2024, 1, 1), D(2024, 3, 31)),
    (D(2024, 1, 3), "LAST_QUARTER", None, D(2023, 10, 1), D(2023, 12, 31)),
    (D(2024, 1, 3), "LAST_N_MONTHS", 2, D(2023, 11, 1), D(2023, 12, 31)),
    (D(2024, 1, 3), "NEXT_N_MONTHS", 1, D(2024, 2, 1), D(2024, 2, 29)),
    (D(2024, 1, 3), "NEXT_MONTH", None, D(2024, 2, 1), D(2024, 2, 29)),
    (D(2024, 3, 31), "LAST_MONTH", None, D(2024, 2, 1), D(2024, 2, 29)),
    (D(2024, 1, 3), "N_YEARS_AGO", 1, D(2023, 1, 1), D(2023, 12, 31)),
    (D(2024, 1, 3), "NEXT_N_YEARS", 2, D(2025, 1, 1), D(2026, 12, 31)),
    (D(2024, 1, 3), "LAST_N_QUARTERS", 4, D(2023, 1, 1), D(2023, 12, 31)),
    (D(2024, 1, 3), "NEXT_N_QUARTERS", 1, D(2024, 4, 1), D(2024, 6, 30)),
    (D(2024, 1, 3), "N_QUARTERS_AGO", 1, D(2023, 10, 1), D(2023, 12, 31)),
    (D(2024, 1, 3), "N_WEEKS_AGO", 2, D(2023, 12, 17), D(2023, 12, 23)),
    (D(2024, 1, 3), "NEXT_N_WEEKS", 2, D(2024, 1, 7), D(2024, 1, 20)),
    (D(2024, 1, 3), "LAST_FISCAL_YEAR", None, D(2023, 1, 1), D(2023, 12, 31)),
    (D(2024, 1, 3), "NEXT_FISCAL_QUARTER", None, D(2024, 4, 1), D(2024, 6, 30)),
    (D(2024, 1, 3), "LAST_N_FISCAL_QUARTERS", 2, D(2023, 7, 1), D(2023, 12, 31)),
    (D(2024, 3, 1), "LAST_90_DAYS", None, D(2023, 12, 2), D(2024, 3, 1)),
    (D(2024, 3, 1), "NEXT_90_DAYS", None, D(2024, 3, 2), D(2024, 5, 30)),
])
def test_literal_ranges(today: dt.date, literal: str, n: int | None, first: dt.date,
                        last: dt.date) -> None:
    assert dates.literal_takes_n(literal) is (n is not None)
    assert dates.literal_range(literal, n, today) == (first, last)


def test_unknown_literal() -> None:
    assert dates.literal_takes_n("LAST_DECADE") is None


@pytest.mark.parametrize(("function", "stored", "value"), [
    ("CALENDAR_MONTH", "2023-11-05T10:00:00.000+0000", 11),
    ("CALENDAR_YEAR", "2023-11-05", 2023),
    ("CALENDAR_QUARTER", "2023-11-05", 4),
    ("CALENDAR_QUARTER", "2023-03-31", 1),
    ("FISCAL_QUARTER", "2023-04-01", 2),
    ("DAY_IN_MONTH", "2023-11-05", 5),
    ("DAY_IN_WEEK", "2023-11-05T10:00:00Z", 1),     # a Sunday
    ("DAY_IN_WEEK", "2023-11-11", 7),               # a Saturday
    ("DAY_IN_YEAR", "2023-02-01", 32),
    ("DAY_ONLY", "2023-11-05T23:59:59.000+0000", "2023-11-05"),
    ("HOUR_IN_DAY", "2023-11-05T17:45:00.000+0000", 17),
    ("WEEK_IN_MONTH", "2023-11-07", 1),
    ("WEEK_IN_MONTH", "2023-11-08", 2),
    ("WEEK_IN_YEAR", "2023-01-08", 2),
])
def test_date_functions(function: str, stored: str, value: object) -> None:
    conn = sqlite3.connect(":memory:")
    sql = dates.function_sql(function, ":v")
    got = conn.execute(f"SELECT {sql}", {"v": stored}).fetchone()
    assert got[0] == value
