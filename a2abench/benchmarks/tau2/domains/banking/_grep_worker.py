"""The banking `grep` evaluator, run as a child process (see grep_pool.py): an agent's regex
can take exponential time in Python's backtracking engine and cannot be interrupted inside
one `findall`, so it runs here, where the parent can kill it at its deadline.

Standard library only and no a2abench imports: the parent starts it as a script with
`python -I -S`, so it starts fast and cannot be steered by the environment.

Protocol (one JSON document per line): stdin's first line is the list of document contents
in upstream's order, answered with `{"ready": true}` once they are loaded; then each request
`{"pattern": str, "case_sensitive": bool, "top_k": int}` is answered with
`{"hits": [[document index, match count], ...]}` or `{"error": str}`.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

MEMORY_CEILING = 2 << 30  # address space; a runaway match stack fails instead of swapping


def limit_memory() -> None:
    try:
        import resource
    except ImportError:  # not on Windows: the parent's deadline still bounds the work
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = MEMORY_CEILING if hard == resource.RLIM_INFINITY else min(MEMORY_CEILING, hard)
    if soft == resource.RLIM_INFINITY or soft > ceiling:
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))


def is_literal(query: str) -> bool:
    """True when the query means itself as a regex (escaping adds only `\\-` and `\\ `)."""
    return re.escape(query) == query.replace("-", "\\-").replace(" ", "\\ ")


_ASCII = "".join(map(chr, range(128)))
_NON_ASCII = re.compile("[^\x00-\x7f]")


def foldable(text: str) -> bool:
    """True when lower-casing `text` keeps its length and no non-ASCII character in it
    matches an ASCII one case-insensitively (as U+212A KELVIN SIGN matches `k` in `re`)."""
    if text.isascii():  # the common case, at C speed
        return True
    # the non-ASCII characters found by a regex: a set of every character costs a fresh
    # worker ~8 ms on the banking KB
    return all(ch.lower() == ch and not re.search(re.escape(ch), _ASCII, re.IGNORECASE)
               for ch in set(_NON_ASCII.findall(text)))


class Corpus:
    def __init__(self, contents: list[str]) -> None:
        self.contents = contents
        # Lower-cased documents where a case-insensitive ASCII regex literal matches exactly
        # where the lower-cased literal occurs; the others keep the regex.
        self.lower = [c.lower() if foldable(c) else None for c in contents]

    def counts(self, query: str, case_sensitive: bool) -> list[int]:
        """Upstream GrepRetriever's match counts (an invalid regex is taken literally)."""
        flags = 0 if case_sensitive else re.IGNORECASE
        try:
            pattern, literal = re.compile(query, flags), is_literal(query)
        except re.error:
            pattern, literal = re.compile(re.escape(query), flags), True
        if case_sensitive or not query.isascii() or not literal:
            return [len(pattern.findall(c)) for c in self.contents]
        needle = query.lower()
        return [low.count(needle) if low is not None else len(pattern.findall(c))
                for c, low in zip(self.contents, self.lower, strict=True)]

    def search(self, query: str, case_sensitive: bool, top_k: int) -> list[list[int]]:
        if not query.strip():
            return []
        hits = [[i, n] for i, n in enumerate(self.counts(query, case_sensitive)) if n]
        hits.sort(key=lambda h: h[1], reverse=True)  # stable: ties keep document order
        return hits[:top_k]


def answer(corpus: Corpus, line: str) -> dict[str, Any]:
    try:
        request = json.loads(line)
        return {"hits": corpus.search(str(request["pattern"]),
                                      bool(request["case_sensitive"]), int(request["top_k"]))}
    except (MemoryError, RecursionError, OverflowError, ValueError, KeyError,
            TypeError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def main() -> None:
    limit_memory()
    first = sys.stdin.readline()
    if not first:
        return
    corpus = Corpus([str(c) for c in json.loads(first)])
    sys.stdout.write('{"ready": true}\n')  # the parent's deadline counts from here
    sys.stdout.flush()
    for line in sys.stdin:
        sys.stdout.write(json.dumps(answer(corpus, line)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
