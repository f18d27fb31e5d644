"""`a2abench discover URL`: fetch, validate and probe an agent card."""

from __future__ import annotations

from typing import Annotated

import typer

from a2abench.cli import _common as c


def discover(
    url: Annotated[str, typer.Argument(help="Agent base URL or card URL.", show_default=False)],
    json_: c.JsonFlag = False,
    timeout: c.Timeout = 10.0,
    auth_token: c.AuthToken = None,
    probe: Annotated[bool, c.opt("--probe/--no-probe", "Send one short message to check the "
                                                       "agent answers.")] = True,
) -> None:
    """Fetch and validate an agent card, then probe the agent with one message.

    Example: a2abench discover http://127.0.0.1:9999 --json
    """
    from a2abench.errors import NotAvailableYet

    raise NotAvailableYet("`discover` is being built")
