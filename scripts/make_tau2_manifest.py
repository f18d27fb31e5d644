"""Regenerate a2abench/benchmarks/tau2/manifest.json from a tau2-bench checkout.

Usage: python scripts/make_tau2_manifest.py REPO_ROOT COMMIT
REPO_ROOT holds `data/tau2/...` and `src/tau2/...` at COMMIT (the pinned upstream commit).
Only paths and sha256 digests are written; no upstream content is copied.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

DOMAIN_DATA = {
    "airline": ["db.json", "tasks.json", "split_tasks.json", "policy.md"],
    "retail": ["db.json", "tasks.json", "split_tasks.json", "policy.md"],
    "mock": ["db.json", "user_db.json", "tasks.json", "split_tasks.json", "policy.md",
             "policy_solo.md"],
    "telecom": ["db.toml", "user_db.toml", "tasks.json", "split_tasks.json", "main_policy.md",
                "tech_support_manual.md", "tech_support_workflow.md", "main_policy_solo.md",
                "tech_support_workflow_solo.md"],
}
DOMAIN_SOURCES = {
    "airline": ["tools.py", "data_model.py"],
    "retail": ["tools.py", "data_model.py"],
    "mock": ["tools.py", "user_tools.py", "data_model.py", "user_data_model.py"],
    "telecom": ["tools.py", "user_tools.py", "data_model.py", "user_data_model.py"],
    "banking_knowledge": ["tools.py", "retrieval_mixins.py"],
}
# Domains listed file by file from the checkout (banking: tasks/, documents/, prompts/).
TREE_DOMAINS = ["banking_knowledge"]
COMMON = [
    "data/tau2/user_simulator/simulation_guidelines.md",
    "data/tau2/user_simulator/simulation_guidelines_tools.md",
    "src/tau2/evaluator/evaluator_nl_assertions.py",
    "src/tau2/agent/llm_agent.py",
    # the agentify prompt profile's text (a2abench/benchmarks/tau2/profiles.py)
    "src/experiments/agentify_tau_bench/src/agentify_tau_bench/green_agent/agent.py",
    # banking's LLM reranker prompt and Qwen query instruction (domains/banking/llm_search.py)
    "src/tau2/knowledge/postprocessors/pointwise_llm_reranker.py",
    "src/tau2/knowledge/embedders/openrouter_embedder.py",
]


def main(root: Path, commit: str) -> None:
    paths = list(COMMON)
    for domain, names in DOMAIN_DATA.items():
        paths += [f"data/tau2/domains/{domain}/{name}" for name in names]
    for domain in TREE_DOMAINS:
        folder = root / "data/tau2/domains" / domain
        paths += [f"data/tau2/domains/{domain}/{p.relative_to(folder).as_posix()}"
                  for p in sorted(folder.rglob("*")) if p.is_file()]
    for domain, names in DOMAIN_SOURCES.items():
        paths += [f"src/tau2/domains/{domain}/{name}" for name in names]
    files = {}
    for rel in sorted(paths):
        body = (root / rel).read_bytes()
        files[rel] = {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}
    out = Path(__file__).resolve().parents[1] / "a2abench/benchmarks/tau2/manifest.json"
    out.write_text(json.dumps({"repository": "sierra-research/tau2-bench", "commit": commit,
                               "files": files}, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
