"""Bradley–Terry ratings per role, with bootstrap intervals (docs/multi-agent.md, "Ratings").

Two participants of a role are compared wherever they faced the same partners on the same
task-trial (same task, trial and seed): the one whose role scored higher wins, equal
scores are a draw (half a win each), and a forfeit is a score of 0 for the side that
forfeited (a match its partner forfeited is not counted). The strengths θ maximise the
Bradley–Terry likelihood P(a beats b) = σ(θa − θb) (Newton's method on the exact
gradient and Hessian) under a weak ridge (0.01 Σθ²) that keeps a participant
that never lost finite; they are then shifted so that the role's reference partner has
θ = 0 (rating 1000: a single run that plays the reference partner is meaningful alone, and
no state is shared between runs). Ratings are on the Elo scale, 1000 + 400 θ / ln 10.

Intervals: a percentile bootstrap over tasks (trials of a task are correlated, so whole
tasks are resampled), from a seeded generator: the same inputs and seed give the same
output, byte for byte. Participants with no path of comparisons to the anchor get no
rating.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from a2abench.errors import RecordsError
from a2abench.rating.sources import Rated

RIDGE = 0.01
ELO = 400 / math.log(10)
BASE = 1000.0
FEW = 10  # comparisons below which a pair is flagged
MAX_STEPS = 200  # Newton steps of a fit (it converges in under 20)
MAX_HALVINGS = 60  # of one step's length in the line search (2^-60: no progress left)
GTOL = 1e-10  # the largest gradient component at convergence
MAX_CELLS = 20_000_000  # tasks x participants^2 of the win tables (160 MB of floats)


@dataclass(frozen=True)
class Game:
    cluster: str
    a: str
    b: str
    a_wins: float  # 1, 0.5 or 0


def games(matches: Sequence[Rated], role: str) -> list[Game]:
    """Every comparison of two participants of `role` (see the module docstring)."""
    units: dict[tuple[Any, ...], dict[str, float]] = defaultdict(dict)
    for m in matches:
        seat, score = m.seats.get(role), m.scores.get(role)
        if seat is None or score is None:
            continue
        partners = tuple(sorted((r, s.identity) for r, s in m.seats.items() if r != role))
        units[(m.cluster, m.trial, m.seed, partners)][seat.identity] = score
    out = []
    for (cluster, *_), scores in sorted(units.items(), key=lambda kv: repr(kv[0])):
        players = sorted(scores)
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                sa, sb = scores[a], scores[b]
                out.append(Game(cluster, a, b, 1.0 if sa > sb else 0.0 if sa < sb else 0.5))
    return out


def fit(players: Sequence[str], anchor: str, wins: Any, start: Any = None) -> Any:
    """θ (numpy array, anchor at 0) from `wins[i, j]`, i's (half-)wins over j; `start`: a
    θ to start from (the bootstrap starts from the full fit's). Every θ is fitted, under
    the same ridge, and then shifted so that the anchor's is 0: fixing the anchor first
    would let the ridge pull the others towards it, unevenly (two identical players, one
    of them the anchor, would then differ).

    Newton's method on the exact gradient and Hessian, with a backtracking line search: the
    ridge makes the loss strictly convex (Hessian ≥ 2·RIDGE), so it converges from any
    start, quadratically once close (a few steps). It had been scipy's `trust-exact`, which
    gives the same θ; importing scipy.optimize alone cost ~1.1 s of CPU per `rate`."""
    import numpy as np

    total = wins + wins.T
    won = np.sum(wins, axis=1)
    ridge = 2 * RIDGE * np.eye(len(players))

    def loss(theta: Any) -> tuple[float, Any]:
        diff = theta[:, None] - theta[None, :]
        log_p = -np.logaddexp(0.0, -diff)  # log σ(θi − θj)
        value = -float(np.sum(wins * log_p)) + RIDGE * float(theta @ theta)
        grad = -(won - np.sum(total * np.exp(log_p), axis=1)) + 2 * RIDGE * theta
        return value, grad

    def hessian(theta: Any) -> Any:
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        weights = total * p * p.T  # σ(d)·σ(−d): the curvature of each pair
        return np.diag(np.sum(weights, axis=1)) - weights + ridge

    theta = np.zeros(len(players)) if start is None else np.asarray(start, dtype=float)
    value, grad = loss(theta)
    for _ in range(MAX_STEPS):
        if float(np.max(np.abs(grad), initial=0.0)) <= GTOL:
            return theta - theta[list(players).index(anchor)]
        step = np.linalg.solve(hessian(theta), grad)
        decrement = float(grad @ step)  # λ², > 0: the Hessian is positive definite
        for halving in range(MAX_HALVINGS + 1):  # bounded: a NaN never passes the test
            t = 0.5 ** halving
            trial = theta - t * step
            trial_value, trial_grad = loss(trial)
            # Close to the optimum (λ² tiny) the full step is taken: the loss's change is
            # then below its rounding, which a sufficient-decrease test cannot see.
            if decrement < 1e-12 or trial_value <= value - 0.25 * t * decrement:
                break
        else:
            break  # no step decreases the loss: not converging
        theta, value, grad = trial, trial_value, trial_grad
    raise RuntimeError(f"the Bradley–Terry fit did not converge in {MAX_STEPS} Newton steps "
                       "(or met a non-finite win count)")


def connected(players: Sequence[str], anchor: str, played: set[tuple[str, str]]) -> set[str]:
    """The players with a path of comparisons to the anchor."""
    neighbours: dict[str, list[str]] = defaultdict(list)
    for a, b in played:
        neighbours[a].append(b)
        neighbours[b].append(a)
    reach, todo = {anchor}, [anchor]
    while todo:
        for other in neighbours[todo.pop()]:
            if other not in reach:
                reach.add(other)
                todo.append(other)
    return reach & set(players)


def rate_role(all_games: Sequence[Game], anchor: str, *, bootstrap: int, seed: int,
              few: int = FEW) -> dict[str, Any]:
    """Ratings, intervals and the pair table of one role's games."""
    import numpy as np

    played = {(g.a, g.b) for g in all_games}
    everyone = sorted({p for pair in played for p in pair} | {anchor})
    players = sorted(connected(everyone, anchor, played))
    index = {p: i for i, p in enumerate(players)}
    clusters = sorted({g.cluster for g in all_games})
    if len(clusters) * len(players) ** 2 > MAX_CELLS:
        raise RecordsError(f"{len(players)} participants over {len(clusters)} tasks are more "
                           "than `rate` fits at once", hint="Rate fewer runs or results files "
                                                            "together.")
    per_cluster = np.zeros((len(clusters), len(players), len(players)))
    where = {c: k for k, c in enumerate(clusters)}
    for g in all_games:
        if g.a in index and g.b in index:
            i, j, k = index[g.a], index[g.b], where[g.cluster]
            per_cluster[k, i, j] += g.a_wins
            per_cluster[k, j, i] += 1.0 - g.a_wins
    theta = fit(players, anchor, per_cluster.sum(axis=0))
    rng = np.random.Generator(np.random.PCG64(seed))
    draws = np.array([fit(players, anchor, np.tensordot(
        np.bincount(rng.integers(0, len(clusters), len(clusters)), minlength=len(clusters)),
        per_cluster, axes=1), theta) for _ in range(bootstrap)]) if clusters and bootstrap \
        else None
    return {"anchor": anchor,
            "players": [_player(p, theta[index[p]], draws, index[p], all_games)
                        for p in players],
            "unrated": [p for p in everyone if p not in index],
            "pairs": _pairs(all_games, index, theta, draws, few)}


def _elo(theta: float) -> float:
    return round(BASE + ELO * float(theta), 1)


def _percentiles(values: Any) -> tuple[float, float]:
    import numpy as np

    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _player(p: str, theta: float, draws: Any, i: int, all_games: Sequence[Game]
            ) -> dict[str, Any]:
    mine = [g for g in all_games if p in (g.a, g.b)]
    won = sum(g.a_wins if g.a == p else 1.0 - g.a_wins for g in mine)
    low, high = _percentiles(draws[:, i]) if draws is not None else (theta, theta)
    return {"participant": p, "rating": _elo(theta), "ci_low": _elo(low),
            "ci_high": _elo(high), "win_vs_anchor": round(_sigmoid(theta), 4),
            "games": len(mine), "score": round(won, 1)}


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _pairs(all_games: Sequence[Game], index: dict[str, int], theta: Any, draws: Any,
           few: int) -> list[dict[str, Any]]:
    tally: dict[tuple[str, str], list[float]] = defaultdict(list)
    for g in all_games:
        tally[(g.a, g.b)].append(g.a_wins)
    out = []
    for (a, b), results in sorted(tally.items()):
        row: dict[str, Any] = {"a": a, "b": b, "n": len(results),
                               "a_wins": sum(r == 1.0 for r in results),
                               "draws": sum(r == 0.5 for r in results),
                               "b_wins": sum(r == 0.0 for r in results),
                               "few": len(results) < few}
        if a in index and b in index:
            i, j = index[a], index[b]
            row["p_a"] = round(_sigmoid(theta[i] - theta[j]), 4)
            if draws is not None:
                import numpy as np

                low, high = _percentiles(1.0 / (1.0 + np.exp(-(draws[:, i] - draws[:, j]))))
                row["ci_low"], row["ci_high"] = round(low, 4), round(high, 4)
        out.append(row)
    return out
