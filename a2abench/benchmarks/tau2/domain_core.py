"""A loaded tau2 domain (`Tau2Domain`) and what describes one (`DomainSpec`): tasks, policy,
tool schemas, shared base DBs and the environments made on them. `domain.py` lists the
domains (`DOMAINS`, `spec`) and loads them (`load_domain`); a domain with its own class
(banking) subclasses `Tau2Domain` here without importing the list that names it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from a2abench.benchmarks.tau2 import data, upstream
from a2abench.benchmarks.tau2.db import BaseDB, DBView, ModelBase, ModelDB, StateDB
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.models import Task
from a2abench.benchmarks.tau2.toolkit import Toolkit, ToolTexts
from a2abench.plugin import ConfigError, DataCorrupt


@dataclass(frozen=True)
class DomainSpec:
    name: str
    tools: type[Toolkit[StateDB]]
    db_model: type[BaseModel]
    db_file: str
    summaries: dict[str, str]
    user_tools: type[Toolkit[StateDB]] | None = None
    user_db_model: type[BaseModel] | None = None
    user_db_file: str | None = None
    sync: Callable[[Tau2Environment], None] | None = None
    policies: dict[str, tuple[str, ...]] = field(default_factory=lambda: {"manual": ("policy.md",)})
    model_db: bool = False  # small DBs kept as pydantic models (telecom), see db.ModelDB
    # Upstream's solo-mode policy files; empty: the domain has no solo mode (airline, retail).
    solo_policies: dict[str, tuple[str, ...]] = field(default_factory=dict)



class Tau2Domain:
    """A loaded domain. Attributes: `name`, `split`, `policy` (agent policy text),
    `solo_policy` (the solo-mode policy text; None unless loaded with `solo=True`),
    `user_guidelines` (user-simulator guidelines text), `tool_text_source`
    ("upstream" | "fallback"), `judge_prompt` (None without upstream text),
    `agent_instruction` (upstream's, or None), `files` (provenance)."""

    def __init__(self, spec: DomainSpec, files: data.DomainFiles, split: str, policy: str,
                 tasks: list[Task], base: BaseDB | ModelBase,
                 user_base: BaseDB | ModelBase | None, solo: bool = False) -> None:
        self.spec = spec
        self.name = spec.name
        self.files = files
        self.split = split
        self.policy_kind = policy
        self.policy = _policy_text(spec, files, policy)
        self.solo_policy = _policy_text(spec, files, policy, solo=True) if solo else None
        self._tasks = tasks
        self.base_db = base
        self.user_base_db = user_base
        guideline = data.GUIDELINES[1 if spec.user_tools is not None else 0]
        self.user_guidelines = data.read_text(files.data[guideline])
        self.texts, self.judge_prompt, self.agent_instruction = _load_texts(spec, files)
        self.tool_text_source = self.texts.source
        self._agent_schemas = spec.tools.openai_schemas(self.texts)
        self._user_schemas = (spec.user_tools.openai_schemas(self.texts)
                              if spec.user_tools is not None else [])
        self._tool_types: dict[str, str] | None = None

    def tasks(self, task_ids: list[str] | None = None, max_tasks: int | None = None
              ) -> list[Task]:
        """The split's tasks in file order, optionally only `task_ids`, then the first N."""
        selected = self._tasks
        if task_ids:
            known = {t.id for t in selected}
            unknown = [i for i in task_ids if i not in known]
            if unknown:
                raise ConfigError(f"task ids not in the {self.name} {self.split} split: "
                                  f"{', '.join(unknown)}",
                                  hint="Check --task-ids against the split (see --split)")
            wanted = set(task_ids)
            selected = [t for t in selected if t.id in wanted]
        if max_tasks is not None:
            selected = selected[:max_tasks]
        return list(selected)

    def agent_tool_schemas(self) -> list[dict[str, Any]]:
        return [_copy(s) for s in self._agent_schemas]

    def user_tool_schemas(self) -> list[dict[str, Any]]:
        return [_copy(s) for s in self._user_schemas]

    def tool_types(self) -> dict[str, str]:
        """Tool name -> its tool type ("read", "write", ...), of both toolkits. Built once:
        the evaluator asks for every task-trial with gold actions (~8 us each time)."""
        if self._tool_types is None:
            kits = [self.spec.tools] + ([self.spec.user_tools] if self.spec.user_tools else [])
            self._tool_types = {name: d.tool_type.value for kit in kits
                                for name, d in kit.tool_defs().items()}
        return dict(self._tool_types)

    def policy_for(self, task: Task) -> str:
        """The agent policy for one task (banking's golden_retrieval varies it per task)."""
        return self.policy

    def guidelines_for(self, env: Tau2Environment) -> str:
        """The user simulator's guidelines for one task-trial's environment."""
        return self.user_guidelines

    def describe(self) -> dict[str, Any]:
        """Domain-specific facts for the run record (none for most domains)."""
        return {}

    def fresh_environment(self, task: Task | None = None) -> Tau2Environment:
        """An environment on the untouched base DBs (no task state applied); `task` only
        shapes domains whose tools depend on it (banking's read-log allowlist)."""
        tools = self.spec.tools(_view(self.base_db))
        user_tools = None
        if self.spec.user_tools is not None and self.user_base_db is not None:
            user_tools = self.spec.user_tools(_view(self.user_base_db))
        return Tau2Environment(self, tools, user_tools, self.spec.sync)

    def new_environment(self, task: Task) -> Tau2Environment:
        """An environment with the task's initial state applied: data patch, initialization
        actions, then replay of its message history (as upstream's orchestrator does)."""
        env = self.fresh_environment(task)
        env.task = task
        state = task.initial_state
        if state is not None:
            env.apply_initialization(state.initialization_data, state.initialization_actions)
            env.replay(state.message_history or [])
        return env


def _view(base: BaseDB | ModelBase) -> StateDB:
    return DBView(base) if isinstance(base, BaseDB) else ModelDB(base)


def _copy(value: Any) -> Any:
    from a2abench.benchmarks.tau2.db import clone

    return clone(value)


def _policy_text(spec: DomainSpec, files: data.DomainFiles, policy: str,
                 solo: bool = False) -> str:
    if policy not in spec.policies:
        raise ConfigError(f"unknown policy {policy!r} for tau2 {spec.name}",
                          hint=f"Valid policies: {', '.join(spec.policies)}")
    names = (spec.solo_policies if solo else spec.policies)[policy]
    if len(names) == 1:
        return data.read_text(files.data[names[0]])
    # Upstream (telecom): main policy and tech-support text, each in its own tag.
    main, tech = (data.read_text(files.data[n]) for n in names)
    return (f"<main_policy>\n{main}\n</main_policy>\n"
            f"<tech_support_policy>\n{tech}\n</tech_support_policy>")


def _load_texts(spec: DomainSpec, files: data.DomainFiles
                ) -> tuple[ToolTexts, upstream.JudgePrompt | None, str | None]:
    kits = [k for k in (spec.tools, spec.user_tools) if k is not None]
    if files.sources is None:
        return upstream.fallback_texts(*kits, summaries=spec.summaries), None, None
    base = f"src/tau2/domains/{spec.name}/"
    src = files.sources
    tools = [src[base + n] for n in data.SOURCE_FILES[spec.name] if "tools" in n]
    models = [src[base + n] for n in data.SOURCE_FILES[spec.name] if "data_model" in n]
    texts = upstream.load_tool_texts(tools, models)
    judge = upstream.extract_judge_prompt(src[data.COMMON_SOURCES[0]])
    instruction = upstream.extract_string_constant(src[data.COMMON_SOURCES[1]],
                                                   "AGENT_INSTRUCTION")
    return texts, judge, instruction


def _task(raw: dict[str, Any], path: Path) -> Task:
    try:
        return Task.model_validate(raw)
    except ValidationError as exc:
        raise DataCorrupt(f"task {raw.get('id')!r} in {path} does not validate: {exc}",
                          hint="Replace the file with the one from the pinned commit") from exc
