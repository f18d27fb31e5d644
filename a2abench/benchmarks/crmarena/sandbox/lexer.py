"""SOQL tokens. One hand-written scanner shared by the SOQL parser and SOSL's RETURNING part."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import SalesforceError, malformed

MAX_QUERY_CHARS = 100_000   # Salesforce rejects SOQL longer than 100,000 characters too

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<datetime>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:?\d{2}))
  | (?P<baddate>\d{4}-\d{2}-\d{2}T[\w:.+-]*)
  | (?P<date>\d{4}-\d{2}-\d{2}(?![\w:]))
  | (?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?![\w.]))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>')
  | (?P<op><=|>=|!=|<>|[=<>(),.:;*+\-\[\]{}|!&/])
""", re.VERBOSE)

_PLAIN = re.compile(r"[^'\\]+")   # a string literal's characters up to a quote or an escape
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "'": "'", '"': '"',
            "\\": "\\"}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str      # ident, string, number, date, datetime, op, eof
    text: str      # source text (the decoded value for strings)
    pos: int
    upper: str = ""
    raw: str = ""  # strings: the text between the quotes, escapes untouched (LIKE reads it)

    def is_kw(self, *words: str) -> bool:
        return self.kind == "ident" and self.upper in words

    def is_op(self, *ops: str) -> bool:
        return self.kind == "op" and self.text in ops


def _read_string(query: str, start: int) -> tuple[str, int]:
    """Decode a single-quoted literal starting at `start`; returns (value, end offset).

    `\\%` and `\\_` decode to `%` and `_`; LIKE reads the raw text instead.
    """
    out: list[str] = []
    i = start + 1
    n = len(query)
    while i < n:
        plain = _PLAIN.match(query, i)
        if plain:   # a run of ordinary characters at once, not one by one
            out.append(plain.group())
            i = plain.end()
            if i >= n:
                break
        ch = query[i]
        if ch == "'":
            return "".join(out), i + 1
        if ch == "\\":
            if i + 1 >= n:
                break
            nxt = query[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
            elif nxt in "%_":
                out.append(nxt)
            else:
                raise malformed(query, i, f"Invalid string literal '{query[start:i + 2]}'. "
                                "Illegal character sequence '\\" + nxt + "' in string literal.")
            i += 2
    raise malformed(query, start, "line 1:" + str(start) + " mismatched character '<EOF>' "
                    "expecting '''")


def tokenize(query: str, start: int = 0) -> list[Token]:
    """Tokens of `query` from offset `start`, ending with an `eof` token.

    A lexical error becomes an `error` token (its reason in `raw`) and ends the list: the
    parser raises it only if it gets that far, so errors surface in reading order as in
    Salesforce's own parser.
    """
    if len(query) > MAX_QUERY_CHARS:
        raise SalesforceError("MALFORMED_QUERY",
                              f"SOQL statements cannot be longer than {MAX_QUERY_CHARS} "
                              "characters.")
    tokens: list[Token] = []
    i = start
    n = len(query)
    while i < n:
        m = _TOKEN.match(query, i)
        kind = (m.lastgroup or "") if m else "bad"
        if kind == "ws" and m:
            i = m.end()
            continue
        try:
            if kind == "string":
                value, end = _read_string(query, i)
                tokens.append(Token("string", value, i, raw=query[i + 1:end - 1]))
                i = end
                continue
            if m is None or kind == "baddate":
                text = query[i] if m is None else m.group()
                reason = (f"line 1:{i} no viable alternative at character '{text}'"
                          if m is None else f"unexpected token: '{text}'")
                raise malformed(query, i, reason)
        except SalesforceError as err:
            tokens.append(Token("error", query[i], i, raw=err.message.rsplit("\n", 1)[-1]))
            return tokens
        text = m.group()
        tokens.append(Token(kind, text, i, text.upper() if kind == "ident" else ""))
        i = m.end()
    tokens.append(Token("eof", "<EOF>", n))
    return tokens
