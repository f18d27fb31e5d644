"""Domain errors. The core raises these; the CLI renders them once, as `Error: ...`.

Every error carries a `hint` (the next step for the user), an `exit_code` (docs/design.md §2) and
a `kind` used by the run engine to classify failed task-trials:

    A2ABenchError                      kind      exit
    ├── ConfigError                    usage     2   bad flag values, bad environment
    ├── ScoreBelowThreshold            -         3   --fail-under missed (or no/incomplete score)
    ├── PluginError                    harness   1   a benchmark's hook raised outside a run
    ├── AgentError                     agent     1   the agent under test misbehaved
    │   ├── ProtocolError                              malformed reply, wrong shape
    │   │   ├── JSONRPCError                           a JSON-RPC error object from the agent
    │   │   ├── A2AStatusError                         an A2A error over HTTP+JSON or gRPC
    │   │   ├── BrokenReply                            a reply that began, then broke HTTP's
    │   │   │                                          framing or its content coding
    │   │   └── ReplyLimitExceeded                     a reply over a count limit (parts, ...)
    │   │       ├── ReplyTooLarge                        over --max-reply-bytes
    │   │       └── ReplyTooDeep                         JSON nested deeper than the limit
    │   ├── ReplyTooSlow                               still sending when --timeout passed
    │   ├── RepeatedTransportFailure                   the same dropped connection on every
    │   │                                              attempt of a call
    │   ├── TaskTimeout                                --task-timeout passed while the agent
    │   │                                              was answering
    │   ├── NoUsableInterface                          no card interface a2abench can speak
    │   ├── AgentHTTPError                             a deterministic HTTP error from the agent
    │   ├── TooManyRedirects                           a redirect loop or chain over the limit
    │   ├── HostNotAllowed                             a URL outside the allowed hosts
    │   └── AgentCardInvalid                           card unusable (not JSON, missing fields)
    ├── Forfeit                        forfeit   1   another participant of a multi-party
    │                                                  match failed (timed out, malformed,
    │                                                  crashed): it forfeits the match
    ├── InfrastructureError            infra     1   nothing to blame the agent for
    │   ├── AgentUnreachable                           connect errors, 5xx after retries
    │   │   └── ConnectionLost                           closed or reset before any reply
    │   ├── AgentTimeout                               no answer within the timeout
    │   ├── CardNotFound                               no card at any well-known path
    │   ├── LLMError                                   user-simulator / judge provider failed
    │   │   ├── LLMAuthError                             401/403: missing or wrong API key
    │   │   ├── LLMBadRequest                            400/404/422: not retried
    │   │   │   └── LLMContextWindowExceeded             the prompt is too long for the model
    │   │   ├── LLMRateLimited                           429 after retries, or quota used up
    │   │   └── LLMResponseInvalid                       not JSON, no choices, bad tool-call JSON
    │   └── CircuitOpen                                agent unreachable N task-trials in a row
    │   (a benchmark adds its own, e.g. CRMArena's SalesforceUnavailable in its backends.py)
    └── DataError                      data      1
        ├── DataMissing                                a data file is absent
        ├── DataCorrupt                                a data file fails its checksum or parse
        ├── RecordsError                               a metrics.jsonl that cannot be read/written
        ├── OutputError                                a report file that cannot be written
        └── ResumeMismatch                             --resume over an incompatible run
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

ErrorKind = Literal["usage", "agent", "infrastructure", "data", "harness", "forfeit"]


class A2ABenchError(Exception):
    """Base class of every error a2abench raises on purpose."""

    kind: ErrorKind = "harness"
    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        """`<what happened>. <what to do>` as one line for the terminal."""
        text = self.message.rstrip()
        if self.hint:
            if not text.endswith((".", "!", "?", ":")):
                text += "."
            text += " " + self.hint.strip()
        return text

    def to_dict(self) -> dict[str, Any]:
        return {"error": type(self).__name__, "kind": self.kind, "message": self.message,
                "hint": self.hint}


class ConfigError(A2ABenchError):
    kind = "usage"
    exit_code = 2


class PluginError(A2ABenchError):
    """A benchmark's own hook (`rescore`, `setup`, an exporter) raised where no task-trial
    can hold the failure (`report`): one line naming the benchmark, never a traceback."""


class ScoreBelowThreshold(A2ABenchError):
    """--fail-under not met: the score is below it, missing, or incomplete."""

    exit_code = 3

    def __init__(self, score: float | None, threshold: float, *, message: str | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message or f"score {score:.4f} is below --fail-under {threshold:g}",
                         hint=hint)
        self.score = score
        self.threshold = threshold


class AgentError(A2ABenchError):
    kind = "agent"


class ProtocolError(AgentError):
    """The agent answered, but not with something A2A allows."""


class JSONRPCError(ProtocolError):
    def __init__(self, code: int, message: str, data: Any = None, *, hint: str | None = None):
        super().__init__(f"the agent returned JSON-RPC error {code}: {message}", hint=hint)
        self.code = code
        self.rpc_message = message
        self.data = data
        self.http_status: int | None = None  # the HTTP error status it came with, if any


class A2AStatusError(ProtocolError):
    """An A2A error the agent returned over HTTP+JSON (a `google.rpc.Status` body) or gRPC
    (a status code): `status` is the canonical code name, `reason` the ErrorInfo reason."""

    def __init__(self, message: str, *, status: str | None, reason: str | None, where: str,
                 http_status: int | None = None, hint: str | None = None) -> None:
        label = " ".join(x for x in (status, f"({reason})" if reason else None) if x) or "error"
        super().__init__(f"the agent at {where} returned {label}: {message}",
                         hint=hint or _STATUS_HINTS.get(reason or ""))
        self.status = status
        self.reason = reason
        self.http_status = http_status
        self.rpc_message = message


_STATUS_HINTS = {
    "VERSION_NOT_SUPPORTED": "The agent rejected the A2A version. Run `a2abench discover URL` "
                             "to check its card.",
    "CONTENT_TYPE_NOT_SUPPORTED": "The agent refused a media type it does not declare.",
}
class BrokenReply(ProtocolError):
    """The agent's server began a reply and broke it: a malformed head, bad framing, a
    connection closed or reset mid-reply, a body its Content-Encoding cannot undo
    (docs/run-semantics.md, "Transport failures")."""


class ReplyLimitExceeded(ProtocolError):
    """A reply larger, deeper or more numerous than `ReplyLimits` allows (net/limits.py)."""


class ReplyTooLarge(ReplyLimitExceeded):
    def __init__(self, message: str, *, max_bytes: int, received: int,
                 hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.max_bytes = max_bytes
        self.received = received


class ReplyTooDeep(ReplyLimitExceeded):
    def __init__(self, message: str, *, max_depth: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.max_depth = max_depth


class ReplyTooSlow(AgentError):
    """The agent answered but kept the reply open past the whole-request deadline (a slow
    drip, a never-ending stream). Silence is AgentTimeout instead."""


class RepeatedTransportFailure(AgentError):
    """Every attempt of one call ended in the same `ConnectionLost`: a server that accepts
    connections and drops them, again and again, is failing, not the network."""


class TaskTimeout(AgentError):
    """The task-trial's deadline (--task-timeout) passed while the agent was answering."""


class NoUsableInterface(AgentError):
    """The card is readable, but none of its interfaces is one a2abench can use (or the one
    --transport asks for): an unsupported binding, not an invalid card."""


class AgentHTTPError(AgentError):
    def __init__(self, status_code: int, url: str, body: str = "", *, hint: str | None = None):
        detail = f": {body[:200]}" if body else ""
        super().__init__(f"HTTP {status_code} from {url}{detail}", hint=hint)
        self.status_code = status_code
        self.url = url


class TooManyRedirects(AgentError):
    pass


class HostNotAllowed(AgentError):
    """The agent's card, an interface or a redirect points at a host we may not contact."""


class AgentCardInvalid(AgentError):
    pass


class Forfeit(A2ABenchError):
    """A participant of a multi-party match other than the agent under test timed out,
    answered malformed or crashed (docs/multi-agent.md): it forfeits the match, which is
    kept and counted against it; the other side is not penalised. `cause` is the error its
    conversation raised (its class names the failure in the record)."""

    kind = "forfeit"

    def __init__(self, role: str, participant: str, cause: A2ABenchError) -> None:
        super().__init__(f"the {role} participant ({participant}) forfeited the match: "
                         f"{cause.message}", hint="Scored as the participant's loss; the "
                                                  "other side is not penalised.")
        self.role = role
        self.participant = participant
        self.cause = cause


class InfrastructureError(A2ABenchError):
    kind = "infrastructure"


class AgentUnreachable(InfrastructureError):
    pass


class ConnectionLost(AgentUnreachable):
    """The connection closed or was reset before any byte of a reply: the server's fault or
    the network's, which one failure cannot tell. Retried; the same failure on every attempt
    becomes `RepeatedTransportFailure`."""


class AgentTimeout(InfrastructureError):
    pass


class CardNotFound(InfrastructureError):
    pass


class LLMError(InfrastructureError):
    """The LLM behind a user simulator or judge failed.

    `status_code` and `code` are the provider's (None for network errors); `attempts` is how
    many requests were made before giving up.
    """

    def __init__(self, message: str, *, hint: str | None = None, status_code: int | None = None,
                 code: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status_code = status_code
        self.code = code
        self.attempts = 1


class LLMAuthError(LLMError):
    pass


class LLMBadRequest(LLMError):
    pass


class LLMContextWindowExceeded(LLMBadRequest):
    pass


class LLMRateLimited(LLMError):
    pass


class LLMResponseInvalid(LLMError):
    pass


class CircuitOpen(InfrastructureError):
    pass


class DataError(A2ABenchError):
    kind = "data"


class DataMissing(DataError):
    pass


class DataCorrupt(DataError):
    pass


class RecordsError(DataError):
    pass


class OutputError(DataError):
    """An output file cannot be written (a directory, no permission, a full disk)."""


@contextmanager
def foreign_errors_as(make: Callable[[str], A2ABenchError]) -> Iterator[None]:
    """Let our own errors through and turn any other exception into `make(summary)`, chained;
    the summary is "TypeName: message" (the message cut at 300 characters). Used where
    another party's input or code is run: an agent's reply (`agent_input`), a plugin's hook."""
    try:
        yield
    except A2ABenchError:
        raise
    except Exception as exc:
        raise make(f"{type(exc).__name__}: {str(exc)[:300] or 'no message'}") from exc


def write_output(path: Any, text: str | bytes) -> None:
    """Write a report file (text, or bytes already UTF-8); OS failures become one clear
    OutputError."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}",
                          hint="Choose another --output (a writable file, not a directory)."
                          ) from None


class ResumeMismatch(DataError):
    pass
