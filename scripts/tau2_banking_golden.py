"""Record upstream tau2-bench's banking_knowledge behaviour as hashes (tests/tau2/golden).

Run with a Python that has upstream tau2-bench installed at the pinned commit a2c0247, from
the a2abench checkout (only hashes and scores are written; no upstream content):

    TAU2_DATA_DIR=../shared/data python scripts/tau2_banking_golden.py \
        > tests/tau2/golden/banking_knowledge.json

For every corpus sequence (tests/tau2/banking_corpus.py): sha256 of each tool output, its
error flag, the final DB hash; the rewards of the gold, perturbed and do-nothing trajectories;
BM25 rankings and grep outputs; sha256 of each offline variant's policy and tool schemas.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.tau2 import banking_corpus as corpus

VARIANTS = ["no_knowledge", "full_kb", "golden_retrieval", "bm25", "bm25_grep", "grep_only"]
GREETING = "Hi! How can I help you today?"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def main() -> None:
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import NLAssertionCheck, SimulationRun, TerminationReason
    from tau2.data_model.tasks import Task
    from tau2.domains.banking_knowledge.environment import get_environment
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
    from tau2.evaluator.evaluator_nl_assertions import NLAssertionsEvaluator
    from tau2.runner.build import _derive_read_log_allowlist

    # NL assertions (task_102) are judged "met" without an LLM, like tests' all_true_judge.
    NLAssertionsEvaluator.evaluate_nl_assertions = classmethod(  # type: ignore[method-assign]
        lambda cls, trajectory, assertions: [
            NLAssertionCheck(nl_assertion=a, met=True, justification="ok") for a in assertions])

    root = Path(os.environ["TAU2_DATA_DIR"])
    tasks = {t["id"]: Task.model_validate(t) for t in corpus.tasks(root)}

    def env_for(task: Task) -> Any:
        # The gold actions use no retrieval tool; no_knowledge skips building BM25 per env.
        kwargs = {"retrieval_variant": "no_knowledge", "task": task,
                  "read_log_allowlist": _derive_read_log_allowlist(task)}
        env = get_environment(**kwargs)
        init = task.initial_state
        env.set_state(initialization_data=init.initialization_data if init else None,
                      initialization_actions=init.initialization_actions if init else None,
                      message_history=[])
        return env, kwargs

    def score(task: Task, messages: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        sim = SimulationRun(id="x", task_id=task.id, start_time="", end_time="", duration=0.0,
                            termination_reason=TerminationReason.USER_STOP, messages=messages)
        info = evaluate_simulation(sim, task, EvaluationType.ALL, solo_mode=False,
                                   domain="banking_knowledge", env_kwargs=kwargs)
        return {"reward": info.reward,
                "breakdown": {k.value: v for k, v in (info.reward_breakdown or {}).items()},
                "db_match": info.db_check.db_match if info.db_check else None}

    out: dict[str, Any] = {"sequences": {}, "trajectories": {}}
    for seq in corpus.sequences(root):
        task = tasks[seq["task"]]
        env, kwargs = env_for(task)
        calls, messages = [], [AssistantMessage(role="assistant", content=GREETING),
                               UserMessage(role="user", content="Hello.")]
        for i, c in enumerate(seq["calls"]):
            call = ToolCall(id=f"c{i}", name=c["name"], arguments=c["arguments"],
                            requestor=c["requestor"])
            result = env.get_response(call)
            content = result.content or ""
            # sha256 prefixes, as tests/tau2/test_banking.py compares them (SHORT = 16)
            calls.append([sha(content)[:16], bool(result.error),
                          sha(corpus.prose_free(c, content))[:16]])
            cls = UserMessage if c["requestor"] == "user" else AssistantMessage
            messages += [cls(role=c["requestor"] if c["requestor"] == "user" else "assistant",
                             content=None, tool_calls=[call]), result]
        out["sequences"][seq["id"]] = {"calls": calls, "db": env.get_db_hash()[:16]}
        messages.append(UserMessage(role="user", content="Thanks. ###STOP###"))
        try:
            out["trajectories"][seq["id"]] = score(task, messages, kwargs)
        except Exception as exc:  # recorded: our side must raise too
            out["trajectories"][seq["id"]] = {"exception": type(exc).__name__}
    for task in tasks.values():
        _, kwargs = env_for(task)
        nothing = [AssistantMessage(role="assistant", content=GREETING),
                   UserMessage(role="user", content="Bye. ###STOP###")]
        out["trajectories"][f"nothing:{task.id}"] = score(task, nothing, kwargs)

    env = get_environment(retrieval_variant="bm25_grep", task=next(iter(tasks.values())))
    pipeline = env.tools._kb_pipeline
    out["bm25"] = {q: [[d, s] for d, s in pipeline.retrieve(q, return_timing=True).results]
                   for q in corpus.QUERIES}
    out["grep"] = {p: sha(env.tools.grep(p)) for p in corpus.GREP_PATTERNS}
    out["policies"], out["schemas"], out["schema_order"] = {}, {}, {}
    first = next(iter(tasks.values()))
    for variant in VARIANTS:
        e = get_environment(retrieval_variant=variant, task=first)
        out["policies"][variant] = sha(e.policy)
        out["schemas"][variant] = {t.name: sha(json.dumps(t.openai_schema, sort_keys=True))
                                   for t in e.get_tools()}
        out["schema_order"][variant] = [t.name for t in e.get_tools()]
    user = get_environment(retrieval_variant="bm25_grep", task=first)
    out["user_schemas"] = {t.name: sha(json.dumps(t.openai_schema, sort_keys=True))
                           for t in user.get_user_tools()}
    json.dump(out, sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
