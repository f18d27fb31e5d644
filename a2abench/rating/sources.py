"""What `a2abench rate` reads: run directories (metrics.jsonl) and AgentBeats result files,
as matches between identified participants.

A participant's identity must hold across files: a built-in reference partner is its name
(the LLM user with its model, `llm_user:gpt-4.1`; the offline gold agent, `gold_agent`); a
remote participant of a run is its URL (the same URL twice in one run, a mirror match,
stays two players: `URL#agent_2`); a participant of an AgentBeats results file is its
AgentBeats id (the file's `participants`), else the file and its slot.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2abench.errors import RecordsError
from a2abench.report.matches import MatchRow, from_records, from_result
from a2abench.run.writer import ReadStats, iter_records

MAX_RESULT_BYTES = 256 * 1024 * 1024  # an AgentBeats results file larger than this is refused


@dataclass(frozen=True)
class Seat:
    identity: str
    role: str
    reference: bool


@dataclass(frozen=True)
class Rated:
    """One match: the cluster it belongs to (a task), its unit, who sat where, the scores."""

    cluster: str
    trial: int
    seed: int | None
    seats: dict[str, Seat]  # role -> seat
    scores: dict[str, float | None]


@dataclass
class Loaded:
    matches: list[Rated] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load(paths: Iterable[Path]) -> Loaded:
    """Every match in the given run directories, metrics files and result files."""
    out = Loaded()
    for path in paths:
        if path.is_dir():
            path = path / "metrics.jsonl"
        if not path.exists():
            raise RecordsError(f"{path} does not exist",
                               hint="Pass run directories, metrics.jsonl files or AgentBeats "
                                    "results files (.json).")
        found = _from_result_file(path) if path.suffix == ".json" else _from_run(path)
        if not found:
            out.warnings.append(f"{path}: no multi-party matches")
        out.matches += found
        out.sources.append(str(path))
    return out


def _from_run(path: Path) -> list[Rated]:
    stats = ReadStats()
    rows = from_records([path], stats)
    lineup = rows.lineup()
    models = _run_models(path)
    people = _dict(lineup.get("participants"))
    seats = _seats(people, lambda pid, p: _run_identity(pid, p, people, models))
    return [_rated(row, seats) for row in rows.rows]


def _run_models(path: Path) -> dict[str, Any]:
    for rec in iter_records([path], None, frozenset({"run"})):
        models = rec.get("models")
        return models if isinstance(models, dict) else {}
    return {}


def _run_identity(pid: str, p: dict[str, Any], people: dict[str, Any],
                  models: dict[str, Any]) -> str:
    if p.get("builtin"):
        return _builtin(str(p["builtin"]), _model_of(models.get("user_simulator")))
    url = str(p.get("url") or pid)
    twins = [q for q, other in people.items() if isinstance(other, dict)
             and other.get("url") == p.get("url")]
    return url if len(twins) <= 1 or twins[0] == pid else f"{url}#{pid}"


def _model_of(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("model"), str):
        return str(value["model"])
    return value if isinstance(value, str) else None


def _builtin(name: str, model: str | None) -> str:
    return f"{name}:{model}" if name == "llm_user" and model else name


def _seats(people: dict[str, Any], identity: Any) -> dict[str, Seat]:
    return {pid: Seat(identity(pid, p), str(p.get("role")), bool(p.get("reference")))
            for pid, p in people.items() if isinstance(p, dict)}


def _rated(row: MatchRow, seats: dict[str, Seat]) -> Rated:
    placed = {role: seats.get(pid) or Seat(pid, role, False) for role, pid in row.roles.items()}
    return Rated(f"{row.domain or '-'}/{row.task}", row.trial, row.seed, placed, row.scores)


def _from_result_file(path: Path) -> list[Rated]:
    """A leaderboard's `results/<submission>.json` ({"participants", "results": [...]}) or one
    Result object."""
    if path.stat().st_size > MAX_RESULT_BYTES:
        raise RecordsError(f"{path} is larger than {MAX_RESULT_BYTES} bytes",
                           hint="Pass the results file AgentBeats' workflow wrote.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise RecordsError(f"{path} is not JSON ({exc})",
                           hint="Pass an AgentBeats results file or a Result.") from None
    if not isinstance(data, dict):
        raise RecordsError(f"{path} is not a JSON object", hint="Pass an AgentBeats results file.")
    raw = data.get("results")
    results: list[Any] = raw if isinstance(raw, list) else [data]
    ids = _dict(data.get("participants"))
    out = []
    for result in results:
        if not isinstance(result, dict):
            continue
        lineup, models = _dict(result.get("lineup")), _dict(result.get("models"))
        seats = _seats(lineup, _result_identity(_model_of(models.get("user_llm")), ids,
                                                path.name))
        out += [_rated(row, seats) for row in from_result(result)]
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _result_identity(model: str | None, ids: dict[str, Any], name: str) -> Any:
    """A Result's participant: a built-in partner by name, else its AgentBeats id."""
    def identity(pid: str, p: dict[str, Any]) -> str:
        if p.get("builtin"):
            return _builtin(str(p["builtin"]), model)
        return str(ids.get(pid) or f"{name}:{pid}")
    return identity
