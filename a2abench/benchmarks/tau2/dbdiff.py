"""Where the agent's final DB differs from the gold DB, field by field (for the report viewer).

Upstream only records the verdict (`db_match`); the viewer needs the records behind it. The
diff compares the same canonical JSON the DB hash uses (so `1` and `1.0` differ, as in the
hash), only walks records either side touched when both are views of one base, and is bounded
so a task record stays small: at most `MAX_ENTRIES` leaves, each value clipped to `MAX_CHARS`.

    {"entries": [{"db": "agent", "path": ["reservations", "ABC123", "status"],
                  "final": "cancelled", "gold": "active"}], "truncated": false}

`db` is the agent-side or user-side DB (telecom has both); an entry without "final" (or
"gold") means the field is absent on that side.
"""

from __future__ import annotations

from typing import Any

from a2abench.benchmarks.tau2.db import ABSENT, StateDB, canonical

MAX_ENTRIES = 60
MAX_CHARS = 600


class _Diff:
    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.truncated = False

    def add(self, db: str, path: list[str], final: Any, gold: Any) -> None:
        if len(self.entries) >= MAX_ENTRIES:
            self.truncated = True
            return
        entry: dict[str, Any] = {"db": db, "path": path}
        if final is not ABSENT:
            entry["final"] = _clip(final)
        if gold is not ABSENT:
            entry["gold"] = _clip(gold)
        self.entries.append(entry)

    def walk(self, db: str, path: list[str], final: Any, gold: Any) -> None:
        if self.truncated or _same(final, gold):
            return
        if isinstance(final, dict) and isinstance(gold, dict):
            for key in sorted(set(final) | set(gold), key=str):
                self.walk(db, [*path, str(key)], final.get(key, ABSENT),
                          gold.get(key, ABSENT))
        elif isinstance(final, list) and isinstance(gold, list) and len(final) == len(gold):
            for index, (f, g) in enumerate(zip(final, gold, strict=True)):
                self.walk(db, [*path, str(index)], f, g)
        elif final is ABSENT or gold is ABSENT or not _same_leaf(final, gold):
            self.add(db, path, final, gold)


# Values of these exact types have equal canonical texts exactly when they are equal (`==`
# tells 1 from True and 1.0 only across types, which take the canonical comparison).
_PLAIN = frozenset({str, int, bool, type(None)})


def _same_leaf(final: Any, gold: Any) -> bool:
    kind = type(final)
    if kind is type(gold) and kind in _PLAIN:
        return bool(final == gold)
    return canonical(final) == canonical(gold)


def _same(final: Any, gold: Any) -> bool:
    """An equal subtree, found at C speed (`==`) and then checked for equal hash texts
    (1 == 1.0 == True, whose texts differ) instead of compared leaf by leaf: a banking DB has
    ~10^5 leaves and a failed task changes a handful."""
    if final is gold:
        return True
    if isinstance(final, dict | list) and type(final) is type(gold) and final == gold:
        return _same_text(final, gold)
    return False


def _same_text(final: Any, gold: Any) -> bool:
    """`canonical(final) == canonical(gold)` for `final == gold`, without building the texts
    where the two share objects (untouched records of one base: a banking DB dump)."""
    if final is gold:
        return True
    kind = type(final)
    if kind is not type(gold):
        return canonical(final) == canonical(gold)
    if kind in _PLAIN:  # equal values of these exact types have equal texts
        return True
    if kind is dict and all(type(key) is str for key in final):  # texts of keys: equal too
        return all(_same_text(value, gold[key]) for key, value in final.items())
    if kind is list:
        return all(_same_text(f, g) for f, g in zip(final, gold, strict=True))
    return canonical(final) == canonical(gold)  # floats (-0.0 == 0.0), anything else


def _clip(value: Any) -> Any:
    text = canonical(value)
    return value if len(text) <= MAX_CHARS else text[:MAX_CHARS] + "…"


def _compare(diff: _Diff, db: str, final: StateDB, gold: StateDB) -> None:
    parts = final.differing(gold)
    if parts is None:
        diff.walk(db, [], _dump(final), _dump(gold))
        return
    for path, left, right in parts:
        diff.walk(db, path, left, right)


def _dump(db: StateDB) -> Any:
    dump = getattr(db, "dump", None)
    return dump() if callable(dump) else {}


def db_diff(final: tuple[StateDB, StateDB | None], gold: tuple[StateDB, StateDB | None]
            ) -> dict[str, Any]:
    """The differing fields of (agent DB, user DB) pairs: the trajectory's final state vs gold."""
    diff = _Diff()
    _compare(diff, "agent", final[0], gold[0])
    if final[1] is final[0] and gold[1] is gold[0]:  # one DB per side (banking): its entries
        for entry in list(diff.entries):  # again, as a second walk would add them
            if len(diff.entries) >= MAX_ENTRIES:
                diff.truncated = True
                break
            diff.entries.append({**entry, "db": "user"})
    elif final[1] is not None and gold[1] is not None:
        _compare(diff, "user", final[1], gold[1])
    return {"entries": diff.entries, "truncated": diff.truncated}
