"""Generic, answer-blind text features of an item: they need no parser, so they work on any
rendering (lengths, sentences, vocabulary, words used once, negation words, numbers, overlap
between the question and the text)."""

from __future__ import annotations

import re
from collections import Counter

WORD = re.compile(r"[A-Za-z][A-Za-z0-9'+\-]*")
SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
NEGATION = re.compile(
    r"\b(?:not|no|never|none|neither|nor|without|cannot|absent|lacks?)\b"
    r"|n't\b",
    re.I,
)
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``."""
    return [w.lower() for w in WORD.findall(text)]


def text_features(question: str, text: str, options: list[str]) -> dict[str, float]:
    """Counts of the text and the question; ``text`` is the presentation's text."""
    tokens = words(text)
    counts = Counter(tokens)
    q_words = set(words(question))
    t_words = set(counts)
    option_chars = [len(o) for o in options]
    return {
        "text_chars": float(len(text)),
        "text_words": float(len(tokens)),
        "text_sentences": float(len(SENTENCE_END.findall(text))),
        "text_lines": float(text.count("\n") + 1),
        "text_distinct_words": float(len(counts)),
        "text_words_once": float(sum(1 for c in counts.values() if c == 1)),
        "text_negations": float(len(NEGATION.findall(text))),
        "text_numbers": float(len(NUMBER.findall(text))),
        "question_chars": float(len(question)),
        "question_negations": float(len(NEGATION.findall(question))),
        "question_words_in_text": float(len(q_words & t_words)),
        "question_text_jaccard": len(q_words & t_words) / max(1, len(q_words | t_words)),
        "options": float(len(options)),
        "option_chars_mean": sum(option_chars) / len(options) if options else 0.0,
    }


def mentions(name: str, text: str) -> int:
    """How often ``name`` occurs in ``text`` as a whole word (case-sensitive)."""
    return len(re.findall(r"(?<![A-Za-z0-9])" + re.escape(name) + r"(?![A-Za-z0-9])", text))
