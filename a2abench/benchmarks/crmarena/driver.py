"""`a2abench run crmarena`: CRMArena and CRMArena-Pro over A2A, scored as upstream scores."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from pathlib import Path
from typing import Any, Literal

from pydantic import model_validator

from a2abench.benchmarks.crmarena import mcp_tools, team, team_mcp, upstream
from a2abench.benchmarks.crmarena.backends import Backend, SalesforceBackend, SandboxBackend
from a2abench.benchmarks.crmarena.episode import Episode, EpisodeResult
from a2abench.benchmarks.crmarena.evaluator import Evaluator, Judge, Verdict
from a2abench.benchmarks.crmarena.prompt import (
    PromptOptions,
    compose,
    rule_text,
    task_message,
)
from a2abench.benchmarks.crmarena.sandbox import OrgSchema
from a2abench.benchmarks.crmarena.tasks import (
    PRIVACY_CATEGORIES,
    CRMTask,
    Dataset,
    Org,
    TaskSource,
    load_schema,
    load_tasks,
    select,
)
from a2abench.benchmarks.crmarena.user_sim import FALLBACK_GREETING, UserSimulator, system_prompt
from a2abench.plugin import (
    ChatLLM,
    DataSet,
    Driver,
    Exporter,
    LLMOptions,
    Scoring,
    Skill,
    TaskContext,
    TaskOutcome,
    TaskRecord,
    TaskSpec,
    build_llm,
    is_success,
    option,
)
from a2abench.plugin.provisional import (
    DelegationOptions,
    ErrorInfo,
    Forfeit,
    LLMUsage,
    McpChannel,
    ToolChannelOptions,
    git_blob_sha1_file,
)

log = logging.getLogger(__name__)
UPSTREAM_MODEL = "gpt-4o-2024-08-06"  # upstream's evaluator and user simulator model
OFFLINE = "offline"


class CRMArenaOptions(LLMOptions, ToolChannelOptions, DelegationOptions):
    """Options of `run crmarena`: each field is a flag (`--max-turns` for `max_turns`)."""

    dataset: Dataset | None = option(
        None, "crmarenapro | crmarena [default: crmarena with --org original, else crmarenapro].")
    org: Org | None = option(
        None, "b2b | b2c | original [default: original with --dataset crmarena, else b2b].")
    tasks_file: Path | None = option(None, "Tasks as JSON or JSONL in the Hugging Face row format.")
    schema_file: Path | None = option(
        None, "Org schema records as JSON (default: the hub's, or our own catalog with "
              "--tasks-file).")
    task_category: str = option("all", "Comma list of categories, or all.")
    interactive: bool = option(False, "Multi-turn with an LLM user.")
    max_turns: int = option(20, "Max agent actions per task.", ge=1)
    max_user_turns: int = option(10, "Max user turns (interactive).", ge=1)
    backend: Literal["sandbox", "salesforce"] = option(
        "sandbox", "sandbox (local SQLite org) | salesforce.")
    crm_db: Path | None = option(None, "SQLite org dump to query.")
    privacy_aware: bool = option(False, "Use the privacy-aware prompt.")
    aided: bool = option(True, "Add the task's optional context (upstream's aided mode).")
    upstream_text: bool = option(
        True, "Word prompts with upstream's files at the pinned commit (downloaded once, then "
              "cached); --no-upstream-text uses a2abench's own wording, needs no download and "
              "has no LLM judge.")

    @model_validator(mode="after")
    def _dataset_and_org(self) -> CRMArenaOptions:
        if self.dataset is None:
            self.dataset = "crmarena" if self.org == "original" else "crmarenapro"
        if self.org is None:
            self.org = "original" if self.dataset == "crmarena" else "b2b"
        if (self.dataset == "crmarena") != (self.org == "original"):
            raise ValueError(f"--dataset {self.dataset} has no {self.org} org (CRMArena runs on "
                             "the original org; CRMArena-Pro on b2b and b2c)")
        if self.interactive and self.org == "original":
            raise ValueError("--interactive needs CRMArena-Pro (its tasks carry the personas "
                             "the simulated user plays); use --org b2b or b2c")
        return self

    @property
    def split(self) -> str:
        """`b2b`, `b2b_interactive`, ... or `original`: the domain of every record."""
        return f"{self.org}_interactive" if self.interactive else str(self.org)

    @property
    def offline(self) -> bool:
        return self.judge_llm == OFFLINE


class CRMArenaDriver(Driver[CRMArenaOptions]):
    name = "crmarena"
    help = "Run CRMArena or CRMArena-Pro against an A2A agent."
    example = ("a2abench run crmarena --white-agent-url http://127.0.0.1:9999 --org b2b "
               "--task-category handle_time")
    skill = Skill(
        "CRMArena / CRMArena-Pro assessment",
        "Salesforce CRM tasks answered through SOQL/SOSL queries against an org; scored by the "
        "official evaluator. Config: dataset, org, task_category, task_ids, max_tasks, "
        "interactive, max_turns, max_user_turns, backend, judge_llm, user_llm; scenario "
        "team (a `specialist` participant runs the queries the agent delegates).",
        ("benchmark", "crmarena", "crm", "salesforce"),
        ({"task_category": "handle_time", "max_tasks": 5},
         {"org": "b2c", "task_category": "all", "interactive": True}))
    scenarios = (team.TEAM,)
    scoring = Scoring(
        headline="macro_category_mean",
        description="CRMArena: mean reward per category (token F1 for free-text tasks), "
                    "averaged over categories; confidentiality categories scored apart",
        separate={"confidentiality": list(PRIVACY_CATEGORIES)})

    def __init__(self, options: CRMArenaOptions) -> None:
        super().__init__(options)
        self.texts = upstream.TextSource(None, "not loaded")
        self.judge_llm: ChatLLM | None = None
        self.user_llm: ChatLLM | None = None
        self.evaluator = Evaluator(None, None)
        self.source: TaskSource | None = None
        self.schema_text = ""
        self.schema_info: dict[str, Any] = {}
        self.backend: Backend | None = None
        self.mcp = McpChannel(options)

    def mcp_channel(self) -> McpChannel:
        return self.mcp

    @property
    def domain(self) -> str | None:
        return self.options.split

    async def setup(self) -> None:
        """Upstream texts and LLM clients; tasks, schema and org come in `tasks()`."""
        opts = self.options
        if not opts.upstream_text:  # asked for: nothing to download, nothing to warn about
            self.texts = upstream.TextSource(None, "our own wording (--no-upstream-text); no "
                                                   "LLM judge")
        else:
            self.texts = await asyncio.to_thread(upstream.resolve_texts)
            if self.texts.texts is None:
                log.warning("CRMArena: %s", self.texts.note)
        if not opts.offline and self.texts.texts is not None:
            self.judge_llm = build_llm(  # upstream sets no temperature
                opts.judge_llm or UPSTREAM_MODEL,
                base_url=opts.judge_llm_base_url or opts.user_llm_base_url, args={},
                cache=opts.llm_cache, flag="--judge-llm",
                alternative="pass --judge-llm offline for deterministic scoring (labelled "
                            "offline)", max_reply_bytes=self.max_reply_bytes)
        if opts.interactive:
            self.user_llm = build_llm(opts.user_llm or UPSTREAM_MODEL,
                                      base_url=opts.user_llm_base_url,
                                      args=dict(opts.user_llm_args), cache=opts.llm_cache,
                                      flag="--user-llm", max_reply_bytes=self.max_reply_bytes)
        self.evaluator = Evaluator(self._judge() if self.judge_llm else None, self.texts.texts)
        await self.mcp.start()

    def _judge(self, usage: LLMUsage | None = None) -> Judge:
        async def judge(system: str, user: str) -> str | None:
            assert self.judge_llm is not None
            result = await self.judge_llm.chat([{"role": "system", "content": system},
                                                {"role": "user", "content": user}])
            if usage is not None:
                usage.add(result.usage.prompt_tokens, result.usage.completion_tokens,
                          result.cost_usd, role="judge")
            return result.content
        return judge

    def tasks(self) -> list[TaskSpec]:
        opts = self.options
        assert opts.dataset is not None and opts.org is not None
        if self.source is None:
            self.source = load_tasks(opts.dataset, opts.org, opts.interactive, opts.tasks_file)
            records, self.schema_info = load_schema(opts.org, opts.schema_file,
                                                    from_hub=opts.tasks_file is None)
            schema = (OrgSchema.from_records(records) if records
                      else OrgSchema.builtin(opts.org))
            template = self.texts.texts.schema_template if self.texts.texts else None
            self.schema_text = schema.schema_text(template)
            self.backend = self._open_backend(records)
        chosen = select(self.source.tasks, opts.task_category)
        return [TaskSpec(task_id=str(t.idx), domain=opts.split, category=t.category, data=t)
                for t in chosen]

    def _open_backend(self, records: list[dict[str, Any]] | None) -> Backend:
        opts = self.options
        assert opts.org is not None
        if opts.backend == "salesforce":
            return SalesforceBackend.login(opts.org)
        m = upstream.manifest()
        pinned = m.orgs[opts.org][1]
        if opts.crm_db is not None:
            blob = git_blob_sha1_file(opts.crm_db) if opts.crm_db.is_file() else None
            return SandboxBackend.open(opts.crm_db, records, {
                "origin": "local", "git_blob_sha1": blob, "matches_pinned": blob == pinned})
        path = upstream.org_database(opts.org)
        return SandboxBackend.open(path, records, {
            "origin": "download", "commit": m.commit, "git_blob_sha1": pinned,
            "matches_pinned": True})

    def manifest(self) -> dict[str, Any]:
        source = self._source()
        backend = self.backend.describe() if self.backend else {}
        return {"data": {"tasks": source.describe, "schema": self.schema_info, "org": backend,
                         **self.texts.describe(), **self.mcp.describe()},
                "models": {"scoring": OFFLINE if self.evaluator.offline else "judged",
                           "judge": self.judge_llm.config.to_record() if self.judge_llm
                           else None,
                           "user_simulator": self.user_llm.config.to_record()
                           if self.user_llm else None}}

    def compat(self) -> dict[str, Any]:
        o = self.options
        return {"dataset": o.dataset, "org": o.org, "interactive": o.interactive,
                "tasks_file": str(o.tasks_file) if o.tasks_file else None,
                "task_category": o.task_category, "max_turns": o.max_turns,
                "max_user_turns": o.max_user_turns, "backend": o.backend,
                "privacy_aware": o.privacy_aware, "aided": o.aided,
                "judge_llm": OFFLINE if self.evaluator.offline else o.judge_llm or UPSTREAM_MODEL,
                "user_llm": o.user_llm, "user_llm_args": o.user_llm_args,
                "tool_channel": o.tool_channel}

    def _source(self) -> TaskSource:
        if self.source is None:
            raise RuntimeError("CRMArenaDriver.tasks() was not called")
        return self.source

    # -- one task-trial ------------------------------------------------------------------

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        task = ctx.task.data
        assert isinstance(task, CRMTask) and self.backend is not None
        opts = self.options
        user, opening = None, None
        if opts.interactive:
            assert self.user_llm is not None
            texts = self.texts.texts
            user = UserSimulator(self.user_llm, system_prompt(texts, task.query, task.persona),
                                 texts.greeting if texts else FALLBACK_GREETING,
                                 seed=ctx.seed, usage=ctx.usage)
            opening = await user.start()
        options = PromptOptions(opts.max_turns, opts.interactive, opts.privacy_aware,
                                opts.aided)
        if team.seated(ctx)[0]:  # scenario team, a specialist seated
            return await self._team(ctx, task, options, user, opening)
        chat = ctx.conversation()
        over_mcp: list[int] | None = None
        if self.mcp.enabled:
            message = mcp_tools.task_message(task, self.texts.texts, options, self.mcp.url,
                                             opening)
            with self.mcp.session(f"{task.idx}#{ctx.trial}") as session:
                over = mcp_tools.McpEpisode(
                    chat, self.backend, mcp_tools.RULE, opts.max_turns, task.today, user,
                    opts.max_user_turns, session=session, schema_text=self.schema_text,
                    pointer=session.pointer(self.mcp.url))
                session.backend = over
                result = await over.run(message, message, opening)
                over_mcp = over.mcp_entries
        else:
            message = task_message(task, self.schema_text, self.texts.texts, options, opening)
            episode = Episode(chat, self.backend, rule_text(self.texts.texts),
                              opts.max_turns, task.today, user, opts.max_user_turns)
            result = await episode.run(message, self._logged(message), opening)
        return await self._finish(ctx, task, result, chat, over_mcp)

    async def _finish(self, ctx: TaskContext, task: CRMTask, result: EpisodeResult,
                      chat: Any, over_mcp: list[int] | None = None) -> TaskOutcome:
        verdict = await self._score(task, result.answer, result.trajectory, ctx.usage)
        outcome = self._outcome(task, result, verdict)
        # For the report viewer: each A2A reply's state and latency, and the transcript index
        # of its "agent" entry (one per reply, in order).
        replies = [i for i, e in enumerate(result.transcript)
                   if e.get("role") == "agent" and not e.get("mcp")]
        if over_mcp is not None:
            outcome.details.update(tool_channel="mcp", mcp_calls=over_mcp)
        outcome.details["a2a_turns"] = [
            {**turn, "message": replies[k] if k < len(replies) else None}
            for k, turn in enumerate(chat.log)]
        if ctx.usage.by_role:  # LLM tokens and cost per role (user simulator, judge)
            outcome.details["llm_usage"] = ctx.usage.roles()
        if team.is_baseline(ctx):
            outcome.details["delegation"] = {"baseline": True}
        return outcome

    async def _team(self, ctx: TaskContext, task: CRMTask, options: PromptOptions,
                    user: UserSimulator | None, opening: str | None) -> TaskOutcome:
        """A team match (crmarena/team.py; over --tool-channel mcp team_mcp.py): the front
        agent without query tools."""
        with contextlib.ExitStack() as sessions:  # the MCP sessions live as long as it
            return await self._team_match(ctx, task, options, user, opening, sessions)

    def _team_episode(self, ctx: TaskContext, task: CRMTask, options: PromptOptions,
                      opening: str | None, sessions: contextlib.ExitStack,
                      **interactive: Any) -> tuple[team.TeamEpisode, str]:
        """The match's episode and the front agent's first message, by tool channel."""
        assert self.backend is not None
        opts, mcp = self.options, self.mcp
        key = f"{task.idx}#{ctx.trial}#{ctx.pairing.id if ctx.pairing else ''}"
        specialist = None
        if mcp.enabled and team_mcp.remote_specialist(ctx):
            session = sessions.enter_context(mcp.session(f"{key}#specialist"))
            specialist = team_mcp.specialist_for(ctx, session, mcp.url, self.schema_text, opts)
        reference = team.seated(ctx)[1]
        chat = ctx.client.conversation() if reference else ctx.conversation()
        if mcp.enabled and not reference:  # the in-process reference needs no channel
            session = sessions.enter_context(mcp.session(key))
            return team_mcp.front_episode(
                chat, self.backend, task, ctx, session, mcp.url, opts.max_turns, opts,
                specialist, self.schema_text, **interactive), team_mcp.front_message(
                task, self.texts.texts, options, mcp.url, opening)
        description, actions = team.front_sections()
        return team.new_episode(chat, self.backend, rule_text(self.texts.texts),
                                opts.max_turns, task, ctx, self.schema_text, opts, specialist,
                                **interactive), compose(
            task, self.texts.texts, options, opening, description=description, actions=actions)

    async def _team_match(self, ctx: TaskContext, task: CRMTask, options: PromptOptions,
                          user: UserSimulator | None, opening: str | None,
                          sessions: contextlib.ExitStack) -> TaskOutcome:
        episode, message = self._team_episode(ctx, task, options, opening, sessions,
                                              user=user, max_user_turns=self.options.max_user_turns)
        try:
            result = await episode.run(message, message, opening)
        except Forfeit as exc:  # the specialist failed: kept, with what happened so far
            return TaskOutcome(
                status="forfeit", reward=None, forfeit=exc.role, termination="forfeit",
                transcript=episode.transcript, labels=self._labels(),
                details={**self._task_details(task), "delegation": self._traffic(episode)},
                error=ErrorInfo(error=type(exc.cause).__name__, kind="forfeit",
                                message=exc.message, hint=exc.hint))
        over_mcp = episode.mcp_entries if isinstance(episode, team_mcp.McpTeamEpisode) else None
        outcome = await self._finish(ctx, task, result, episode.chat, over_mcp)
        outcome.details["delegation"] = self._traffic(episode)
        return outcome

    @staticmethod
    def _traffic(episode: team.TeamEpisode) -> dict[str, Any]:
        assert episode.budget is not None
        return episode.budget.stats.as_dict()

    def _logged(self, message: str) -> str:
        """The task message for the transcript, the (long, shared) schema text elided."""
        schema = self.schema_text.strip()
        digest = hashlib.sha256(schema.encode()).hexdigest()[:16]
        return message.replace(schema, f"[schema text: {len(schema)} characters, "
                                       f"sha256 {digest}...]", 1)

    async def _score(self, task: CRMTask, answer: str | None, trajectory: list[str],
                     usage: LLMUsage | None) -> Verdict | None:
        if answer is None:
            return None
        evaluator = self.evaluator
        if self.judge_llm is not None and usage is not None:
            evaluator = Evaluator(self._judge(usage), self.texts.texts)
        return await evaluator.evaluate(category=task.category, metric=task.reward_metric,
                                        truth=task.answer, proposed=answer,
                                        trajectory=trajectory)

    def _labels(self) -> list[str]:
        return [OFFLINE] if self.evaluator.offline else []

    def _outcome(self, task: CRMTask, result: EpisodeResult,
                 verdict: Verdict | None) -> TaskOutcome:
        return TaskOutcome(
            status="ok", reward=verdict.reward if verdict else 0.0,
            reward_components=verdict.components if verdict else {},
            labels=self._labels(), termination=result.termination, turns=result.agent_turns,
            tool_calls=result.queries, transcript=result.transcript,
            details={**self._task_details(task), "answer": result.answer,
                     "invalid_replies": result.invalid_replies,
                     "user_turns": result.user_turns,
                     **(verdict.details() if verdict else {"scoring_path": None})})

    def _task_details(self, task: CRMTask) -> dict[str, Any]:
        return {"reward_metric": task.reward_metric, "ground_truth": list(task.answer),
                "today": task.today.isoformat() if task.today else None,
                "agent_type": "external" if task.external else "internal"}

    async def rescore(self, record: TaskRecord) -> TaskRecord | None:
        """Score a recorded task-trial again (e.g. with a judge added later)."""
        details, transcript = record.details, record.transcript
        if transcript is None or "ground_truth" not in details or record.category is None:
            return None
        actions = [e["action"] for e in transcript
                   if e.get("role") == "agent" and e.get("action")]
        answer = details.get("answer")
        verdict = None
        if answer is not None:
            verdict = await self.evaluator.evaluate(
                category=record.category, metric=details["reward_metric"],
                truth=details["ground_truth"], proposed=answer,
                trajectory=[a["content"] for a in actions])
        reward = verdict.reward if verdict else 0.0
        return record.model_copy(update={
            "reward": reward, "success": is_success(reward), "labels": self._labels(),
            "reward_components": verdict.components if verdict else {},
            "details": {**details, **(verdict.details() if verdict
                                      else {"scoring_path": None})}})

    @classmethod
    def data_sets(cls) -> list[DataSet]:
        from a2abench.benchmarks.crmarena import reference, upstream

        sets = [DataSet("texts", upstream.folder(), tuple(upstream.text_files()),
                        "upstream prompts and evaluator text"),
                DataSet("reference", reference.FOLDER, tuple(reference.reference_files()),
                        "task and schema dumps for --tasks-file / --schema-file",
                        layout="")]  # tasks/ + schema/, as a reference copy
        return sets + [DataSet(f"org {org}", upstream.folder(), (upstream.org_file(org),),
                               "SQLite org for --backend sandbox", large=True)
                       for org in sorted(upstream.manifest().orgs)]

    @classmethod
    def exporters(cls) -> dict[str, Exporter]:
        from a2abench.benchmarks.crmarena.export import paper_scores

        return {"crmarena": paper_scores}

    async def aclose(self) -> None:
        for llm in (self.judge_llm, self.user_llm):
            if llm is not None:
                await llm.aclose()
        if self.backend is not None:
            self.backend.close()
        await self.mcp.aclose()
