"""fstrings.py: f-strings split as Python evaluates them, on 3.11 and 3.12+ alike."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from a2abench.benchmarks.tau2.fstrings import FString, module_strings, read_fstrings, split_fstring

NAMES: dict[str, Any] = {"a": "A", "b": [1, 2], "d": {"k": "}"}, "x": 3.14159}
CASES = [
    'f"plain {a} and {{braces}} {b[0]}"',
    "f'''multi\nline {d[\"k\"]} \"q\" \\t tab {{x}}'''",
    'rf"raw \\n {a}"',
    'f"\\N{BULLET} {a!r} {x:.2f} {x:{len(b)}.{1}f} {a=}"',
    'F"{ {\'k\': 1}[\'k\'] } {(lambda v: v)(a)} {b if b != [] else 0}"',
    'f"ends with an escaped quote \\""',
]


def _render(pieces: tuple[Any, ...]) -> str:
    out = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
        else:  # evaluate the expression (or Python's own formatted piece) as Python would
            node = piece if isinstance(piece, ast.FormattedValue) else ast.FormattedValue(
                piece, -1, None)
            tree = ast.Expression(ast.JoinedStr([node]))
            out.append(eval(compile(ast.fix_missing_locations(tree), "<t>", "eval"), NAMES))
    return "".join(out)


@pytest.mark.parametrize("literal", CASES)
def test_split_pieces_render_what_python_renders(literal: str) -> None:
    assert _render(split_fstring(literal)) == eval(literal, NAMES)


def test_read_fstrings_finds_each_fstring_with_the_tokens_before_it() -> None:
    source = ('NAME = "value"\nOTHER = f"{NAME}"\n\n\ndef f():\n    text = f"<{a}>"\n'
              '    return f"""{text}\n"""  # done\n')
    found = read_fstrings(source)
    assert [(s.before[-2:], s.fields(), s.line) for s in found] == [
        (("OTHER", "="), ["NAME"], 2), (("text", "="), ["a"], 6),
        (('f"<{a}>"', "return"), ["text"], 7)]
    assert isinstance(found[0], FString) and module_strings(source) == {"NAME": "value"}


def test_a_single_closing_brace_is_refused() -> None:
    with pytest.raises(ValueError, match="single '}'"):
        split_fstring('f"a } b"')
