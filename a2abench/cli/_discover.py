"""`a2abench discover URL`: fetch, validate and probe an agent card."""

from typing import TYPE_CHECKING, Annotated

import typer

from a2abench.cli import _common as c

if TYPE_CHECKING:
    from a2abench.discover import DiscoverResult
    from a2abench.render.output import Output


def discover(
    url: Annotated[str, typer.Argument(help="Agent base URL or card URL.", show_default=False)],
    json_: c.JsonFlag = False,
    timeout: c.Timeout = 10.0,
    auth_token: c.AuthToken = None,
    ca_cert: c.CaCert = None,
    transport: c.Transport = None,
    max_reply_bytes: c.MaxReplyBytes = 16_000_000,
    probe: Annotated[bool, c.opt("--probe/--no-probe", "Send one short message to check the "
                                                       "agent answers.")] = True,
) -> None:
    """Fetch and validate an agent card, then probe the agent with one message.

    Exit 0 when the card is usable (and the probe answered), 1 otherwise.

    Example: a2abench discover http://127.0.0.1:9999 --json
    """
    import asyncio

    from a2abench.discover import discover as run_discover
    from a2abench.errors import A2ABenchError
    from a2abench.render.output import Output

    out = Output.for_command(json_)
    try:
        result = asyncio.run(run_discover(url, timeout=timeout, auth_token=auth_token,
                                          probe=probe, transport=transport,
                                          max_reply_bytes=max_reply_bytes,
                                          ca_cert=str(ca_cert) if ca_cert else None))
    except A2ABenchError as exc:
        if json_:
            out.emit_json({"url": url, "usable": False, "error": exc.to_dict()})
        raise
    if json_:
        out.emit_json(result.model_dump(mode="json"))
    else:
        render(result, out)
    if not result.usable and result.error:
        out.error(f"{result.error['message']}. {result.error.get('hint') or ''}".strip())
        raise typer.Exit(1)


_MARK = {"error": "✗", "warning": "!", "info": "i"}
_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}


def render(result: "DiscoverResult", out: "Output") -> None:
    from rich.table import Table

    card, con = result.card, out.out
    con.print(f"[bold]{card.name or '(no name)'}[/bold] {card.version}  "
              f"A2A {result.dialect} card at {result.card_url} "
              f"({result.fetch_latency_ms:.0f} ms, {result.size_bytes} bytes)", highlight=False)
    if card.description:
        con.print(card.description, markup=False)
    if card.provider:
        con.print(f"Provider: {card.provider.organization or ''} {card.provider.url or ''}",
                  markup=False)
    table = Table(title="Interfaces", show_edge=False, title_justify="left")
    for col in ("url", "binding", "protocol", "usable", "reachable", "probe"):
        table.add_column(col)
    for v in result.interfaces:
        reach = "-" if v.reachable is None else ("yes" if v.reachable else "no")
        table.add_row(("* " if v.chosen else "") + v.url, v.binding, v.protocol_version or "-",
                      "yes" if v.supported else f"no: {v.reason}", reach,
                      f"{v.probe_latency_ms:.0f} ms" if v.probe_latency_ms is not None
                      else (v.error or "-"))
    con.print(table)
    if result.interface:
        con.print(f"a2abench will use: {result.interface['url']} "
                  f"({result.interface['binding']}, A2A {result.interface['dialect']})",
                  markup=False)
    caps = card.capabilities
    con.print(f"Capabilities: streaming={caps.streaming} push={caps.push_notifications} "
              f"extended_card={caps.extended_agent_card}", markup=False)
    con.print(f"Input modes: {', '.join(card.default_input_modes) or '-'}   "
              f"Output modes: {', '.join(card.default_output_modes) or '-'}", markup=False)
    _render_skills(result, out)
    if card.security_schemes:
        con.print("Security: " + ", ".join(f"{n} ({s.type})"
                                           for n, s in card.security_schemes.items()),
                  markup=False)
    _render_findings(result, out)
    _render_probe(result, out)


def _render_skills(result: "DiscoverResult", out: "Output") -> None:
    from rich.table import Table

    if not result.card.skills:
        return
    table = Table(title="Skills", show_edge=False, title_justify="left")
    for col in ("id", "name", "tags", "description"):
        table.add_column(col, overflow="fold")
    for skill in result.card.skills:
        table.add_row(skill.id, skill.name, ", ".join(skill.tags), skill.description)
    out.out.print(table)


def _render_findings(result: "DiscoverResult", out: "Output") -> None:
    if not result.findings:
        out.out.print("Findings: none")
        return
    out.out.print("Findings:")
    for f in result.findings:
        out.out.print(f"  [{_STYLE[f.severity]}]{_MARK[f.severity]} {f.severity}[/] "
                      f"{f.code}: ", end="")
        out.out.print(f.message, markup=False, highlight=False)


def _render_probe(result: "DiscoverResult", out: "Output") -> None:
    probe = result.probe
    if probe is None:
        out.out.print("Probe: skipped")
        return
    if not probe.ok:
        error = probe.error or {}
        out.out.print(f"Probe: failed ({error.get('error')}): {error.get('message')}",
                      markup=False)
        return
    shape = probe.reply or {}
    out.out.print(f"Probe: answered in {probe.latency_ms:.0f} ms as a {shape.get('kind')}"
                  f"{' (' + str(shape.get('state')) + ')' if shape.get('state') else ''}, "
                  f"{shape.get('text_parts')} text / {shape.get('data_parts')} data / "
                  f"{shape.get('file_parts')} file parts", markup=False)
    if probe.text_preview:
        out.out.print(f"  “{probe.text_preview}”", markup=False)
    if probe.stream_ok is not None:
        out.out.print(f"Streaming probe: {'ok' if probe.stream_ok else 'failed'}", markup=False)
