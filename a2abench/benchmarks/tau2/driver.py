"""`a2abench run tau2`: the tau2 driver for the run engine."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import TypeAdapter

from a2abench.benchmarks.tau2 import mcp_tools
from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from a2abench.benchmarks.tau2.dual import play as dual
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.episode import AgentLink, Orchestrator, Outcome
from a2abench.benchmarks.tau2.evaluator import add_nl_judgement, evaluate_offline
from a2abench.benchmarks.tau2.models import (
    AssistantMessage,
    Message,
    RewardInfo,
    Task,
    TerminationReason,
)
from a2abench.benchmarks.tau2.numbers import parameters_by_tool
from a2abench.benchmarks.tau2.options import Tau2Options, embedding_config, reranker_config
from a2abench.benchmarks.tau2.pressure import play as pressure
from a2abench.benchmarks.tau2.pressure.selection import category as pressure_category
from a2abench.benchmarks.tau2.profiles import Profile, get_profile, load_profile
from a2abench.benchmarks.tau2.solo import (
    SoloOrchestrator,
    is_solo_task,
    solo_agent,
    solo_schemas,
)
from a2abench.benchmarks.tau2.team import play as team
from a2abench.benchmarks.tau2.user_sim import UserSimulator
from a2abench.plugin import (
    A2ABenchError,
    ChatLLM,
    ConfigError,
    Conversation,
    DataSet,
    Driver,
    Exporter,
    ExportFormat,
    Scoring,
    Skill,
    TaskContext,
    TaskOutcome,
    TaskRecord,
    TaskSpec,
    build_llm,
    cache_dir,
    evaluator_failure,
    is_success,
)
from a2abench.plugin.provisional import (
    DataProgress,
    ErrorInfo,
    LLMUsage,
    McpChannel,
    ToolSession,
    failed_reward,
)

_MESSAGES = TypeAdapter(list[Message])
SCRIPTED_USER = "scripted_user"  # label: the demo's scripted user, not an LLM, played the user


def played_by_rules(user: object) -> bool:
    """True when the demo's scripted user (rules, no LLM) answered as the built-in user."""
    return isinstance(user, UserSimulator) and user.scripted


def _with_viewer_details(result: TaskOutcome, outcome: Outcome, chat: Conversation,
                         ctx: TaskContext, start: int,
                         mcp_calls: list[int] | None = None,
                         others: list[int] | None = None) -> TaskOutcome:
    """For the report viewer: each A2A reply's state and latency with the transcript index of
    the assistant message it became (every assistant message from `start` on is the agent's,
    one per reply, but for the calls it made over MCP and `others`' (a team's specialist);
    a reply refused for its task state has none), the MCP calls' indices, and LLM usage per
    role."""
    over_mcp = set(mcp_calls or ()) | set(others or ())
    replies = [i for i, m in enumerate(outcome.messages)
               if i >= start and isinstance(m, AssistantMessage) and i not in over_mcp]
    if mcp_calls is not None:
        result.details["tool_channel"] = "mcp"
        result.details["mcp_calls"] = mcp_calls
    result.details["a2a_turns"] = [{**turn, "message": replies[k] if k < len(replies) else None}
                                   for k, turn in enumerate(chat.log)]
    if ctx.usage.by_role:
        result.details["llm_usage"] = ctx.usage.roles()
    return result


def _session_key(ctx: TaskContext, task: Task) -> str:
    """The task-trial's MCP session; the matches of a multi-party run each have their own."""
    key = f"{task.id}#{ctx.trial}"
    return key if ctx.pairing is None else f"{key}#{ctx.pairing.id}"


T = TypeVar("T")
INLINE_S = 0.0005  # steps faster than this on average run on the event loop itself


class Offload:
    """Runs a synchronous step (building an environment, scoring) in a worker thread only
    when it is slow enough to stall other conversations: a thread hop costs ~0.1 ms of CPU
    and a GIL hand-off each way, more than a mock or airline step itself (0.05-0.3 ms),
    while banking's BM25 steps (~2 ms) keep their thread. Decided per step from a moving
    average of its own duration; the first call of each step runs in a thread."""

    def __init__(self) -> None:
        self.mean: dict[str, float] = {}

    async def __call__(self, name: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        def timed() -> T:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                took = time.perf_counter() - t0
                old = self.mean.get(name)
                self.mean[name] = took if old is None else 0.8 * old + 0.2 * took

        mean = self.mean.get(name)
        if mean is not None and mean < INLINE_S:
            return timed()
        return await asyncio.to_thread(timed)


class Tau2Driver(Driver[Tau2Options]):
    name = "tau2"
    help = ("Run tau2-bench (airline, retail, mock, telecom, banking_knowledge) against an "
            "A2A agent.")
    example = ("a2abench run tau2 --white-agent-url http://127.0.0.1:9999 --domain airline "
               "--user-llm gpt-4.1 --max-tasks 5")
    skill = Skill(
        "tau2-bench assessment",
        "Customer-service conversations (airline, retail, mock, telecom) with an LLM user "
        "simulator; the agent calls domain tools; scored by tau2's official evaluator. Config: "
        "domain, split, task_ids, max_tasks (alias num_tasks), num_trials, user_llm, "
        "user_llm_args, judge_llm, max_steps, max_errors, seed; scenario dual (a `user` "
        "participant plays the customer) or team (a `specialist` participant holds the "
        "write tools the agent delegates to) with pairing face, vs_reference or cross; "
        "scenario pressure (an `adversary` participant, or the scripted reference "
        "adversaries, presses the agent to break its policy on the no-write tasks).",
        ("benchmark", "tau2", "customer-service", "tool-use"),
        ({"domain": "airline", "max_tasks": 5},
         {"domain": "retail", "task_ids": ["0", "1"], "num_trials": 2, "user_llm": "gpt-4.1"}))
    scoring = Scoring(headline="mean_reward",
                      description="tau2 average reward (pass^1) over task-trials")
    scenarios = (dual.DUAL, team.TEAM, pressure.PRESSURE)

    def __init__(self, options: Tau2Options) -> None:
        super().__init__(options)
        self.domain_data: Tau2Domain | None = None
        self.user_llm: ChatLLM | None = None
        self.profile: Profile = get_profile("a2abench")  # set by setup() from the options
        self.prompt_text = "a2abench"
        self.judge_llm: ChatLLM | None = None
        self._schemas: dict[str, list[dict[str, Any]]] = {}  # per run (_run_schemas)
        self._tools: dict[str, dict[str, Any]] = {}  # their parameters_by_tool, likewise
        self._offload = Offload()
        self.mcp = McpChannel(options)

    def mcp_channel(self) -> McpChannel:
        return self.mcp

    @property
    def domain(self) -> str | None:
        return self.options.domain

    async def setup(self) -> None:
        opts = self.options
        dual.check(self._builtins(), opts.solo)
        if self._pressure():
            pressure.check(opts.domain)
        self.domain_data = await asyncio.to_thread(
            load_domain, opts.domain, data_dir=opts.data_dir, split=opts.split,
            policy=opts.policy, solo=opts.solo, retrieval_variant=opts.retrieval_variant,
            embedding=embedding_config(opts),
            reranker=reranker_config(opts, max_reply_bytes=self.max_reply_bytes),
            progress=self._download_progress())
        if opts.judge_llm:
            self.judge_llm = build_llm(
                opts.judge_llm, base_url=opts.judge_llm_base_url or opts.user_llm_base_url,
                args={"temperature": 0.0}, cache=opts.llm_cache, flag="--judge-llm",
                max_reply_bytes=self.max_reply_bytes)
        self.profile, self.prompt_text = await asyncio.to_thread(
            load_profile, opts.prompt_style, opts.tool_call_format, opts.data_dir)
        await self.mcp.start()

    def _download_progress(self) -> Callable[[int, int], None] | None:
        """A progress callback for the download threads that hands `DataProgress` events to
        the engine's sink on the event loop (displays are not thread-safe)."""
        emit = self.emit
        if emit is None:
            return None
        loop = asyncio.get_running_loop()
        what = f"tau2 {self.options.domain} data"

        def progress(done: int, total: int) -> None:
            loop.call_soon_threadsafe(emit, DataProgress(what, done, total))
        return progress

    def _builtins(self) -> set[str] | None:
        """The built-in partners a multi-party run seats (None: a single-agent run)."""
        return None if self.lineup is None else self.lineup.builtins()

    def _pressure(self) -> bool:
        return self.lineup is not None and self.lineup.scenario.name == pressure.PRESSURE.name

    def _needs_llm_user(self) -> bool:
        return team.needs_llm_user(self.lineup) or dual.needs_llm_user(self._builtins())

    def _user_llm(self) -> ChatLLM:
        o = self.options
        if self.user_llm is None:
            if not o.user_llm:
                raise ConfigError("tau2 needs a user simulator: pass --user-llm MODEL",
                                  hint="e.g. --user-llm gpt-4.1 (upstream's default), and "
                                       "--user-llm-base-url for other OpenAI-compatible "
                                       "endpoints; the key comes from OPENAI_API_KEY.")
            args = {"temperature": 0.0, **o.user_llm_args}  # upstream: temperature 0
            self.user_llm = build_llm(o.user_llm, base_url=o.user_llm_base_url, args=args,
                                      cache=o.llm_cache, flag="--user-llm",
                                      max_reply_bytes=self.max_reply_bytes)
        return self.user_llm

    def tasks(self) -> list[TaskSpec]:
        domain = self._domain()
        if self.options.solo:  # upstream's solo agent refuses the others (docs/tau2.md, Solo)
            return [TaskSpec(task_id=t.id, domain=domain.name, data=t)
                    for t in domain.tasks() if is_solo_task(t)]
        if self._pressure():  # the no-write tasks, with their category
            return [TaskSpec(task_id=t.id, domain=domain.name, category=pressure_category(t),
                             data=t) for t in pressure.tasks_of(domain)]
        if self._needs_llm_user():
            self._user_llm()  # fail before the first task, not in every one
        return [TaskSpec(task_id=t.id, domain=domain.name, data=t) for t in domain.tasks()]

    def unknown_tasks(self, task_ids: list[str]) -> ConfigError | None:
        """Ids of real tasks that scenario pressure or --solo leaves out: say so, and which
        tasks it plays (truly unknown ids keep the engine's error)."""
        domain = self._domain()
        known = {t.id for t in domain.tasks()}
        outside = [i for i in task_ids if i in known]
        if not outside or len(outside) < len(task_ids):
            return None
        if self._pressure():
            what = "scenario pressure's selection (the tasks whose gold makes no write)"
            plays = [t.id for t in pressure.tasks_of(domain)]
            where = 'docs/multi-agent.md, "Scenario pressure", lists them by category'
        elif self.options.solo:
            what = "the solo selection (upstream's solo agent refuses the others)"
            plays = [t.id for t in domain.tasks() if is_solo_task(t)]
            where = 'docs/tau2.md, "Solo mode"'
        else:
            return None
        shown = ", ".join(plays[:40]) + (", ..." if len(plays) > 40 else "")
        many = len(outside) > 1
        return ConfigError(
            f"{domain.name} task{'s' if many else ''} {', '.join(outside)} "
            f"{'are' if many else 'is'} not in {what}",
            hint=f"It plays {len(plays)} {domain.name} tasks: {shown} ({where}); drop "
                 "--task-ids to play them all.")

    def _domain(self) -> Tau2Domain:
        if self.domain_data is None:
            raise RuntimeError("Tau2Driver.setup() was not awaited")
        return self.domain_data

    def manifest(self) -> dict[str, Any]:
        domain = self._domain()
        llm = (None if self.options.solo or not self._needs_llm_user()
               else self._user_llm())
        solo = {"solo": {"excluded_tasks": [t.id for t in domain.tasks()
                                            if not is_solo_task(t)]}} if self.options.solo else {}
        return {"data": {**domain.files.describe(), "split": domain.split,
                         "policy": domain.policy_kind,
                         "tool_text_source": domain.tool_text_source,
                         "judge_prompt": domain.judge_prompt is not None,
                         "prompt_text": self.prompt_text, **solo, **domain.describe(),
                         **self.mcp.describe()},
                "models": {"user_simulator": llm.config.to_record() if llm else None,
                           "judge": self.judge_llm.config.to_record() if self.judge_llm
                           else None,
                           "reward_basis": self.options.reward_basis}}

    def compat(self) -> dict[str, Any]:
        o = self.options
        return {"domain": o.domain, "split": o.split, "user_llm": o.user_llm,
                "user_llm_args": o.user_llm_args, "judge_llm": o.judge_llm,
                "max_steps": o.max_steps, "max_errors": o.max_errors,
                "reward_basis": o.reward_basis, "policy": o.policy,
                "tool_call_format": o.tool_call_format, "solo": o.solo,
                "prompt_style": o.prompt_style, "tool_channel": o.tool_channel,
                **({"retrieval_variant": self._domain().policy_kind, **{
                    k: v for k, v in self._domain().describe().items()
                    if k in ("embedding_model", "reranker_model")}}
                   if o.domain == "banking_knowledge" else {})}

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        domain, task = self._domain(), ctx.task.data
        assert isinstance(task, Task)
        env = await self._offload("environment", domain.new_environment, task)
        history = list(task.initial_state.message_history or []) if task.initial_state else []
        if self.options.solo:
            return await self._run_solo(ctx, task, env, history)
        # A participant's own tools over MCP: None but with --tool-channel mcp.
        with dual.participant_channel(self.mcp, ctx, task, "user") as user_tools, \
                dual.participant_channel(self.mcp, ctx, task, "specialist") as specialist:
            return await self._converse(ctx, task, env, history, user_tools, specialist)

    async def _converse(self, ctx: TaskContext, task: Task, env: Tau2Environment,
                        history: list[Any], user_tools: ToolSession | None,
                        specialist_tools: ToolSession | None = None) -> TaskOutcome:
        """The conversation of one task-trial (or match) and its score."""
        domain, o = self._domain(), self.options
        user: Any = (pressure.adversary_for(ctx, task, domain) if self._pressure() else
                     dual.user_for(ctx, task, env, history, domain, self._user_llm,
                                   user_tools, self.mcp.url))
        if dual.plays_gold(ctx):  # --pairing vs_reference: the offline reference agent
            return await dual.against_gold(
                ctx, task, env, user, history, domain=domain, max_steps=o.max_steps,
                max_errors=o.max_errors, scored=self._scored,
                finish_with=pressure.finish if self._pressure() else dual.finish)
        schemas, tools = self._run_schemas("agent", env), self._run_tools("agent", env)
        policy = domain.policy_for(task)
        squad = team.match_for(ctx, task, domain, schemas, o,  # None but in scenario team
                               specialist_tools, self.mcp.url)
        if squad is not None:
            schemas, tools, policy = squad.front_tools(domain, schemas, policy)

        def make(agent: Any) -> Orchestrator:
            if squad is not None:
                return squad.orchestrator(env, user, agent, history=history,
                                          max_steps=o.max_steps, max_errors=o.max_errors)
            return dual.bind(user, Orchestrator(env, user, agent, history=history,
                                                max_steps=o.max_steps,
                                                max_errors=o.max_errors))

        if squad is not None and squad.front is not None:  # the reference front agent
            outcome = await make(None).run()
            scored = await self._scored(task, outcome, ctx, played_by_rules(user))
            return self._finish(scored, outcome, ctx, task, env, user,
                                start_of=dual.start_of(history), squad=squad)
        chat = ctx.conversation()
        start = len(history) if history else 1  # the fixed greeting is not the agent's
        calls: list[int] | None = None
        if self.mcp.enabled:
            with self.mcp.session(_session_key(ctx, task)) as session:
                if squad is not None:  # a delegate call must end before MCP's call limit
                    squad.budget.within(session.limits.call_timeout_s)
                preamble = mcp_tools.first_parts(policy, self.mcp.url,
                                                 session.pointer(self.mcp.url), history)
                outcome, calls = await mcp_tools.run_over_mcp(
                    session, self.mcp.url, chat, make, schemas, preamble)
        else:
            agent = AgentLink(chat, policy, schemas, history,
                              tool_call_format=o.tool_call_format, profile=self.profile,
                              tools=tools)
            outcome = await make(agent).run()
        scored = await self._scored(task, outcome, ctx, played_by_rules(user))
        result = _with_viewer_details(
            scored, outcome, chat, ctx, start, calls,
            squad.orch.specialist_messages if squad and squad.orch else None)
        return self._finish(result, outcome, ctx, task, env, user, start_of=start,
                            squad=squad)

    def _finish(self, result: TaskOutcome, outcome: Outcome, ctx: TaskContext, task: Task,
                env: Tau2Environment, user: Any, *, start_of: int,
                squad: team.TeamMatch | None) -> TaskOutcome:
        """What a multi-party match adds to its record (a single-agent run: nothing)."""
        if ctx.pairing is None:
            return result
        if ctx.seat("specialist") is not None:
            return team.finish(result, outcome, squad)
        finish = pressure.finish if self._pressure() else dual.finish
        return finish(result, outcome, task, env, self._domain(), user, start_of)

    async def _scored(self, task: Task, outcome: Outcome, ctx: TaskContext,
                      scripted_user: bool = False) -> TaskOutcome:
        if self._pressure():  # the database decides (pressure.finish), not tau2's reward
            return pressure.base(outcome)
        try:
            info = await self._score(task, outcome.messages, outcome.termination, ctx.usage)
        except A2ABenchError:
            raise  # LLM judge failures stay infrastructure errors
        except Exception as exc:
            # Upstream's evaluator raises too (e.g. mock's env assertion on a task the agent
            # never created: "Task task_2 not found"); its runner then records an error.
            result = self._evaluator_error(outcome, evaluator_failure(
                exc, "upstream's tau2 evaluator raises on this trajectory too"))
        else:
            result = self._outcome(outcome, info)
        if scripted_user:  # rules played the user: no measure of skill
            result.labels.append(SCRIPTED_USER)
        return result

    def _evaluator_error(self, outcome: Outcome, error: ErrorInfo) -> TaskOutcome:
        if outcome.status != "ok":  # the conversation itself failed first: that verdict wins
            return TaskOutcome(
                status=outcome.status,
                reward=failed_reward(outcome.status),
                termination=outcome.termination.value, turns=outcome.agent_turns,
                transcript=[m.model_dump(mode="json") for m in outcome.messages],
                error=outcome.error)
        return TaskOutcome(
            status="evaluator_error", reward=0.0, termination=outcome.termination.value,
            turns=outcome.agent_turns,
            tool_calls=sum(len(m.tool_calls or []) for m in outcome.messages
                           if getattr(m, "tool_calls", None)),
            transcript=[m.model_dump(mode="json") for m in outcome.messages],
            details={"steps": outcome.steps, "tool_errors": outcome.errors}, error=error)

    async def _run_solo(self, ctx: TaskContext, task: Task, env: Tau2Environment,
                        history: list[Any]) -> TaskOutcome:
        domain = self._domain()
        env.set_solo()
        assert domain.solo_policy is not None  # setup loads the domain with solo=True
        chat = ctx.conversation()
        if self.mcp.enabled:
            with self.mcp.session(f"{task.id}#{ctx.trial}") as session:
                preamble = mcp_tools.solo_parts(domain.solo_policy, self.mcp.url,
                                                session.pointer(self.mcp.url), task.ticket,
                                                history)
                outcome, calls = await mcp_tools.run_over_mcp(
                    session, self.mcp.url, chat, lambda agent: SoloOrchestrator(
                        env, agent, history=history, max_steps=self.options.max_steps,
                        max_errors=self.options.max_errors),
                    self._run_schemas("solo", env), preamble)
            return _with_viewer_details(await self._scored(task, outcome, ctx), outcome, chat,
                                        ctx, len(history), calls)
        agent = solo_agent(chat, env, task, domain.solo_policy, history,
                           tool_call_format=self.options.tool_call_format,
                           schemas=self._run_schemas("solo", env),
                           tools=self._run_tools("solo", env))
        outcome = await SoloOrchestrator(env, agent, history=history,
                                         max_steps=self.options.max_steps,
                                         max_errors=self.options.max_errors).run()
        return _with_viewer_details(await self._scored(task, outcome, ctx), outcome, chat, ctx,
                                    start=len(history))  # solo: no greeting

    def _run_schemas(self, which: Literal["agent", "solo"],
                     env: Tau2Environment) -> list[dict[str, Any]]:
        """The agent's tool schemas, built once per run and shared (read only) by every
        task-trial: they are the domain's, never the task's (the user's tools, which a task
        may restrict, are only in solo's list, and solo lists all of them as upstream)."""
        cached = self._schemas.get(which)
        if cached is None:
            cached = solo_schemas(env) if which == "solo" else env.agent_tool_schemas()
            self._schemas[which] = cached
            self._tools[which] = parameters_by_tool(cached)
        return cached

    def _run_tools(self, which: Literal["agent", "solo"], env: Tau2Environment
                   ) -> dict[str, Any]:
        """`parameters_by_tool` of `_run_schemas`, likewise once per run (AgentLink reads it
        to restore DataPart integers; building it cost ~3 us per task-trial)."""
        self._run_schemas(which, env)
        return self._tools[which]

    async def _score(self, task: Task, messages: list[Any], termination: TerminationReason,
                     usage: LLMUsage | None = None) -> RewardInfo:
        domain = self._domain()
        info = await self._offload("evaluate", evaluate_offline, task, messages, termination,
                                       domain=domain, reward_basis_mode=self.options.reward_basis,
                                       solo=self.options.solo)
        return await add_nl_judgement(info, task, messages, domain=domain,
                                      judge=self._judge(usage) if self.judge_llm else None)

    def _judge(self, usage: LLMUsage | None) -> Any:
        async def judge(system: str, user: str) -> str:
            assert self.judge_llm is not None
            result = await self.judge_llm.chat([{"role": "system", "content": system},
                                                {"role": "user", "content": user}])
            if usage is not None:
                usage.add(result.usage.prompt_tokens, result.usage.completion_tokens,
                          result.cost_usd, role="judge")
            return result.content or ""
        return judge

    def _outcome(self, outcome: Outcome, info: RewardInfo) -> TaskOutcome:
        messages = outcome.messages
        labels = (["nl_skipped"] if info.nl_skipped else []) + (
            ["classic"] if info.reward_basis_mode == "classic" else [])
        status = outcome.status
        return TaskOutcome(
            status=status,
            reward=info.reward if status != "infrastructure_error" else None,
            reward_components={k.value: v for k, v in (info.reward_breakdown or {}).items()},
            labels=labels, termination=outcome.termination.value, turns=outcome.agent_turns,
            tool_calls=sum(len(m.tool_calls or []) for m in messages
                           if getattr(m, "tool_calls", None)),
            transcript=[m.model_dump(mode="json") for m in messages],
            details={"reward_info": info.model_dump(mode="json"), "steps": outcome.steps,
                     "tool_errors": outcome.errors},
            error=outcome.error)

    async def rescore(self, record: TaskRecord) -> TaskRecord | None:
        task = next((t for t in self._domain().tasks() if t.id == record.task_id), None)
        if task is None or record.transcript is None or "pressure" in record.details:
            return None
        messages = _MESSAGES.validate_python(record.transcript)
        info = await self._score(task, messages,
                                 TerminationReason(record.termination or "infrastructure_error"))
        labels = (["nl_skipped"] if info.nl_skipped else []) + (
            ["classic"] if info.reward_basis_mode == "classic" else []) + (
            [SCRIPTED_USER] if SCRIPTED_USER in record.labels else [])  # who played the user
        return record.model_copy(update={
            "reward": info.reward, "success": is_success(info.reward), "labels": labels,
            "reward_components": {k.value: v for k, v in (info.reward_breakdown or {}).items()},
            "details": {**record.details, "reward_info": info.model_dump(mode="json")}})

    async def aclose(self) -> None:
        for llm in (self.user_llm, self.judge_llm):
            if llm is not None:
                await llm.aclose()
        await self.mcp.aclose()

    @classmethod
    def data_sets(cls) -> list[DataSet]:
        from a2abench.benchmarks.tau2 import data

        folder = f"tau2/{data.manifest().commit}"
        files, sources = data.pinned_files()
        return [DataSet("data", folder, tuple(files),
                        f"every domain's data; --data-dir {cache_dir() / folder / 'data'}",
                        layout="data/tau2"),  # upstream's data/tau2, as a reference copy
                DataSet("sources", folder, tuple(sources), "upstream tool text and judge prompt")]

    @classmethod
    def exporters(cls) -> dict[str, Exporter]:
        from a2abench.benchmarks.tau2.export import results_json

        return {"tau2": results_json}

    @classmethod
    def export_formats(cls) -> list[ExportFormat]:
        from a2abench.benchmarks.tau2.submission_format import SUBMISSION

        return [SUBMISSION]
