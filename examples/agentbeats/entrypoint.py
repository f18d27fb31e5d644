"""The a2abench image's entrypoint: `a2abench serve-green` with the platform's arguments, but
never open by accident, and the port the health check probes.

    entrypoint.py [serve-green arguments ...]   # checks, records the port, then exec
    entrypoint.py --healthcheck                 # the HEALTHCHECK: GET /healthz on that port

The image binds every interface (A2ABENCH_HOST=0.0.0.0), so without a bearer token anyone who
reaches the port could run assessments on the operator's LLM key. It refuses to start that
way (exit 2) unless A2ABENCH_AUTH_TOKEN (or --auth-token) is set, or A2ABENCH_ALLOW_OPEN=1
says a platform isolates the container: on AgentBeats only its gateway reaches it.

Standard library only, so the health check starts fast and needs nothing of a2abench.
"""

from __future__ import annotations

import ipaddress
import os
import sys
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path

DEFAULT_PORT = "9009"
# Where the port the server was asked to bind is kept for the health check: an argument
# (`--port 8080`, as platforms pass it) never reaches the health check's environment.
PORT_FILE = Path(os.environ.get("A2ABENCH_PORT_FILE", "/tmp/a2abench-port"))

OPEN = ("Error: this container would serve assessments on {host} with no bearer token: "
        "anyone who reaches the port could run them on your LLM key and make the server "
        "contact hosts of their choosing. Set A2ABENCH_AUTH_TOKEN (clients then send "
        "`Authorization: Bearer <token>`), or A2ABENCH_ALLOW_OPEN=1 where only a trusted "
        "gateway reaches the container (AgentBeats).\n")


def option(args: Sequence[str], name: str) -> str | None:
    """The value of `--name VALUE` or `--name=VALUE` in `args` (the last one wins)."""
    value = None
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


def loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False  # a name or a wildcard: reachable from elsewhere


def refusal(args: Sequence[str], env: Mapping[str, str]) -> str | None:
    """Why the server must not start as asked (None when it may)."""
    host = option(args, "--host") or env.get("A2ABENCH_HOST") or "127.0.0.1"
    token = option(args, "--auth-token") or env.get("A2ABENCH_AUTH_TOKEN") or ""
    if loopback(host) or token.strip() or env.get("A2ABENCH_ALLOW_OPEN", "").strip() == "1":
        return None
    return OPEN.format(host=host)


def port(args: Sequence[str], env: Mapping[str, str]) -> str:
    return option(args, "--port") or env.get("A2ABENCH_PORT") or DEFAULT_PORT


def healthcheck(env: Mapping[str, str]) -> int:
    """0 when /healthz answers on the port the server was started with."""
    try:
        bound = PORT_FILE.read_text().strip()
    except OSError:
        bound = env.get("A2ABENCH_PORT") or DEFAULT_PORT
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{bound}/healthz", timeout=4):
            return 0
    except OSError:
        return 1


def main(argv: Sequence[str], env: Mapping[str, str]) -> int:
    if list(argv[:1]) == ["--healthcheck"]:
        return healthcheck(env)
    why = refusal(argv, env)
    if why is not None:
        sys.stderr.write(why)
        return 2
    try:
        PORT_FILE.write_text(port(argv, env))
    except OSError as exc:  # the health check then falls back to A2ABENCH_PORT
        sys.stderr.write(f"warning: cannot record the port for the health check: {exc}\n")
    os.execvp("a2abench", ["a2abench", "serve-green", *argv])
    return 1  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], os.environ))
