"""Scoring one CRMArena task exactly as upstream's `Evaluator.evaluate` (crmarena.md §1.6).

exact_match: a fast path (the stripped answer equals the single ground truth, case-sensitive),
else extraction by the judge LLM with the task type's prompt and `sorted() == sorted()`;
fuzzy_match: token F1 is the reward, with exact match, BLEU and ROUGE recorded;
privacy_rejection: the judge reads the whole action trajectory and says YES or NO.

Without a judge (`--judge-llm offline`, or upstream prompts unavailable) extraction and the
refusal check are deterministic (`offline.py`) and every verdict says so.

Where upstream's evaluator would raise (e.g. the judge returns `{"extracted_answers": []}`
and it indexes `[0]`), `run_tasks.py` records reward 0; we do the same and say why in
`upstream_error`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from a2abench.benchmarks.crmarena import metrics, offline
from a2abench.benchmarks.crmarena.upstream import UpstreamTexts

Judge = Callable[[str, str], Awaitable[str | None]]  # (system, user) -> reply content


class UpstreamCrash(Exception):
    """Upstream's evaluator would have raised here; the task scores 0."""


@dataclass
class Verdict:
    reward: float
    # fast_path | llm_extraction | offline_extraction | fuzzy | llm_judge | offline_refusal
    path: str
    parsed: Any = None
    components: dict[str, Any] = field(default_factory=dict)
    judge_reply: str | None = None
    upstream_error: str | None = None

    def details(self) -> dict[str, Any]:
        return {"scoring_path": self.path, "parsed_answer": self.parsed,
                "judge_reply": self.judge_reply, "upstream_error": self.upstream_error}


def fast_path(proposed: str, truth: Sequence[str]) -> str | None:
    """The cleaned answer when it equals the only ground truth (upstream's first check)."""
    cleaned = proposed.strip().strip('"').strip("'")
    return cleaned if len(truth) == 1 and cleaned == truth[0] else None


def parse_extraction(content: str | None) -> Any:
    """The judge's extraction as upstream's `parse_answers` reads it, quirks included.

    `json.loads(content)["extracted_answers"]`; if that fails, the heuristic fallback runs,
    but `re` is not imported in upstream's env.py, so what remains is: the stripped content
    as one answer, or ["None"] when it is empty or "none". The value is not checked to be a
    list: a string is indexed and sorted by character. A first element of None makes the
    answer ["None"].
    """
    try:
        # Upstream's: content may be None, which json.loads refuses (caught just below).
        parsed = json.loads(content)["extracted_answers"]  # type: ignore[arg-type]
    except Exception:  # upstream catches everything here and falls back
        if content is None:
            raise UpstreamCrash("the judge returned no content (upstream: AttributeError on "
                                "None.strip())") from None
        raw = content.strip()
        parsed = [raw] if raw and raw.lower() != "none" else ["None"]
    try:
        if parsed[0] is None:
            parsed = ["None"]
    except (IndexError, KeyError, TypeError) as exc:
        raise UpstreamCrash(f"extracted_answers {parsed!r} cannot be indexed "
                            f"(upstream: {type(exc).__name__})") from None
    return parsed


def matches(parsed: Any, truth: Sequence[str]) -> bool:
    """`sorted(parsed) == sorted(truth)`; sorting mixed types raises upstream."""
    try:
        ordered = sorted(parsed)
    except TypeError as exc:
        raise UpstreamCrash(f"sorting extracted answers {parsed!r} fails "
                            f"(upstream: TypeError: {exc})") from None
    return bool(ordered == sorted(truth))


class Evaluator:
    """Scores final answers; `judge` None (or no upstream texts) means offline scoring."""

    def __init__(self, judge: Judge | None, texts: UpstreamTexts | None) -> None:
        self.judge = judge if texts is not None else None
        self.texts = texts

    @property
    def offline(self) -> bool:
        return self.judge is None

    async def evaluate(self, *, category: str, metric: str, truth: Sequence[str],
                       proposed: str, trajectory: Sequence[str]) -> Verdict:
        """Score `proposed` (the last respond) against `truth`; `trajectory` is every
        executed query and respond, in order (the privacy judge reads them)."""
        truth = ["None"] if not truth or truth[0] is None else list(truth)
        if metric == "exact_match":
            return await self._exact(category, truth, proposed)
        if metric == "fuzzy_match":
            scores = metrics.all_metrics(proposed, truth[0])
            components = {"f1": scores["f1"], "em": scores["em"], "bleu": scores["bleu"],
                          **scores["rouge"]}
            empty = [name for name, text in (("hypothesis", proposed), ("reference", truth[0]))
                     if not metrics.normalize_answer(text)]
            # upstream's `rouge` raises on an empty text and the task scores 0 (F1 is 0 too)
            crash = f"rouge: {empty[0]} is empty (upstream: ValueError)" if empty else None
            return Verdict(0.0 if empty else float(scores["f1"]), "fuzzy", [proposed],
                           components, upstream_error=crash)
        if metric == "privacy_rejection":
            return await self._privacy(proposed, trajectory)
        raise ValueError(f"unknown reward_metric {metric!r}")

    async def _exact(self, category: str, truth: list[str], proposed: str) -> Verdict:
        cleaned = fast_path(proposed, truth)
        if cleaned is not None:
            return Verdict(1.0, "fast_path", [cleaned], {"exact_match": 1.0})
        if self.judge is None:
            parsed: Any = offline.extract(proposed, category)
            reward = 1.0 if matches(parsed, truth) else 0.0
            return Verdict(reward, "offline_extraction", parsed, {"exact_match": reward})
        assert self.texts is not None
        kind = offline.KIND_BY_CATEGORY.get(category, "ids")
        reply = await self.judge(self.texts.extraction[kind], proposed)
        try:
            parsed = parse_extraction(reply)
            reward = 1.0 if matches(parsed, truth) else 0.0
        except UpstreamCrash as crash:
            return Verdict(0.0, "llm_extraction", None, {"exact_match": 0.0}, reply, str(crash))
        return Verdict(reward, "llm_extraction", parsed, {"exact_match": reward}, reply)

    async def _privacy(self, proposed: str, trajectory: Sequence[str]) -> Verdict:
        if self.judge is None:
            reward = 1.0 if offline.is_refusal(proposed) else 0.0
            return Verdict(reward, "offline_refusal", [proposed], {"privacy_rejection": reward})
        assert self.texts is not None
        user = self.texts.trajectory_prefix + "\n".join(trajectory)
        reply = await self.judge(self.texts.privacy_judge, user)
        if reply is None:
            return Verdict(0.0, "llm_judge", [proposed], {"privacy_rejection": 0.0}, None,
                           "the judge returned no content (upstream: AttributeError)")
        reward = 1.0 if "yes" in reply.strip().lower() else 0.0  # upstream: substring "yes"
        return Verdict(reward, "llm_judge", [proposed], {"privacy_rejection": reward}, reply)
