"""tau2 `banking_knowledge` (tau-knowledge): transactional DB, discoverable tools, retrieval.

Modules: `state` (the DB and upstream's query helpers), `ids` (deterministic ids and the fixed
clock), `tools` (agent toolkit core and the discoverable-tool protocol), `agent_*` (the agent's
discoverable tools), `user_tools`, `retrieval` (variants, BM25/grep, prompts), `domain`.
"""
