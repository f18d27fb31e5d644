"""`a2abench serve-green`: a2abench as an A2A green agent (assessor) server.

Its flags are `GreenSettings`' fields (green/settings.py), read as data from the generated
flag table (`_flag_table.GREEN`), so `serve-green --help` imports neither pydantic nor the
server. A new flag is a new field there; nothing here changes.
"""

from typing import Any

from a2abench.cli._flag_table import GREEN
from a2abench.cli._flags import parameter, with_signature


def _serve_green(**flags: Any) -> None:
    """Serve a2abench as an A2A green agent that AgentBeats-style platforms call.

    Each A2A task is one assessment: send {"participants": {"agent": URL}, "config":
    {"benchmark": "tau2", "domain": "airline", "max_tasks": 5}}; progress streams as status
    updates and the Result artifact holds the scores. GET /status shows assessments live;
    /healthz and /readyz answer probes. See docs/serve-green.md.

    Example: a2abench serve-green --host 0.0.0.0 --port 9009 --card-url http://green:9009/
    """
    import os

    from a2abench.green import jsonlog, serve
    from a2abench.green.settings import GreenSettings
    from a2abench.render.output import Output

    # An absent flag (None) leaves the field its default; a repeatable one arrives as a list.
    fields = {spec.target: flags[spec.name] for spec in GREEN if flags[spec.name] is not None}
    if "auth_token" not in fields and "A2ABENCH_AUTH_TOKEN" in os.environ:
        # click reads an empty variable as unset; GreenSettings refuses an empty token.
        fields["auth_token"] = os.environ["A2ABENCH_AUTH_TOKEN"]
    as_json = fields.get("log_format") == "json"
    with jsonlog.errors_as_json(as_json):  # json: start-up errors are JSON lines too
        settings = GreenSettings(**fields)
        out = Output.for_command()

        def ready(url: str, paths: str, warnings: list[str]) -> None:
            if as_json:
                jsonlog.announce(url, paths, warnings)
                return
            for warning in warnings:
                out.err.print(f"Warning: {warning}", markup=False)
            out.err.print(f"a2abench green agent: card {url.rstrip('/')}/.well-known/"
                          f"agent-card.json, JSON-RPC {url} (this server answers JSON-RPC at "
                          f"{paths}; Ctrl-C stops)", markup=False)

        serve(settings, on_ready=ready)


serve_green = with_signature(_serve_green, [parameter(spec) for spec in GREEN])
