"""Free-text metrics (upstream utils.py): normalisation, token F1, BLEU, ROUGE."""

from __future__ import annotations

import logging

import pytest

from a2abench.benchmarks.crmarena import metrics


@pytest.mark.parametrize(("text", "normal"), [
    ("The_Quick, brown ‘fox’!", "quick brown fox"),
    ("An apple a day", "apple day"),
    ("  Multiple   spaces\tand\nlines ", "multiple spaces and lines"),
    ("It's `quoted´", "it s quoted"),
    ("the", ""),
])
def test_normalisation_is_squad_style(text: str, normal: str) -> None:
    assert metrics.normalize_answer(text) == normal


def test_token_f1() -> None:
    assert metrics.f1("Advanced encryption", "advanced encryption.") == 1.0
    assert metrics.f1("encryption and MFA", "Advanced encryption and multi-factor "
                                            "authentication") == pytest.approx(
        2 * (2 / 3) * (2 / 6) / (2 / 3 + 2 / 6))  # "multi-factor" is two tokens
    assert metrics.f1("nothing shared", "entirely different") == 0.0
    assert metrics.f1("", "something") == 0.0
    assert metrics.f1("x x x y", "x y") == pytest.approx(2 * (2 / 4) * 1 / (2 / 4 + 1))
    assert metrics.f1("a a a b", "a b") == 1.0  # "a" is an article: both are "b"


def test_all_metrics(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    same = metrics.all_metrics("Robust encryption protocols and audits.",
                               "robust encryption protocols and audits")
    assert same["em"] is True and same["f1"] == 1.0 and same["bleu"] == pytest.approx(1.0)
    assert same["rouge"] == pytest.approx({"rouge-1": 1.0, "rouge-2": 1.0, "rouge-l": 1.0})
    # Under four words there is no 4-gram: sentence BLEU without effective_order (upstream's
    # default BLEU()) is 0 even for an exact match.
    assert metrics.all_metrics("Robust encryption protocols", "robust encryption protocols")[
        "bleu"] == 0.0
    part = metrics.all_metrics("protocols for encryption", "robust encryption protocols")
    assert part["em"] is False and 0 < part["f1"] < 1 and part["bleu"] < 1
    assert part["rouge"]["rouge-1"] == pytest.approx(2 / 3)
    # sacrebleu's "enable effective_order" line (upstream's default BLEU) is not logged
    assert not [r for r in caplog.records if "effective_order" in r.getMessage()]


def test_rouge_is_upstreams_rouge_1_0_1() -> None:
    # Issue 18 item 6: upstream's `rouge` counts each distinct n-gram once and adds 1e-8 to the
    # F denominator (rouge-score would count "billing" twice: 2/3 precision, F 0.8).
    scores = metrics.rouge("Billing, billing errors!", "billing errors")
    assert scores["rouge-1"] == 2 * (1 * 1) / (1 + 1 + 1e-8)
    assert scores["rouge-2"] == 2 * (0.5 * 1) / (0.5 + 1 + 1e-8)  # {billing billing, billing
    # errors} against {billing errors}
    assert metrics.rouge("", "billing errors") == {"rouge-1": 0.0, "rouge-2": 0.0,
                                                   "rouge-l": 0.0}  # upstream raises here
