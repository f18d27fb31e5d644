"""Scenario team (docs/multi-agent.md, "Scenario team"): the front agent talks to the user
and holds the read tools; the specialist holds every tool and acts on the front agent's
`delegate` messages; the green mediates, counts and bounds what passes between them."""
