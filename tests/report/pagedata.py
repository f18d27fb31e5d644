"""Read the data a report page embeds (summary rows and inflated bodies), as the page's JS does."""

from __future__ import annotations

import base64
import json
import re
import zlib
from typing import Any


def page_data(html: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    data = re.search(r'<script type="application/json" id="a2ab-data">(.*?)</script>', html, re.S)
    blobs = re.search(r'<script type="text/plain" id="a2ab-blobs">(.*?)</script>', html, re.S)
    assert data and blobs, "the page embeds no viewer data"
    meta = json.loads(data.group(1))
    rows = [dict(zip(meta["columns"], row, strict=True)) for row in meta["rows"]]
    meta["rows"] = rows
    texts = blobs.group(1).split("\n") if blobs.group(1) else []
    chunks = [zlib.decompress(base64.b64decode(t)).decode().split("\n") for t in texts]
    # Every chunk holds the bodies of its rows alone, each once.
    assert sorted(map(tuple, meta["blobs"])) == [
        (c, i) for c, bodies in enumerate(chunks) for i in range(len(bodies))]
    bodies = [json.loads(chunks[c][i]) for c, i in meta["blobs"]]
    # As viewer.js's load(): the record's fields, with `requests` its request rows.
    return meta, [{**b["record"], "requests": b["requests"]} for b in bodies]
