"""The Bradley–Terry fit itself (a2abench/rating/bt.py `fit`): Newton's method must reach the
maximum of the ridge-penalised likelihood, from any start, on win tables of every shape."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from a2abench.rating import bt


def _gradient(wins: Any, theta: Any) -> Any:
    total = wins + wins.T
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    return -(wins.sum(axis=1) - np.sum(total * p, axis=1)) + 2 * bt.RIDGE * theta


def _tables(count: int) -> list[Any]:
    """Random win tables: 2-15 players, draws, lopsided strengths, players who never lost."""
    rng = np.random.default_rng(7)
    out = []
    for _ in range(count):
        n = int(rng.integers(2, 16))
        wins = np.zeros((n, n))
        strength = rng.normal(0, rng.choice([0.5, 2.0, 6.0]), n)
        games = int(rng.integers(1, 60))  # drawn at once: a draw per game cost ~40 µs
        i = rng.integers(n, size=games)
        j = (i + rng.integers(1, n, size=games)) % n  # any other player, uniformly
        r = rng.random(games)
        draw = r < 0.1
        i_won = ~draw & (r < 1 / (1 + np.exp(strength[j] - strength[i])))
        j_won = ~draw & ~i_won
        np.add.at(wins, (i[draw], j[draw]), 0.5)
        np.add.at(wins, (j[draw], i[draw]), 0.5)
        np.add.at(wins, (i[i_won], j[i_won]), 1)
        np.add.at(wins, (j[j_won], i[j_won]), 1)
        if rng.random() < 0.3:
            wins[:, int(rng.integers(n))] = 0  # one player never lost
        out.append(wins)
    return out


def test_the_fit_is_the_penalised_maximum_from_any_start() -> None:
    # The gradients of all players sum to 2·RIDGE·Σθ, so at the optimum Σθ = 0: the fitted θ
    # before the anchor's shift is the returned one minus its mean.
    rng = np.random.default_rng(8)
    for wins in _tables(150):
        players = [f"p{i}" for i in range(len(wins))]
        theta = bt.fit(players, "p0", wins)
        assert theta[0] == 0.0 and np.all(np.isfinite(theta))
        assert np.max(np.abs(_gradient(wins, theta - theta.mean()))) <= 1e-9
        again = bt.fit(players, "p0", wins, theta + rng.normal(0, 3, len(wins)))
        assert np.max(np.abs(again - theta)) <= 1e-8


def test_a_fit_that_does_not_converge_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bt, "MAX_STEPS", 1)
    wins = np.array([[0.0, 3.0], [1.0, 0.0]])
    with pytest.raises(RuntimeError, match="did not converge in 1 Newton steps"):
        bt.fit(["a", "b"], "a", wins)


def test_a_non_finite_win_table_ends_in_an_error_not_a_hang() -> None:
    wins = np.array([[0.0, np.nan], [1.0, 0.0]])
    with np.errstate(all="ignore"), pytest.raises(RuntimeError, match="non-finite win count"):
        bt.fit(["a", "b"], "a", wins)
