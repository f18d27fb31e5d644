"""The SOSL search expression (the text between FIND's braces) and its FTS5 translation.

Salesforce matches search terms against tokens, case-insensitively: words are implicitly
ANDed, "quoted phrases" match adjacent words, AND / OR / AND NOT / parentheses combine
terms, `*` matches any run of characters and `?` exactly one. Plain words are matched on an
English-stemmed index (Salesforce lemmatises English: "policies" finds "policy"); words
with wildcards are matched on an unstemmed index, as Salesforce does not stem them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import SalesforceError

# Words Salesforce search leaves out of implicit AND matching.
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with",
})
_WORD_CHARS = re.compile(r"[0-9A-Za-z\u00C0-\uFFFF*?]+")


@dataclass(frozen=True)
class Leaf:
    """One matchable unit: a word, a phrase, or a wildcard pattern."""

    tokens: tuple[str, ...]     # lower-case tokens; one token may hold * or ? wildcards
    phrase: bool = False

    @property
    def wildcard(self) -> bool:
        return any("*" in t or "?" in t for t in self.tokens)


@dataclass(frozen=True)
class TermOp:
    op: str                     # AND, OR, NOT
    items: tuple[Term, ...]


Term = Leaf | TermOp


class _TermParser:
    def __init__(self, text: str) -> None:
        self.tokens = self._lex(text)
        self.i = 0

    @staticmethod
    def _lex(text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch.isspace():
                i += 1
            elif ch in "()":
                out.append(("op", ch))
                i += 1
            elif ch == '"':
                end = text.find('"', i + 1)
                if end < 0:
                    raise SalesforceError("MALFORMED_SEARCH", "Unbalanced quotes in the "
                                          "search term.")
                out.append(("phrase", text[i + 1:end]))
                i = end + 1
            else:
                word = []
                while i < len(text) and not text[i].isspace() and text[i] not in '()"':
                    if text[i] == "\\" and i + 1 < len(text):
                        word.append(" " if text[i + 1] in "*?" else text[i + 1])
                        i += 2
                        continue
                    word.append(text[i])
                    i += 1
                token = "".join(word)
                kind = "kw" if token.upper() in ("AND", "OR", "NOT") else "word"
                out.append((kind, token.upper() if kind == "kw" else token))
        return out

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def parse(self) -> Term:
        term = self.or_expr()
        extra = self.peek()
        if extra is not None:
            raise SalesforceError("MALFORMED_SEARCH", f"Unexpected '{extra[1]}' in the "
                                  "search term.")
        return term

    def or_expr(self) -> Term:
        items = [self.and_expr()]
        while self.peek() == ("kw", "OR"):
            self.i += 1
            items.append(self.and_expr())
        return items[0] if len(items) == 1 else TermOp("OR", tuple(items))

    def and_expr(self) -> Term:
        items = [self.unary()]
        while True:
            tok = self.peek()
            if tok is None or tok == ("op", ")") or tok == ("kw", "OR"):
                break
            if tok == ("kw", "AND"):
                self.i += 1
            items.append(self.unary())
        return items[0] if len(items) == 1 else TermOp("AND", tuple(items))

    def unary(self) -> Term:
        tok = self.peek()
        if tok == ("kw", "NOT"):
            self.i += 1
            return TermOp("NOT", (self.unary(),))
        return self.primary()

    def primary(self) -> Term:
        tok = self.peek()
        if tok is None:
            raise SalesforceError("MALFORMED_SEARCH", "The search term ended unexpectedly.")
        self.i += 1
        kind, text = tok
        if tok == ("op", "("):
            inner = self.or_expr()
            if self.peek() != ("op", ")"):
                raise SalesforceError("MALFORMED_SEARCH", "Unbalanced parentheses in the "
                                      "search term.")
            self.i += 1
            return inner
        if kind == "phrase":
            return Leaf(tuple(w.lower() for w in _WORD_CHARS.findall(text)
                              if w.strip("*?")), phrase=True)
        if kind == "word":
            parts = tuple(w.lower() for w in _WORD_CHARS.findall(text))
            return Leaf(parts, phrase=len(parts) > 1)
        raise SalesforceError("MALFORMED_SEARCH", f"Unexpected '{text}' in the search term.")


def parse_terms(text: str) -> Term:
    """Parse a search expression; drops stop words and checks the 2-character minimum."""
    term = _prune(_TermParser(text).parse())
    if term is None or not _long_enough(term):
        raise SalesforceError("INVALID_SEARCH", "search term must be longer than one "
                              "character")
    return term


def _prune(term: Term) -> Term | None:
    """Remove empty leaves, and stop words / one-letter words standing alone in an AND."""
    if isinstance(term, Leaf):
        return term if term.tokens else None
    items = [p for t in term.items if (p := _prune(t)) is not None]
    if term.op == "AND":
        kept = [t for t in items if not _ignorable(t)]
        items = kept or items
    if not items:
        return None
    if term.op != "NOT" and len(items) == 1:
        return items[0]
    return TermOp(term.op, tuple(items))


def _ignorable(term: Term) -> bool:
    if not isinstance(term, Leaf) or term.phrase or term.wildcard:
        return False
    word = term.tokens[0]
    return word in STOP_WORDS or len(word) < 2


def _long_enough(term: Term) -> bool:
    if isinstance(term, Leaf):
        return any(len(t.replace("*", "").replace("?", "")) >= 2 for t in term.tokens)
    return any(_long_enough(t) for t in term.items)


def fts_body(leaf: Leaf) -> str:
    """FTS5 syntax for a non-wildcard leaf: a quoted token or phrase."""
    quoted = [f'"{t}"' for t in leaf.tokens]   # tokens are [0-9A-Za-z...] runs: no quotes
    if not leaf.phrase:
        return quoted[0]
    body = '"' + " ".join(leaf.tokens) + '"'
    if len(leaf.tokens) > 1 and all(t.isdigit() for t in leaf.tokens):
        body = f'({body} OR "{"".join(leaf.tokens)}")'   # 415-555-1212 also as one number
    return body


def fts_string(leaf: Leaf, columns: str) -> str:
    """An FTS5 query for a non-wildcard leaf restricted to `columns` (e.g. `{name email}`)."""
    return f"{columns} : {fts_body(leaf)}"


def prefix_phrase(leaf: Leaf, columns: str) -> str | None:
    """FTS5 prefix query when the leaf's only wildcard is one trailing `*`, else None."""
    *rest, last = leaf.tokens
    stem = last[:-1]
    if (last.endswith("*") and stem and "*" not in stem and "?" not in stem
            and not any("*" in t or "?" in t for t in rest)):
        return f'{columns} : "{" ".join([*rest, stem])}"*'
    return None


def glob_pattern(token: str) -> str:
    """A GLOB pattern over index terms for a token with inner wildcards."""
    return token.replace("[", "[[]")
