"""Read the f-strings and string constants of a Python source file without executing it.

Upstream prose is read with `ast`, but a whole module cannot always be parsed: the
agentbeats-tutorial green agent uses Python 3.12 f-string syntax (a backslash inside a
replacement field) that the 3.11 parser rejects. So the file is tokenized (which works on
3.11 and 3.12+), each f-string is split into literal text and replacement fields here, and
each field's expression is parsed with `ast` on its own (a plain expression parses on 3.11).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

_OPEN, _CLOSE = "([{", ")]}"
_PREFIX = re.compile(r"([A-Za-z]*)('''|\"\"\"|'|\")")
_SKIP = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
# Python 3.12+ tokenizes an f-string as FSTRING_START ... FSTRING_END (3.11: one STRING).
_FSTART: int | None = getattr(tokenize, "FSTRING_START", None)
_FEND: int | None = getattr(tokenize, "FSTRING_END", None)

Piece = str | ast.expr  # literal text, or a replacement field's expression


@dataclass(frozen=True)
class FString:
    pieces: tuple[Piece, ...]
    before: tuple[str, ...]  # the last source tokens before it, e.g. ("outgoing_text", "=")
    line: int

    def fields(self) -> list[str]:
        """The replacement fields' expressions, as source text (`ast.unparse`)."""
        return [ast.unparse(p.value if isinstance(p, ast.FormattedValue) else p)
                for p in self.pieces if isinstance(p, ast.expr)]


def _tokens(source: str) -> Iterator[tokenize.TokenInfo]:
    try:
        yield from tokenize.generate_tokens(io.StringIO(source).readline)
    except (tokenize.TokenError, SyntaxError) as exc:
        raise ValueError(f"cannot tokenize the source: {exc}") from exc


def read_fstrings(source: str) -> list[FString]:
    """Every f-string of `source` (outermost only), in order."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(pos: tuple[int, int]) -> int:
        return starts[pos[0] - 1] + pos[1]

    found: list[FString] = []
    before: list[str] = []
    opened: tuple[int, int] | None = None
    depth = 0
    for tok in _tokens(source):
        if tok.type == _FSTART:
            opened = opened or tok.start
            depth += 1
            continue
        if opened is not None:  # inside a 3.12+ f-string
            if tok.type == _FEND:
                depth -= 1
                if depth == 0:
                    text = source[offset(opened):offset(tok.end)]
                    found.append(FString(split_fstring(text), tuple(before[-3:]), opened[0]))
                    before.append(text)
                    opened = None
            continue
        if tok.type == tokenize.STRING and "f" in _literal_prefix(tok.string).lower():
            found.append(FString(split_fstring(tok.string), tuple(before[-3:]), tok.start[0]))
        if tok.type not in _SKIP:
            before.append(tok.string)
    return found


def module_strings(source: str) -> dict[str, str]:
    """Module-level `NAME = "plain string"` assignments."""
    out: dict[str, str] = {}
    window: list[tokenize.TokenInfo] = []
    for tok in _tokens(source):
        if tok.type in (tokenize.NL, tokenize.COMMENT):
            continue
        window = [*window, tok][-4:]
        if len(window) == 4 and window[3].type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            name, equals, value = window[0], window[1], window[2]
            if (name.type == tokenize.NAME and name.start[1] == 0 and equals.string == "="
                    and value.type == tokenize.STRING
                    and "f" not in _literal_prefix(value.string).lower()):
                literal = ast.literal_eval(value.string)
                if isinstance(literal, str):
                    out[name.string] = literal
    return out


def _literal_prefix(text: str) -> str:
    match = _PREFIX.match(text)
    return match.group(1) if match else ""


def split_fstring(text: str) -> tuple[Piece, ...]:
    """An f-string literal (prefix and quotes included) as literal text and expressions; a
    field with a conversion (`!r`), format spec or `=` becomes Python's own pieces for it
    (an `ast.FormattedValue`, after a Constant for `=`)."""
    match = _PREFIX.match(text)
    if match is None or not text.endswith(match.group(2)):
        raise ValueError(f"not a string literal: {text[:60]!r}")
    prefix, quote = match.groups()
    body = text[match.end():len(text) - len(quote)]
    raw = "r" in prefix.lower()
    pieces: list[Piece] = []
    literal, i = "", 0
    while i < len(body):
        char = body[i]
        if char == "\\" and not raw:  # an escape: keep it whole (`\N{...}` has braces)
            end = body.index("}", i) + 1 if body.startswith("\\N{", i) else i + 2
            literal, i = literal + body[i:end], end
        elif body.startswith(("{{", "}}"), i):
            literal, i = literal + char, i + 2
        elif char == "{":
            if literal:
                pieces.append(_decode(literal, quote, raw))
            literal = ""
            end, plain = _field_end(body, i + 1)
            if plain:
                pieces.append(ast.parse(f"({body[i + 1:end]})", mode="eval").body)
            else:  # with a conversion, format spec or `=`: Python parses that field
                pieces.extend(_formatted(body[i + 1:end]))
            i = end + 1
        elif char == "}":
            raise ValueError(f"single '}}' in f-string: {text[:60]!r}")
        else:
            literal, i = literal + char, i + 1
    if literal:
        pieces.append(_decode(literal, quote, raw))
    return tuple(pieces)


def _field_end(body: str, i: int) -> tuple[int, bool]:
    """Index of the `}` closing the replacement field that starts at `i`, and whether the
    field is a bare expression (no conversion, format spec or `=`)."""
    stack: list[str] = []
    plain = True
    while i < len(body):
        char = body[i]
        if char in "'\"" and plain:
            i = _string_end(body, i)
            continue
        if char in _OPEN:
            stack.append(_CLOSE[_OPEN.index(char)])
        elif stack and char == stack[-1]:
            stack.pop()
        elif not stack and char == "}":
            return i, plain
        elif not stack and (char == ":" or (char == "!" and body[i + 1:i + 2] != "=")
                            or (char == "=" and body[i + 1:i + 2] in ("}", "!", ":")
                                and body[i - 1:i] not in ("=", "!", "<", ">"))):
            plain = False  # the rest is a spec (its own {fields} nest as brackets)
        i += 1
    raise ValueError("unterminated f-string replacement field")


def _formatted(field: str) -> list[ast.expr]:
    """The pieces Python makes of one field with a conversion, format spec or `=`."""
    for quote in ('"""', "'''", '"', "'"):
        if quote not in field:
            try:
                node = ast.parse(f"f{quote}{{{field}}}{quote}", mode="eval").body
            except SyntaxError as exc:
                raise ValueError(f"cannot parse the f-string field {{{field}}}: {exc}") from exc
            assert isinstance(node, ast.JoinedStr)
            return list(node.values)
    raise ValueError(f"cannot parse the f-string field {{{field}}}")


def _string_end(body: str, i: int) -> int:
    """Index just past the string literal that starts at `i` (inside a field)."""
    quote = body[i:i + 3] if body[i:i + 3] in ("'''", '"""') else body[i]
    j = i + len(quote)
    while j < len(body):
        if body[j] == "\\":
            j += 2
        elif body.startswith(quote, j):
            return j + len(quote)
        else:
            j += 1
    raise ValueError("unterminated string inside an f-string field")


def _decode(literal: str, quote: str, raw: bool) -> str:
    """A literal piece's value: its escapes decoded as Python decodes them."""
    if raw or "\\" not in literal:
        return literal
    for wrapper in (quote, '"""', "'''", '"', "'"):
        try:
            with warnings.catch_warnings():
                # an invalid escape stays as written, as Python keeps it (it only warns)
                warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
                value = ast.literal_eval(f"{wrapper}{literal}{wrapper}")
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            return value
    raise ValueError(f"cannot decode the f-string text {literal[:60]!r}")
