"""Bradley–Terry ratings (a2abench/rating): the comparisons, the fit, the anchor, the
bootstrap, from in-process matches."""

from __future__ import annotations

import math

import pytest

from a2abench.rating import anchor_of
from a2abench.rating.bt import Game, fit, games, rate_role
from a2abench.rating.sources import Rated, Seat

TASKS = [f"t{i}" for i in range(8)]


def _match(task: str, trial: int, agent: str, user: str, score: float | None,
           user_score: float | None = None, ref_user: bool = False) -> Rated:
    return Rated(f"airline/{task}", trial, 100 + trial,
                 {"agent": Seat(agent, "agent", agent == "REF"),
                  "user": Seat(user, "user", ref_user)},
                 {"agent": score, "user": score if user_score is None else user_score})


def _cross() -> list[Rated]:
    """gold and its mirror solve every task with the faithful user (but t0 trial 1), the
    refuser solves none; the hang-up user fails with everyone."""
    out = []
    for task in TASKS:
        for trial in (0, 1):
            for agent in ("gold", "mirror", "refuser"):
                solved = agent != "refuser" and not (task == "t0" and trial == 1)
                out.append(_match(task, trial, agent, "faithful", 1.0 if solved else 0.0))
                out.append(_match(task, trial, agent, "hangs-up", 0.0))
    return out


def test_comparisons_need_the_same_partner_and_task_trial() -> None:
    found = games(_cross(), "agent")
    # per task-trial and user: 3 agents -> 3 pairs
    assert len(found) == len(TASKS) * 2 * 2 * 3
    gold_vs_refuser = [g for g in found if {g.a, g.b} == {"gold", "refuser"}]
    assert sum(g.a_wins if g.a == "gold" else 1 - g.a_wins for g in gold_vs_refuser) == \
        len(TASKS) * 2 - 1 + 0.5 * (len(TASKS) * 2 + 1)


def test_the_fit_orders_as_built_and_the_intervals_separate() -> None:
    rated = rate_role(games(_cross(), "agent"), "refuser", bootstrap=200, seed=7)
    by = {p["participant"]: p for p in rated["players"]}
    assert by["refuser"]["rating"] == 1000.0
    assert by["gold"]["rating"] > 1000 and by["gold"]["ci_low"] > by["refuser"]["ci_high"]
    mirror = next(q for q in rated["pairs"] if {q["a"], q["b"]} == {"gold", "mirror"})
    assert mirror["p_a"] == pytest.approx(0.5, abs=1e-3)
    assert mirror["ci_low"] <= 0.5 <= mirror["ci_high"]
    users = rate_role(games(_cross(), "user"), "hangs-up", bootstrap=200, seed=7)
    assert {p["participant"]: p["rating"] > 1000 for p in users["players"]} == {
        "faithful": True, "hangs-up": False}


def test_the_same_seed_gives_the_same_output_and_another_seed_other_intervals() -> None:
    one = rate_role(games(_cross(), "agent"), "refuser", bootstrap=100, seed=3)
    two = rate_role(games(list(reversed(_cross())), "agent"), "refuser", bootstrap=100, seed=3)
    assert one == two  # match order does not matter either


def test_draws_are_half_wins_and_the_fit_matches_the_closed_form() -> None:
    """Two players, a wins 3, b wins 1, 4 draws: a's share is 5/8, θ = ln(5/3) (ridge aside)."""
    wins = [Game("c", "a", "b", 1.0)] * 3 + [Game("c", "a", "b", 0.0)] + \
        [Game("c", "a", "b", 0.5)] * 4
    rated = rate_role(wins, "b", bootstrap=0, seed=0)
    a = next(p for p in rated["players"] if p["participant"] == "a")
    assert a["rating"] == pytest.approx(1000 + 400 * math.log10(5 / 3), abs=2.0)
    assert rated["pairs"][0]["n"] == 8 and rated["pairs"][0]["draws"] == 4


def test_a_player_that_never_lost_stays_finite() -> None:
    import numpy as np

    theta = fit(["a", "b"], "b", np.array([[0.0, 10.0], [0.0, 0.0]]))
    assert math.isfinite(theta[0]) and theta[0] > 3


def test_the_anchor_is_the_reference_partner() -> None:
    matches = [_match("t0", 0, "agent-x", "REFUSER", 1.0, ref_user=True),
               _match("t0", 0, "agent-y", "REFUSER", 0.0, ref_user=True)]
    assert anchor_of(matches, "user") == ("REFUSER", True)
    assert anchor_of(matches, "agent")[1] is False


def test_a_forfeit_counts_as_zero_for_its_side_and_a_partners_forfeit_not_at_all() -> None:
    matches = [_match("t0", 0, "a", "u", None, 0.0),  # u forfeited: agent a not counted
               _match("t0", 0, "b", "u", 1.0),
               _match("t1", 0, "a", "u", 1.0), _match("t1", 0, "b", "u", 1.0)]
    agent_games = games(matches, "agent")
    assert [(g.cluster, g.a_wins) for g in agent_games] == [("airline/t1", 0.5)]


def test_players_without_a_path_to_the_anchor_are_not_rated() -> None:
    found = [Game("c", "a", "b", 1.0), Game("c", "x", "y", 1.0)]
    rated = rate_role(found, "a", bootstrap=10, seed=0)
    assert {p["participant"] for p in rated["players"]} == {"a", "b"}
    assert rated["unrated"] == ["x", "y"]


def test_a_fit_too_large_is_refused_with_a_clear_error() -> None:
    from a2abench.errors import RecordsError

    found = [Game("c", f"p{i:05d}", "anchor", 1.0) for i in range(5000)]
    with pytest.raises(RecordsError, match="more than `rate` fits at once"):
        rate_role(found, "anchor", bootstrap=0, seed=0)


def test_the_fit_is_the_optimum_from_any_start() -> None:
    """At the returned θ (re-centred: the ridge's optimum has Σθ = 0) the loss's gradient
    vanishes, and a start far off (where undamped Newton steps overshoot) ends there too."""
    import numpy as np

    from a2abench.rating.bt import RIDGE

    rng = np.random.default_rng(5)
    wins = rng.integers(0, 6, (6, 6)).astype(float) * (1 - np.eye(6))
    wins[0, 1:] = 0.0  # player 0 never wins: its θ rests on the ridge alone
    players = [f"p{i}" for i in range(6)]
    theta = fit(players, "p3", wins)
    centred = theta - theta.mean()
    p = 1.0 / (1.0 + np.exp(-(centred[:, None] - centred[None, :])))
    grad = -(wins.sum(axis=1) - ((wins + wins.T) * p).sum(axis=1)) + 2 * RIDGE * centred
    assert np.max(np.abs(grad)) < 1e-8 and theta[3] == 0.0
    far = fit(players, "p3", wins, start=np.array([40.0, -40.0, 25.0, 0.0, -30.0, 35.0]))
    assert np.allclose(far, theta, atol=1e-8)
