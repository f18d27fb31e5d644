"""`# type: ignore` stays rare and explained (issue 36): each one names its error code and
says why in a comment on its line or in the lines just above, and there are at most
`MOST` of them; lower `MOST` when one goes, never raise it."""

from __future__ import annotations

import re
from pathlib import Path

import a2abench

PACKAGE = Path(a2abench.__file__).parent
MOST = 14
_PRAGMA = re.compile(r"# type: ignore(\[[\w-]+(?:, *[\w-]+)*\])?")
_WINDOW = 6  # lines above a pragma where its reason may stand (a multi-line statement)


def _ignores() -> list[tuple[str, str, bool]]:
    """(where, the pragma, whether a reason stands beside it) for each one in the package."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            found = _PRAGMA.search(line)
            if found is None:
                continue
            tail = line[found.end():]
            above = [x for x in lines[max(0, i - _WINDOW):i] if not _PRAGMA.search(x)]
            reason = "#" in tail or any("#" in x for x in above)
            out.append((f"{path.relative_to(PACKAGE)}:{i + 1}", found[0], reason))
    return out


def test_each_type_ignore_names_its_code_and_its_reason() -> None:
    found = _ignores()
    assert [w for w, pragma, _ in found if "[" not in pragma] == []  # a bare ignore hides all
    assert [w for w, _, reason in found if not reason] == []
    assert len(found) <= MOST, f"{len(found)} `# type: ignore`: at most {MOST}"
