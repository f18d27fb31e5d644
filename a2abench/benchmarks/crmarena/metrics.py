"""Free-text metrics for CRMArena's fuzzy_match tasks, computed like upstream's utils.py.

Everything is computed on SQuAD-style normalised text (lower case, `_` and punctuation,
curly quotes included, become spaces, articles a/an/the dropped, whitespace collapsed). The
score of a fuzzy task is token F1, the number the papers report; exact match, BLEU (sacrebleu
sentence BLEU / 100, upstream's default `BLEU()`) and ROUGE-1/2/L F-measures are recorded
beside it.

ROUGE is upstream's own: the `rouge==1.0.1` package with its defaults (`Rouge().get_scores`),
so the numbers are upstream's. It is informational here: no reward depends on it. Where
upstream's `rouge` raises (an empty normalised hypothesis or reference) we record 0.0 and the
evaluator names the upstream error.
"""

from __future__ import annotations

import logging
import re
import string
from collections import Counter
from functools import cache
from typing import Any

_PUNCTUATION = str.maketrans({ch: " " for ch in string.punctuation + "‘’´`"})
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Upstream's normalize_answer: `_` to space, lower, punctuation to spaces, articles out."""
    text = text.replace("_", " ").lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split()).strip()


def exact_match(prediction: str, truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(truth)


def f1(prediction: str, truth: str) -> float:
    """Token F1 over normalised words (0 when nothing is shared)."""
    return _f1(normalize_answer(prediction), normalize_answer(truth))


def _f1(pred_text: str, gold_text: str) -> float:
    pred, gold = pred_text.split(), gold_text.split()
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
    from rouge import Rouge

    return Rouge()


def bleu(prediction: str, truth: str) -> float:
    return _bleu_of(normalize_answer(prediction), normalize_answer(truth))


def _bleu_of(hyp: str, ref: str) -> float:
    score = _bleu().sentence_score(hypothesis=hyp, references=[ref])
    return float(score.score) / 100


def rouge(prediction: str, truth: str) -> dict[str, float]:
    """Upstream's rouge_score: the F of ROUGE-1, -2 and -L (0.0 where upstream raises)."""
    return _rouge_of(normalize_answer(prediction), normalize_answer(truth))


def _rouge_of(hyp: str, ref: str) -> dict[str, float]:
    if not hyp or not ref:  # upstream: ValueError (reported by the evaluator)
        return {"rouge-1": 0.0, "rouge-2": 0.0, "rouge-l": 0.0}
    score = _rouge().get_scores(hyps=hyp, refs=ref)[0]
    return {name: float(score[name]["f"]) for name in ("rouge-1", "rouge-2", "rouge-l")}


def all_metrics(prediction: str, truth: str) -> dict[str, Any]:
    """Upstream's get_all_metrics: {"em", "f1", "bleu", "rouge": {...}}, each on the same
    normalised texts (normalised once here, four times upstream)."""
    pred, gold = normalize_answer(prediction), normalize_answer(truth)
    return {"em": pred == gold, "f1": _f1(pred, gold), "bleu": _bleu_of(pred, gold),
            "rouge": _rouge_of(pred, gold)}
