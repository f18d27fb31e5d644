"""serve-green's request parsing on hostile text (issue 17 item 3): linear, not quadratic.

    python perf/request_parse.py

For each hostile shape, parses texts of 100 KB and 1 MB (the server's default body limit) and
prints the time per text and the ratio to `json.loads` of a well-formed JSON request of the same
size, measured in the same run. Linear parsing keeps the ratio about constant as the size grows
tenfold; 0.1.0's non-greedy regex made the 1 MB case minutes long.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from functools import partial

from _util import machine, median_ms

from a2abench.green import RequestRejected, parse_request

OPEN = "open <white_agent_url> tags"
SHAPES: dict[str, Callable[[int], str]] = {
    OPEN: lambda n: "<white_agent_url>" * (n // 17),
    "tag pairs, <env_config> unclosed": lambda n: (
        "<white_agent_url>x</white_agent_url><env_config>" * (n // 48)),
    "code fences": lambda n: "```" + "```json " * (n // 8),
}


def baseline(size: int) -> str:
    config = {"benchmark": "tau2", "task_ids": [str(i) for i in range(size // 8)]}
    return json.dumps({"participants": {"agent": "http://purple:9019"}, "config": config})


def timed(fn: Callable[[], object], runs: int = 5) -> float:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return median_ms(samples)


def parse(text: str) -> None:
    with contextlib.suppress(RequestRejected):  # every hostile text is rejected; time only
        parse_request([text], [], ["crmarena", "tau2"])


def old_regex(text: str) -> None:
    """0.1.0's tag parser, for contrast (quadratic on unclosed tags)."""
    import re

    re.search(r"<white_agent_url>(.*?)</white_agent_url>", text, re.S)


def main() -> None:
    print(machine())
    old = [f"{n // 1000} KB {timed(partial(old_regex, SHAPES[OPEN](n)), 1):.0f} ms"
           for n in (10_000, 20_000, 40_000)]
    print("0.1.0's regex on open <white_agent_url> tags (quadratic):", ", ".join(old))
    print("| text | size | parse | json.loads of a request that size | ratio |")
    print("|---|---:|---:|---:|---:|")
    for size in (100_000, 1_000_000):
        base = timed(partial(json.loads, baseline(size)))
        for name, make in SHAPES.items():
            text = make(size)
            ms = timed(partial(parse, text))
            print(f"| {name} | {len(text) / 1e6:.1f} MB | {ms:.2f} ms | {base:.2f} ms | "
                  f"{ms / base:.2f} |")


if __name__ == "__main__":
    main()
