"""`serve-green --log-format json`: every line on stderr is one JSON object, secrets redacted.

Besides a2abench's own lines and uvicorn's (app.py), that covers every other logger (the A2A
SDK's "Unhandled exception" tracebacks, asyncio's), Python warnings, uncaught exceptions in
any thread, the start-up banner and a start-up error: each becomes a JSON object, a traceback
a `traceback` field.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from a2abench.errors import A2ABenchError
from a2abench.green.monitoring import Redactor, StructuredFormatter, logger


def install(level: str, token: str | None) -> StructuredFormatter:
    """Route every logger, warning and uncaught exception through one JSON handler."""
    formatter = StructuredFormatter("json", Redactor([token] if token else []))
    handler = logging.StreamHandler()
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers = [handler]
    if root.level == logging.NOTSET or root.level > logging.WARNING:
        root.setLevel(logging.WARNING)  # other libraries: warnings and errors only
    logger.handlers = []  # a2abench.green reaches the root handler (no line twice)
    logger.setLevel(level.upper())
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_thread
    return formatter


def _log_uncaught(kind: type[BaseException], exc: BaseException,
                  tb: TracebackType | None) -> None:
    logger.critical("uncaught %s", kind.__name__, exc_info=(kind, exc, tb))


def _log_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    logger.error("uncaught %s in thread %s", args.exc_type.__name__, name,
                 exc_info=(args.exc_type, args.exc_value or args.exc_type(),
                           args.exc_traceback))


@contextmanager
def errors_as_json(enabled: bool) -> Iterator[None]:
    """A start-up error (port taken, bad option) as one JSON line, then its exit code."""
    if not enabled:
        yield
        return
    try:
        yield
    except A2ABenchError as exc:
        if not logging.getLogger().handlers:
            install("info", None)
        logger.error(exc.render(), extra={"fields": {"event": "error", "error":
                                                     type(exc).__name__,
                                                     "message": exc.render()}})
        raise SystemExit(exc.exit_code) from None


def announce(url: str, paths: str, warnings: list[str]) -> None:
    """The banner and start-up warnings, as JSON lines."""
    for warning in warnings:
        logger.warning(warning, extra={"fields": {"event": "startup_warning",
                                                  "message": warning}})
    logger.info("serving", extra={"fields": {
        "event": "serving", "card": f"{url.rstrip('/')}/.well-known/agent-card.json",
        "jsonrpc": url, "jsonrpc_paths": paths}})
