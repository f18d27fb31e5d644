"""Scenario dual (docs/multi-agent.md): the user of tau2 as an A2A participant, the offline
reference agent, and the user role's violations."""
