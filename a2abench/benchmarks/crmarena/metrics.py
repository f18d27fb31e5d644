"""Free-text metrics for CRMArena's fuzzy_match tasks, computed like upstream's utils.py.

Everything is computed on SQuAD-style normalised text (lower case, `_` and punctuation,
curly quotes included, become spaces, articles a/an/the dropped, whitespace collapsed). The
score of a fuzzy task is token F1, the number the papers report; exact match, BLEU (sacrebleu
sentence BLEU / 100, upstream's default `BLEU()`) and ROUGE-1/2/L F-measures are recorded
beside it.

ROUGE comes from Google's `rouge-score` package, not upstream's `rouge==1.0.1`; the numbers
differ (docs/crmarena.md): `rouge` counts each distinct n-gram once and adds 1e-8 to the F
denominator, its ROUGE-L is summary-level union LCS over distinct words, and it raises on an
empty hypothesis; `rouge-score` counts n-grams with multiplicity, computes sentence-level LCS
and keeps only [a-z0-9] tokens. ROUGE is informational here: no score depends on it.
"""

from __future__ import annotations

import logging
import re
import string
from collections import Counter
from functools import cache
from typing import Any

_PUNCTUATION = frozenset(string.punctuation + "‘’´`")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Upstream's normalize_answer: `_` to space, lower, punctuation to spaces, articles out."""
    text = text.replace("_", " ").lower()
    text = "".join(" " if ch in _PUNCTUATION else ch for ch in text)
    return " ".join(_ARTICLES.sub(" ", text).split()).strip()


def exact_match(prediction: str, truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(truth)


def f1(prediction: str, truth: str) -> float:
    """Token F1 over normalised words (0 when nothing is shared)."""
    pred, gold = normalize_answer(prediction).split(), normalize_answer(truth).split()
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


class _QuietSentenceBLEU(logging.Filter):
    """sacrebleu logs "enable effective_order" on every sentence_score of a default BLEU();
    upstream uses the default, so we keep it and drop only that line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "effective_order" not in record.getMessage()


@cache
def _bleu() -> Any:
    from sacrebleu.metrics.bleu import BLEU

    logging.getLogger("sacrebleu").addFilter(_QuietSentenceBLEU())
    return BLEU()


@cache
def _rouge() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])


def bleu(prediction: str, truth: str) -> float:
    score = _bleu().sentence_score(hypothesis=normalize_answer(prediction),
                                   references=[normalize_answer(truth)])
    return float(score.score) / 100


def rouge(prediction: str, truth: str) -> dict[str, float]:
    scores = _rouge().score(normalize_answer(truth), normalize_answer(prediction))
    return {"rouge-1": float(scores["rouge1"].fmeasure),
            "rouge-2": float(scores["rouge2"].fmeasure),
            "rouge-l": float(scores["rougeL"].fmeasure)}


def all_metrics(prediction: str, truth: str) -> dict[str, Any]:
    """Upstream's get_all_metrics: {"em", "f1", "bleu", "rouge": {...}}."""
    return {"em": exact_match(prediction, truth), "f1": f1(prediction, truth),
            "bleu": bleu(prediction, truth), "rouge": rouge(prediction, truth)}
