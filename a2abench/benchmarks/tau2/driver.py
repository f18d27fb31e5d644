"""`a2abench run tau2`: the tau2 driver for the run engine."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import SecretStr, TypeAdapter, model_validator

from a2abench.a2a.client import Conversation
from a2abench.benchmarks.tau2 import mcp_tools
from a2abench.benchmarks.tau2.domain import Tau2Domain, load_domain
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
from a2abench.benchmarks.tau2.profiles import Profile, PromptStyle, get_profile, load_profile
from a2abench.benchmarks.tau2.solo import (
    SoloOrchestrator,
    is_solo_task,
    solo_agent,
    solo_schemas,
)
from a2abench.benchmarks.tau2.user_sim import UserSimulator, system_prompt
from a2abench.errors import A2ABenchError, ConfigError
from a2abench.llm import ChatLLM, LLMConfig, LLMOptions, api_key_from_env, build_llm
from a2abench.mcp.channel import McpChannel
from a2abench.mcp.options import ToolChannelOptions
from a2abench.options import option
from a2abench.run.driver import (
    Driver,
    Exporter,
    LLMUsage,
    TaskContext,
    TaskOutcome,
    TaskSpec,
    evaluator_failure,
)
from a2abench.run.events import DataProgress
from a2abench.run.records import ErrorInfo, Scoring, TaskRecord, is_success
from a2abench.run.status import failed_reward

_MESSAGES = TypeAdapter(list[Message])


class Tau2Options(LLMOptions, ToolChannelOptions):
    """Options of `run tau2`: each field is a flag (`--max-steps` for `max_steps`)."""

    domain: Literal["airline", "retail", "mock", "telecom", "banking_knowledge"] = option(
        "airline", "airline | retail | mock | telecom | banking_knowledge.")
    split: str = option("base", "Task split: base | train | test (telecom also small | full).")
    data_dir: Path | None = option(None, "Local data directory laid out like upstream's data/.")
    max_steps: int = option(200, "Max conversation hops.", ge=1)
    max_errors: int = option(10, "Max tool errors per task.", ge=1)
    reward_basis: Literal["official", "classic"] = option(
        "official", "official | classic (retail scored DB+COMMUNICATE as in v0.2).")
    policy: Literal["manual", "workflow"] = option("manual", "Telecom policy: manual | workflow.")
    tool_call_format: Literal["any", "datapart", "tags"] = option(
        "any", "Where tool calls are read: any (DataParts, or a text reply that is one whole "
               "call) | datapart (DataParts only; text goes to the user) | tags (<json> tags, "
               "as tau2's agentify example).")
    # upstream's solo mode: no user simulator (a2abench/benchmarks/tau2/solo.py)
    solo: bool = option(False, "Solo mode (mock, telecom): no user simulator; the agent gets "
                               "the ticket and the user's tools, and calls `done` when finished.")
    retrieval_variant: str | None = option(
        None, "banking_knowledge retrieval: bm25_grep (default) | bm25 | grep_only | full_kb | "
              "golden_retrieval | no_knowledge; with --embedding-llm: openai_embeddings[_grep] "
              "| qwen_embeddings[_grep]; add _reranker (bm25_reranker[_grep] too) with "
              "--reranker-llm.")
    embedding_llm: str | None = option(
        None, "Embedding model for the *_embeddings variants [default: "
              "text-embedding-3-large; qwen_*: qwen/qwen3-embedding-8b].")
    embedding_llm_base_url: str | None = option(
        None, "OpenAI-compatible endpoint serving /embeddings (key from OPENAI_API_KEY; qwen_*: "
              "OpenRouter, OPENROUTER_API_KEY).")
    reranker_llm: str | None = option(
        None, "Chat model rating documents for the *_reranker variants [default: gpt-5.2].")
    reranker_llm_base_url: str | None = option(
        None, "OpenAI-compatible chat endpoint of --reranker-llm (key from OPENAI_API_KEY).")
    prompt_style: PromptStyle = option(  # message format (profiles.py)
        "a2abench", "Message format: a2abench | agentbeats (the stock AgentBeats tau2 green) | "
                    "agentify (tau2's agentify example).")

    @model_validator(mode="after")
    def _one_format(self) -> Tau2Options:
        if self.prompt_style != "a2abench" and (self.solo or self.tool_call_format != "any"):
            raise ValueError("--prompt-style agentbeats|agentify sets the whole message format; "
                             "--tool-call-format and --solo go with --prompt-style a2abench")
        if self.tool_channel == "mcp" and (self.prompt_style != "a2abench"
                                           or self.tool_call_format != "any"):
            raise ValueError("--tool-channel mcp serves the tools over MCP: --prompt-style and "
                             "--tool-call-format describe the A2A channel; leave them unset")
        return self


def embedding_config(opts: Tau2Options) -> LLMConfig | None:
    """The embeddings endpoint of banking's dense variants (None unless a flag names it).
    Qwen variants default to upstream's OpenRouter model and URL (key from
    OPENROUTER_API_KEY only; with --embedding-llm-base-url the usual key), send short model
    names as upstream's API strings and ask for float vectors, as upstream's embedder does."""
    if not (opts.embedding_llm or opts.embedding_llm_base_url):
        return None
    from a2abench.benchmarks.tau2.domains.banking import llm_search
    from a2abench.benchmarks.tau2.domains.banking.retrieval import (
        DEFAULT_EMBEDDING_MODEL,
        VARIANTS,
    )

    variant = VARIANTS.get(opts.retrieval_variant or "")
    kwargs: dict[str, Any] = {"model": opts.embedding_llm or DEFAULT_EMBEDDING_MODEL,
                              "cache": opts.llm_cache}
    if variant is not None and variant.embedder == "openrouter":
        model, _ = llm_search.openrouter_model(opts.embedding_llm
                                               or llm_search.DEFAULT_QWEN_MODEL)
        kwargs.update(model=model, args={"encoding_format": "float"})
        if not opts.embedding_llm_base_url:
            # Upstream's OpenRouter URL gets OPENROUTER_API_KEY only, never the OpenAI key.
            key = os.environ.get("OPENROUTER_API_KEY", "").strip()
            kwargs.update(base_url=llm_search.OPENROUTER_BASE_URL,
                          api_key=SecretStr(key) if key else None)
    if opts.embedding_llm_base_url:
        kwargs["base_url"] = opts.embedding_llm_base_url
    return LLMConfig(**kwargs)


def reranker_config(opts: Tau2Options) -> LLMConfig | None:
    """The chat model of banking's reranker variants (None unless a flag names it)."""
    if not (opts.reranker_llm or opts.reranker_llm_base_url):
        return None
    from a2abench.benchmarks.tau2.domains.banking.llm_search import DEFAULT_RERANKER_MODEL

    model = opts.reranker_llm or DEFAULT_RERANKER_MODEL
    kwargs: dict[str, Any] = {"model": model, "cache": opts.llm_cache}
    if opts.reranker_llm_base_url:
        kwargs["base_url"] = opts.reranker_llm_base_url
    elif api_key_from_env() is None:  # as build_llm: fail now, not as dropped documents
        raise ConfigError(f"--reranker-llm {model} needs an API key: set OPENAI_API_KEY (or "
                          "A2ABENCH_LLM_API_KEY)",
                          hint="Or point --reranker-llm-base-url at another OpenAI-compatible "
                               "server.")
    return LLMConfig(**kwargs)


def _with_viewer_details(result: TaskOutcome, outcome: Outcome, chat: Conversation,
                         ctx: TaskContext, start: int,
                         mcp_calls: list[int] | None = None) -> TaskOutcome:
    """For the report viewer: each A2A reply's state and latency with the transcript index of
    the assistant message it became (every assistant message from `start` on is the agent's,
    one per reply, but for the calls it made over MCP; a reply refused for its task state
    has none), the MCP calls' indices, and LLM usage per role."""
    over_mcp = set(mcp_calls or ())
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


class Tau2Driver(Driver[Tau2Options]):
    name = "tau2"
    options_model = Tau2Options
    scoring = Scoring(headline="mean_reward",
                      description="tau2 average reward (pass^1) over task-trials")

    def __init__(self, options: Tau2Options) -> None:
        super().__init__(options)
        self.opts = options
        self.domain_data: Tau2Domain | None = None
        self.user_llm: ChatLLM | None = None
        self.profile: Profile = get_profile("a2abench")  # set by setup() from the options
        self.prompt_text = "a2abench"
        self.judge_llm: ChatLLM | None = None
        self.mcp = McpChannel(options)

    @property
    def domain(self) -> str | None:
        return self.opts.domain

    async def setup(self) -> None:
        opts = self.opts
        self.domain_data = await asyncio.to_thread(
            load_domain, opts.domain, data_dir=opts.data_dir, split=opts.split,
            policy=opts.policy, solo=opts.solo, retrieval_variant=opts.retrieval_variant,
            embedding=embedding_config(opts), reranker=reranker_config(opts),
            progress=self._download_progress())
        if opts.judge_llm:
            self.judge_llm = build_llm(
                opts.judge_llm, base_url=opts.judge_llm_base_url or opts.user_llm_base_url,
                args={"temperature": 0.0}, cache=opts.llm_cache, flag="--judge-llm")
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
        what = f"tau2 {self.opts.domain} data"

        def progress(done: int, total: int) -> None:
            loop.call_soon_threadsafe(emit, DataProgress(what, done, total))
        return progress

    def _user_llm(self) -> ChatLLM:
        if self.user_llm is None:
            if not self.opts.user_llm:
                raise ConfigError("tau2 needs a user simulator: pass --user-llm MODEL",
                                  hint="e.g. --user-llm gpt-4.1 (upstream's default), and "
                                       "--user-llm-base-url for other OpenAI-compatible "
                                       "endpoints; the key comes from OPENAI_API_KEY.")
            args = {"temperature": 0.0, **self.opts.user_llm_args}  # upstream: temperature 0
            self.user_llm = build_llm(self.opts.user_llm, base_url=self.opts.user_llm_base_url,
                                      args=args, cache=self.opts.llm_cache, flag="--user-llm")
        return self.user_llm

    def tasks(self) -> list[TaskSpec]:
        domain = self._domain()
        if self.opts.solo:  # upstream's solo agent refuses the others (docs/tau2.md, Solo)
            return [TaskSpec(task_id=t.id, domain=domain.name, data=t)
                    for t in domain.tasks() if is_solo_task(t)]
        self._user_llm()  # fail before the first task, not in every one
        return [TaskSpec(task_id=t.id, domain=domain.name, data=t) for t in domain.tasks()]

    def _domain(self) -> Tau2Domain:
        if self.domain_data is None:
            raise RuntimeError("Tau2Driver.setup() was not awaited")
        return self.domain_data

    def manifest(self) -> dict[str, Any]:
        domain = self._domain()
        llm = None if self.opts.solo else self._user_llm()
        solo = {"solo": {"excluded_tasks": [t.id for t in domain.tasks()
                                            if not is_solo_task(t)]}} if self.opts.solo else {}
        return {"data": {**domain.files.describe(), "split": domain.split,
                         "policy": domain.policy_kind,
                         "tool_text_source": domain.tool_text_source,
                         "judge_prompt": domain.judge_prompt is not None,
                         "prompt_text": self.prompt_text, **solo, **domain.describe(),
                         **self.mcp.describe()},
                "models": {"user_simulator": llm.config.to_record() if llm else None,
                           "judge": self.judge_llm.config.to_record() if self.judge_llm
                           else None,
                           "reward_basis": self.opts.reward_basis}}

    def compat(self) -> dict[str, Any]:
        o = self.opts
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
        env = await asyncio.to_thread(domain.new_environment, task)
        history = list(task.initial_state.message_history or []) if task.initial_state else []
        if self.opts.solo:
            return await self._run_solo(ctx, task, env, history)
        user = UserSimulator(self._user_llm(), system_prompt(domain.guidelines_for(env),
                                                             str(task.user_scenario)),
                             tools=env.user_tool_schemas(), seed=ctx.seed, usage=ctx.usage,
                             history=history)
        chat = ctx.conversation()
        start = len(history) if history else 1  # the fixed greeting is not the agent's
        if self.mcp.enabled:
            with self.mcp.session(f"{task.id}#{ctx.trial}") as session:
                preamble = mcp_tools.first_parts(domain.policy_for(task), self.mcp.url,
                                                 session.pointer(self.mcp.url), history)
                outcome, calls = await mcp_tools.run_over_mcp(
                    session, self.mcp.url, chat, lambda agent: Orchestrator(
                        env, user, agent, history=history, max_steps=self.opts.max_steps,
                        max_errors=self.opts.max_errors),
                    env.agent_tool_schemas(), preamble)
            return _with_viewer_details(await self._scored(task, outcome, ctx), outcome, chat,
                                        ctx, start, calls)
        agent = AgentLink(chat, domain.policy_for(task), env.agent_tool_schemas(), history,
                          tool_call_format=self.opts.tool_call_format, profile=self.profile)
        outcome = await Orchestrator(env, user, agent, history=history,
                                     max_steps=self.opts.max_steps,
                                     max_errors=self.opts.max_errors).run()
        return _with_viewer_details(await self._scored(task, outcome, ctx), outcome, chat, ctx,
                                    start)

    async def _scored(self, task: Task, outcome: Outcome, ctx: TaskContext) -> TaskOutcome:
        try:
            info = await self._score(task, outcome.messages, outcome.termination, ctx.usage)
        except A2ABenchError:
            raise  # LLM judge failures stay infrastructure errors
        except Exception as exc:
            # Upstream's evaluator raises too (e.g. mock's env assertion on a task the agent
            # never created: "Task task_2 not found"); its runner then records an error.
            return self._evaluator_error(outcome, evaluator_failure(
                exc, "upstream's tau2 evaluator raises on this trajectory too"))
        return self._outcome(outcome, info)

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
                        env, agent, history=history, max_steps=self.opts.max_steps,
                        max_errors=self.opts.max_errors),
                    solo_schemas(env), preamble)
            return _with_viewer_details(await self._scored(task, outcome, ctx), outcome, chat,
                                        ctx, len(history), calls)
        agent = solo_agent(chat, env, task, domain.solo_policy, history,
                           tool_call_format=self.opts.tool_call_format)
        outcome = await SoloOrchestrator(env, agent, history=history,
                                         max_steps=self.opts.max_steps,
                                         max_errors=self.opts.max_errors).run()
        return _with_viewer_details(await self._scored(task, outcome, ctx), outcome, chat, ctx,
                                    start=len(history))  # solo: no greeting

    async def _score(self, task: Task, messages: list[Any], termination: TerminationReason,
                     usage: LLMUsage | None = None) -> RewardInfo:
        domain = self._domain()
        info = await asyncio.to_thread(evaluate_offline, task, messages, termination,
                                       domain=domain, reward_basis_mode=self.opts.reward_basis,
                                       solo=self.opts.solo)
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
        if task is None or record.transcript is None:
            return None
        messages = _MESSAGES.validate_python(record.transcript)
        info = await self._score(task, messages,
                                 TerminationReason(record.termination or "infrastructure_error"))
        labels = (["nl_skipped"] if info.nl_skipped else []) + (
            ["classic"] if info.reward_basis_mode == "classic" else [])
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
    def exporters(cls) -> dict[str, Exporter]:
        from a2abench.benchmarks.tau2.export import results_json

        return {"tau2": results_json}
