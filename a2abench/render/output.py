"""Where output goes: Rich on a TTY, plain lines in CI or pipes, JSON on stdout with --json.

The core never imports this module; the CLI and the displays do.
"""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console


class OutputMode(StrEnum):
    RICH = "rich"
    PLAIN = "plain"
    JSON = "json"


def is_ci(env: dict[str, str] | os._Environ[str] | None = None) -> bool:
    value = (env if env is not None else os.environ).get("CI", "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def choose_mode(json_flag: bool = False, stream: TextIO | None = None) -> OutputMode:
    """--json wins; then CI=true or a non-TTY stdout gives plain lines; else Rich."""
    if json_flag:
        return OutputMode.JSON
    stream = stream if stream is not None else sys.stdout
    if is_ci() or not stream.isatty():
        return OutputMode.PLAIN
    return OutputMode.RICH


class Output:
    """Two consoles (human text, diagnostics) and a JSON channel, chosen by the mode.

    In JSON mode stdout carries only JSON; everything human goes to stderr.
    """

    def __init__(self, mode: OutputMode) -> None:
        self.mode = mode
        self._out: Console | None = None
        self._err: Console | None = None

    @classmethod
    def for_command(cls, json_flag: bool = False) -> Output:
        return cls(choose_mode(json_flag))

    def _make(self, stderr: bool) -> Console:
        plain = self.mode is not OutputMode.RICH
        # Rich itself honours NO_COLOR; plain mode never emits escape codes.
        return _console_class()(
            stderr=stderr,
            force_terminal=False if plain else None,
            no_color=True if plain else None,
            highlight=not plain,
            soft_wrap=plain,
            emoji=False,
        )

    @property
    def out(self) -> Console:
        """Console for the command's human-readable result (stderr in JSON mode)."""
        if self.mode is OutputMode.JSON:
            return self.err
        if self._out is None:
            self._out = self._make(stderr=False)
        return self._out

    @property
    def err(self) -> Console:
        if self._err is None:
            self._err = self._make(stderr=True)
        return self._err

    def emit_json(self, payload: Any) -> None:
        sys.stdout.write(json.dumps(payload, default=str, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def error(self, text: str) -> None:
        # markup=False: messages quote user input, which may contain [brackets].
        self.err.print(f"Error: {text}", style=None if self.mode is not OutputMode.RICH
                       else "bold red", markup=False, highlight=False)

    def warn(self, text: str) -> None:
        self.err.print(f"Warning: {text}", style=None if self.mode is not OutputMode.RICH
                       else "yellow", markup=False, highlight=False)


def stdout_gone() -> None:
    """The reader of stdout went away (`a2abench report ... | head`): what is still written
    goes to /dev/null, so neither later writes nor the flush at exit raise again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _console_class() -> type[Console]:
    from rich.console import Console

    class Quiet(Console):
        def on_broken_pipe(self) -> None:
            # Rich's own handler exits 1; the command decides instead (report exits with
            # its own code: 0, or 3 from a --fail-under gate that still runs).
            self.quiet = True
            stdout_gone()
            raise BrokenPipeError

    return Quiet
