"""The one `main` of the generators: write the generated file, or with `--check` say it is
stale (exit 1) without writing; tests run the generators with `--check`."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_or_check(target: Path, text: str, argv: list[str], script: str) -> int:
    """`script` is the generator's file name, for the message that says how to refresh."""
    if "--check" in argv:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"{target.relative_to(ROOT)} is stale: run python scripts/{script}",
                  file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")
    return 0
