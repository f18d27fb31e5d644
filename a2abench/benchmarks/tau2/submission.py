"""`report --format tau2-submission`: a tau2-bench leaderboard submission directory.

    result = build_submission([airline.jsonl, retail.jsonl, ...], Path("out"), meta)

Writes `out/submission.json` (upstream's `Submission` schema: metadata from `meta`, per-domain
pass^1..4 computed exactly as upstream's `compute_metrics` does, `submission_type: "custom"`
with a note that the agent was evaluated over A2A) and `out/trajectories/<name>.json`, one
upstream `Results` document per domain (tasks as in upstream's data files, every task-trial).

Upstream's requirements are checked first and refused with the reason (`RecordsError`, exit 1): one
metrics.jsonl per domain, the base split, every task with every trial, the same user
simulator (model and arguments) across domains, and an LLM playing it (never the demo's scripted
user). Fewer than 4 trials is a warning.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.export import _simulation
from a2abench.plugin import A2ABENCH_VERSION as __version__
from a2abench.plugin import ConfigError, iter_records
from a2abench.plugin.provisional import SCORED_STATUSES, RecordsError


@dataclass(frozen=True)
class SubmissionMeta:
    model_name: str
    model_organization: str
    submitting_organization: str
    contact_email: str
    contact_name: str | None = None
    notes: str | None = None


@dataclass
class DomainRun:
    path: Path
    run: dict[str, Any]
    tasks: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)

    @property
    def options(self) -> dict[str, Any]:
        return (self.run.get("config") or {}).get("options") or {}

    @property
    def domain(self) -> str:
        return str(self.options.get("domain") or self.run.get("domain"))

    @property
    def num_trials(self) -> int:
        return int((self.run.get("config") or {}).get("num_trials", 1))

    @property
    def user(self) -> dict[str, Any]:
        user = (self.run.get("models") or {}).get("user_simulator") or {}
        return {"model": user.get("model"), "args": user.get("args")}


@dataclass
class SubmissionResult:
    directory: Path
    results: dict[str, dict[str, Any]]
    warnings: list[str]


def _read(path: Path) -> DomainRun:
    run: dict[str, Any] | None = None
    tasks: dict[tuple[str, int], dict[str, Any]] = {}
    for rec in iter_records([path], types=frozenset({"run", "task"})):
        if rec["type"] == "run":
            run = run or rec  # resumed runs append more run records; the first one holds
        else:
            tasks[(rec["task_id"], rec["trial"])] = rec  # a resumed retry replaces
    if run is None or run.get("benchmark") != "tau2":
        raise RecordsError(f"{path} is not a tau2 run's metrics.jsonl",
                          hint="Pass one `a2abench run tau2` metrics.jsonl per domain")
    if run.get("lineup") is not None:  # another participant played the user
        raise RecordsError(f"{path} is a multi-party run (scenario "
                           f"{run['lineup'].get('scenario')}): the leaderboard takes runs "
                           "whose user is the built-in LLM user simulator",
                           hint="Submit a single-agent run (without --user-agent-url).")
    return DomainRun(path, run, tasks)


def _check(runs: list[DomainRun]) -> list[str]:
    seen: dict[str, Path] = {}
    for r in runs:
        if r.domain in seen:
            raise RecordsError(f"domain {r.domain} appears in both {seen[r.domain]} and {r.path}",
                              hint="The leaderboard takes one result per domain: pass one "
                                   "metrics.jsonl per domain (merge shards with a resumed run)")
        seen[r.domain] = r.path
        scripted = sum("scripted_user" in (t.get("labels") or []) for t in r.tasks.values())
        if scripted:
            raise RecordsError(f"{r.path}: {scripted} task-trial(s) were played by the "
                               "scripted user (rules, no LLM), which measures no agent",
                               hint="Run the domain with an LLM user simulator (--user-llm)")
        if r.options.get("split", "base") != "base":
            raise RecordsError(f"{r.path} ran the {r.options.get('split')!r} split of {r.domain}",
                              hint="The leaderboard needs the base split (all tasks)")
    users = {json.dumps(r.user, sort_keys=True) for r in runs}
    if len(users) > 1:
        raise RecordsError("the user simulator differs across domains: "
                          + "; ".join(f"{r.domain}: {r.user}" for r in runs),
                          hint="The leaderboard needs the same user model and arguments in "
                               "every domain; re-run the odd one out")
    return [f"{r.domain}: {r.num_trials} trial(s); the leaderboard strongly prefers 4 or more"
            for r in runs if r.num_trials < 4]


def _domain(r: DomainRun) -> Tau2Domain:
    from a2abench.benchmarks.tau2.options import Tau2Options, embedding_config

    o = r.options
    known = {k: v for k, v in o.items() if k in Tau2Options.model_fields and v is not None}
    return load_domain(r.domain, data_dir=o.get("data_dir"), split="base",
                       policy=o.get("policy", "manual"),
                       retrieval_variant=o.get("retrieval_variant"),
                       embedding=embedding_config(Tau2Options(**known)))


def _complete(r: DomainRun, domain: Tau2Domain) -> None:
    ids = [t.id for t in domain.tasks()]
    missing = [f"{t} (trial {k})" for t in ids for k in range(r.num_trials)
               if (t, k) not in r.tasks]
    if missing:
        raise RecordsError(f"{r.path} lacks {len(missing)} of the {len(ids) * r.num_trials} "
                          f"{r.domain} task-trials, e.g. {', '.join(missing[:5])}",
                          hint="The leaderboard needs every base-split task with every trial: "
                               "finish the run with --resume (no --task-ids/--max-tasks)")
    unscored = [f"{t} (trial {k})" for (t, k), rec in sorted(r.tasks.items())
                if rec.get("status") not in SCORED_STATUSES]
    if unscored:  # upstream's metrics leave them out: the submission's pass^k would be over fewer
        raise RecordsError(f"{r.path} has {len(unscored)} {r.domain} task-trial(s) that were "
                          f"not scored (infrastructure or harness errors), e.g. "
                          f"{', '.join(unscored[:5])}",
                          hint="The leaderboard's pass^k would leave them out; re-run them "
                               "with --resume --retry-errors")
    extra = sorted({t for t, _ in r.tasks} - set(ids))
    if extra:
        raise RecordsError(f"{r.path} has tasks outside the {r.domain} base split: {extra[:5]}",
                          hint="Run the base split of the pinned data")


def raw_tasks(domain: Tau2Domain) -> list[dict[str, Any]]:
    """The domain's tasks exactly as in upstream's data files (the validator hashes them)."""
    from a2abench.benchmarks.tau2 import data

    files = domain.files.data
    if domain.name == "banking_knowledge":
        keys = sorted(k for k in files if k.startswith("tasks/task_"))
        return [data.read_json(files[k]) for k in keys]
    wanted = {t.id for t in domain.tasks()}
    return data.read_tasks(domain.files, domain.name, wanted)


def pass_hat_ks(sims: list[dict[str, Any]], tasks: list[dict[str, Any]],
                num_trials: int) -> dict[int, float]:
    """Upstream `compute_metrics`' pass^k, with its summation order (pandas groupby by task
    id, then a quicksort by number of gold actions, then a numpy mean), so the validator's
    exact comparison holds."""
    import numpy as np

    scored = [s for s in sims if s["termination_reason"] != "infrastructure_error"]
    if not scored:
        return {}
    by_task: dict[str, list[bool]] = {}
    for s in scored:
        reward = (s.get("reward_info") or {}).get("reward")
        by_task.setdefault(s["task_id"], []).append(
            reward is not None and 1 - 1e-6 <= reward <= 1 + 1e-6)
    max_k = min(num_trials, min(len(v) for v in by_task.values()))
    order = sorted(by_task)
    actions = {str(t["id"]): _num_actions(t) for t in tasks}
    ranks = np.argsort(np.array([actions.get(t, 0) for t in order]), kind="quicksort")
    out = {}
    for k in range(1, max_k + 1):
        values = np.array([math.comb(sum(by_task[t]), k) / math.comb(len(by_task[t]), k)
                           for t in order])[ranks]
        out[k] = float(values.sum() / len(values))
    return out


def _num_actions(task: dict[str, Any]) -> int:
    actions = (task.get("evaluation_criteria") or {}).get("actions") or []
    if len(actions) == 1 and "transfer" in actions[0].get("name", "").lower():
        return -1  # upstream Results._transfer_only
    return len(actions)


def _results_doc(r: DomainRun, domain: Tau2Domain, meta: SubmissionMeta,
                 tasks: list[dict[str, Any]]) -> dict[str, Any]:
    config = r.run.get("config") or {}
    sims = [_simulation(rec) for _, rec in sorted(r.tasks.items())]
    for sim in sims:
        sim["agent_cost"] = None  # a2abench does not see the agent's own LLM cost
        if sim["reward_info"] is None:  # infrastructure errors: upstream excludes them
            sim["reward_info"] = {"reward": 0.0, "info": {"note": "infrastructure_error"}}
    info: dict[str, Any] = {
        "git_commit": (r.run.get("data") or {}).get("commit", "unknown"),
        "num_trials": r.num_trials, "max_steps": r.options.get("max_steps", 200),
        "max_errors": r.options.get("max_errors", 10), "seed": config.get("seed"),
        "user_info": {"implementation": "user_simulator", "llm": r.user["model"],
                      "llm_args": r.user["args"],
                      "global_simulation_guidelines": domain.user_guidelines},
        # The validator requires one agent model across domains and compares it with
        # submission.json's model_name; the A2A endpoint is in the methodology notes.
        "agent_info": {"implementation": f"a2a_agent (a2abench {__version__})",
                       "llm": meta.model_name, "llm_args": None},
        "environment_info": {"domain_name": domain.name, "policy": domain.policy,
                             "tool_defs": None},
    }
    if domain.name == "banking_knowledge":
        info["retrieval_config"] = domain.policy_kind
    return {"timestamp": r.run.get("started_at"), "info": info, "tasks": tasks,
            "simulations": sims}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-") or "x"


def build_submission(paths: list[Path], out_dir: Path, meta: SubmissionMeta) -> SubmissionResult:
    runs = [_read(Path(p)) for p in paths]
    warnings = _check(runs)
    results: dict[str, dict[str, Any]] = {}
    files: dict[str, str] = {}
    docs: dict[str, dict[str, Any]] = {}
    for r in runs:
        domain = _domain(r)
        _complete(r, domain)
        tasks = raw_tasks(domain)
        doc = _results_doc(r, domain, meta, tasks)
        ks = pass_hat_ks(doc["simulations"], tasks, r.num_trials)
        entry: dict[str, Any] = {f"pass_{k}": ks[k] * 100 if k in ks else None
                                 for k in range(1, 5)}
        entry["cost"] = None
        if domain.name == "banking_knowledge":
            entry["retrieval_config"] = domain.policy_kind
        results[domain.name] = entry
        variant = domain.policy_kind if domain.name == "banking_knowledge" else "default"
        files[domain.name] = (f"{_slug(meta.model_name)}_{domain.name}_{_slug(variant)}_"
                              f"{_slug(str(r.user['model']))}_{r.num_trials}trials.json")
        docs[domain.name] = doc
    first = runs[0]
    urls = sorted({str((r.run.get("config") or {}).get("white_agent_url")) for r in runs})
    notes = (f"Agent evaluated over the A2A protocol by a2abench {__version__} (white agent "
             f"at {', '.join(urls)}): tau2's user simulator, tools, policies and scoring "
             "reproduced natively, tau2 data at commit "
             f"{(first.run.get('data') or {}).get('commit', 'unknown')}; the policy and tool "
             "schemas reach the agent in a2abench's A2A message format instead of upstream's "
             "LLM-agent scaffold.") + (f" {meta.notes}" if meta.notes else "")
    contact = {"email": meta.contact_email, **({"name": meta.contact_name}
                                              if meta.contact_name else {})}
    started = str(first.run.get("started_at") or date.today().isoformat())[:10]
    submission = {
        "model_name": meta.model_name, "model_organization": meta.model_organization,
        "submitting_organization": meta.submitting_organization,
        "submission_date": date.today().isoformat(), "submission_type": "custom",
        "contact_info": contact, "is_new": True, "trajectories_available": True,
        "trajectory_files": files, "results": results,
        "methodology": {
            "evaluation_date": started, "tau2_bench_version": "1.0.1 (a2c0247)",
            "user_simulator": first.user["model"], "notes": notes,
            "verification": {"modified_prompts": False, "omitted_questions": False,
                             "details": "All base-split tasks, every trial; domain policies "
                                        "and tool schemas unmodified, delivered over A2A."}},
    }
    traj_dir = out_dir / "trajectories"
    try:
        traj_dir.mkdir(parents=True, exist_ok=True)
        for name, doc in docs.items():
            (traj_dir / files[name]).write_text(json.dumps(doc, indent=2, ensure_ascii=False),
                                                encoding="utf-8")
        (out_dir / "submission.json").write_text(json.dumps(submission, indent=2) + "\n",
                                                 encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write the submission under {out_dir}: "
                          f"{exc.strerror or exc}", hint="Pass a writable directory.") from None
    return SubmissionResult(out_dir, results, warnings)
