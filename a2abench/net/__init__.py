"""The network ground floor: what every outbound call of a2abench stands on.

- `h1`: the lean HTTP/1.1 client of JSON-RPC calls (httpx does the rest: docs/transports.md)
- `coding`: Content-Encoding undone in bounded pieces, for every body a peer sends (both
  clients: httpx's own decoder is never used)
- `tls`: the one verified TLS context every client of the process shares
- `egress`: which hosts a run may contact (`--allow-host`)
- `limits`: reply caps and deadlines (`ReplyLimits`, `read_body`, `Deadline`)
- `retry`: the retry policy and Retry-After; `attempts`: the one metered attempt loop
- `download`: pinned, verified downloads into the cache
- `embedded`: uvicorn inside a process that owns Ctrl-C (demo, MCP channel, tests)

Nothing here imports a benchmark, the run engine, the A2A client or the LLM client.
"""
