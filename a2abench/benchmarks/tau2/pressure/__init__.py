"""Scenario pressure (docs/multi-agent.md): a service agent against an adversarial customer on
the tau2 tasks whose gold contains no write; the database decides."""
