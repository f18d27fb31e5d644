"""`a2abench serve-green`: a2abench as an A2A green agent (assessor) server."""

from pathlib import Path
from typing import Annotated

from a2abench.cli import _common as c


def serve_green(
    host: Annotated[str, c.opt("--host", "Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, c.opt("--port", "Port to bind (0 picks a free one).", min=0,
                               max=65535)] = 9009,
    card_url: Annotated[str | None, c.opt("--card-url", "URL the agent card advertises (the "
                                                        "JSON-RPC endpoint) [default: "
                                                        "http://HOST:PORT/].",
                                          show_default=False)] = None,
    auth_token: Annotated[str | None, c.opt("--auth-token", "Bearer token clients must send "
                                                            "(prefer the environment "
                                                            "variable).",
                                            show_default=False)] = None,
    max_concurrent_assessments: Annotated[int, c.opt("--max-concurrent-assessments",
                                                     "Assessments run in parallel.", min=1)] = 1,
    max_queued_assessments: Annotated[int, c.opt(
        "--max-queued-assessments", "Assessments that wait for a free slot; more are "
                                    "rejected.", min=0)] = 8,
    allow_host: Annotated[list[str] | None, c.opt("--allow-host", "White-agent host pattern "
                                                                  "allowed (repeatable): "
                                                                  "name, *.glob, host:port "
                                                                  "or CIDR.",
                                                  show_default=False)] = None,
    max_request_bytes: Annotated[int, c.opt("--max-request-bytes", "Largest request body "
                                                                   "accepted.", min=1024)]
    = 1_000_000,
    output_dir: Annotated[Path, c.opt("--output-dir", "Where each assessment's metrics.jsonl "
                                                      "is written.")] = Path("runs"),
    option: Annotated[list[str] | None, c.opt("--option", "Benchmark option, BENCH.KEY=VALUE "
                                                          "(repeatable): a default requests may "
                                                          "override, or an operator-only one "
                                                          "such as tau2.data_dir=/data.",
                                              show_default=False)] = None,
    rpc_path: Annotated[str | None, c.opt("--rpc-path", "Serve JSON-RPC only at this path "
                                                        "[default: / and the card URL's path].",
                                          show_default=False)] = None,
    max_trials: Annotated[int, c.opt("--max-trials", "Largest num_trials a request may ask "
                                                     "for.", min=1)] = 8,
    allow_model: Annotated[list[str] | None, c.opt("--allow-model", "A model requests may "
                                                                    "choose for user_llm / "
                                                                    "judge_llm (repeatable).",
                                                   show_default=False)] = None,
    allow_llm_arg: Annotated[list[str] | None, c.opt("--allow-llm-arg", "A key of "
                                                                        "user_llm_args requests "
                                                                        "may set (repeatable), "
                                                                        "e.g. temperature.",
                                                     show_default=False)] = None,
    grpc: Annotated[bool, c.opt("--grpc/--no-grpc", "Serve the gRPC binding too (needs the "
                                                    "grpc extra; without it serve-green goes "
                                                    "on without gRPC).")] = True,
    grpc_port: Annotated[int | None, c.opt("--grpc-port", "Port of the gRPC binding [default: "
                                                          "a free port, advertised in the "
                                                          "card].", min=0, max=65535,
                                           show_default=False)] = None,
    heartbeat: Annotated[float, c.opt("--heartbeat", "Seconds of silence after which a running "
                                                     "assessment sends a progress status update "
                                                     "(0: never); streaming clients such as "
                                                     "AgentBeats' gateway time out on silence.",
                                      min=0)] = 30.0,
    a2a_03: Annotated[bool, c.opt("--a2a-03/--no-a2a-03", "Serve A2A 0.3 beside 1.0 on every "
                                                          "binding (0.3 clients such as "
                                                          "AgentBeats' need it); "
                                                          "--no-a2a-03 serves strict 1.0.")]
    = True,
    metrics: Annotated[bool, c.opt("--metrics", "Serve Prometheus metrics at /metrics.")]
    = False,
    metrics_port: Annotated[int | None, c.opt("--metrics-port", "Serve /metrics on this port "
                                                                "instead (implies --metrics).",
                                              min=1, max=65535, show_default=False)] = None,
    log_format: Annotated[str, c.opt("--log-format", "text | json: one structured line per "
                                                     "assessment and task start and end.")]
    = "text",
    participant_proxy: Annotated[str | None, c.opt(
        "--participant-proxy", "Reach participants whose URL names a loopback host through "
                               "this URL (its host, port and path prefix); on AgentBeats, "
                               "the green's proxy slot (${slots.proxy.url}).",
        show_default=False)] = None,
    tck: Annotated[bool, c.opt("--tck", "Test only: answer A2A TCK scenario messages "
                                        "(docs/conformance.md).", hidden=True)] = False,
) -> None:
    """Serve a2abench as an A2A green agent that AgentBeats-style platforms call.

    Each A2A task is one assessment: send {"participants": {"agent": URL}, "config":
    {"benchmark": "tau2", "domain": "airline", "max_tasks": 5}}; progress streams as status
    updates and the Result artifact holds the scores. GET /status shows assessments live;
    /healthz and /readyz answer probes. See docs/serve-green.md.

    Example: a2abench serve-green --host 0.0.0.0 --port 9009 --card-url http://green:9009/
    """
    import os

    from pydantic import SecretStr

    from a2abench.green import GreenApp, GreenSettings, jsonlog, parse_presets, serve
    from a2abench.green.app import serving_paths
    from a2abench.render.output import Output

    if auth_token is None and "A2ABENCH_AUTH_TOKEN" in os.environ:
        auth_token = os.environ["A2ABENCH_AUTH_TOKEN"]  # click reads an empty one as unset
    as_json = log_format == "json"
    with jsonlog.errors_as_json(as_json):  # json: start-up errors are JSON lines too
        settings = GreenSettings(
            host=host, port=port, card_url=card_url,
            # An empty token is refused by GreenSettings, never read as "no auth".
            auth_token=SecretStr(auth_token) if auth_token is not None else None,
            max_concurrent_assessments=max_concurrent_assessments,
            max_queued_assessments=max_queued_assessments, allow_hosts=tuple(allow_host or ()),
            max_request_bytes=max_request_bytes, output_dir=output_dir,
            presets=parse_presets(option), tck=tck, rpc_path=rpc_path, max_trials=max_trials,
            allow_models=tuple(allow_model or ()), allow_llm_args=tuple(allow_llm_arg or ()),
            grpc=grpc, grpc_port=grpc_port, a2a_03=a2a_03, heartbeat_s=heartbeat,
            metrics=metrics, metrics_port=metrics_port, log_format=log_format,
            participant_proxy=participant_proxy)
        out = Output.for_command()

        def ready(green: GreenApp, warnings: list[str]) -> None:
            paths = ", ".join(serving_paths(green.url, settings.rpc_path))
            if as_json:
                jsonlog.announce(green.url, paths, warnings)
                return
            for warning in warnings:
                out.err.print(f"Warning: {warning}", markup=False)
            out.err.print(f"a2abench green agent: card {green.url.rstrip('/')}/.well-known/"
                          f"agent-card.json, JSON-RPC {green.url} (this server answers "
                          f"JSON-RPC at {paths}; Ctrl-C stops)", markup=False)

        serve(settings, on_ready=ready)
