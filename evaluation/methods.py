"""The methods keepd is compared with: TextTiling, change-point detection, trivial splits, cosine.

Each works on units (utterances, or a session's turns) and returns the indices of the units
that start a new segment, or a score per unit.
"""

from __future__ import annotations

import bisect
import random
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Generic, TypeVar

import numpy as np

from keepd.core.curve import FloatArray
from keepd.core.words import STOPWORDS, content_words

F = TypeVar("F")


@dataclass(frozen=True)  # no slots: a generic alias sets __orig_class__ on its instances
class Setting(Generic[F]):
    """A method at one setting: its name, the setting in words, and what runs it."""

    method: str
    setting: str
    run: F


@dataclass(frozen=True, slots=True)
class Units:
    """Texts for TextTiling (one paragraph each) and the content words of each."""

    texts: list[str]
    words: list[list[str]]

    @classmethod
    def of_texts(cls, texts: Sequence[str]) -> Units:
        flat = [" ".join(text.split()) for text in texts]
        return cls(flat, [content_words(text) for text in flat])

    @classmethod
    def of_words(cls, words: Sequence[Sequence[str]]) -> Units:
        return cls([" ".join(w) for w in words], [list(w) for w in words])

    def __len__(self) -> int:
        return len(self.texts)


def _tiler(w: int, k: int, *, vocabulary: bool, demo: bool) -> Any:
    """nltk's tokenizer with keepd's own stopwords, so that it never downloads any."""
    from nltk.tokenize.texttiling import TextTilingTokenizer

    method = "vocabulary_introduction" if vocabulary else "block_comparison"
    return TextTilingTokenizer(
        w=w, k=k, similarity_method=method, stopwords=STOPWORDS, demo_mode=demo
    )


def texttiling(units: Units, w: int, k: int, *, vocabulary: bool = False) -> list[int]:
    """nltk's TextTiling with keepd's stopwords; an input it cannot segment has no boundary."""
    tiler = _tiler(w, k, vocabulary=vocabulary, demo=False)
    text = "\n\n".join(units.texts)
    try:
        segments: list[str] = tiler.tokenize(text)
    except (ValueError, IndexError, ZeroDivisionError):
        return []
    starts = list(accumulate((len(t) + 2 for t in units.texts[:-1]), initial=0))
    ends = accumulate(len(segment) for segment in segments[:-1])
    found = {bisect.bisect_right(starts, end) for end in ends}
    return sorted(b for b in found if 0 < b < len(units))


def texttiling_deepest(units: Units, w: int, k: int, *, vocabulary: bool = False) -> int | None:
    """The unit nearest TextTiling's deepest gap: its one strongest break.

    Gap g is placed after word max(g * w, w) as nltk places it, then moved to the nearest
    unit start; units must be words joined by spaces (each word one token).
    """
    tiler = _tiler(w, k, vocabulary=vocabulary, demo=True)
    try:
        _, _, depths, _ = tiler.tokenize("\n\n".join(units.texts))
    except (ValueError, IndexError, ZeroDivisionError):
        return None
    if not len(depths):
        return None
    starts = list(accumulate((len(words) for words in units.words[:-1]), initial=0))
    at = max(int(np.argmax(depths)) * w, w)
    nearest = min(range(1, len(starts)), key=lambda i: abs(starts[i] - at), default=None)
    return nearest


def bag_of_words(units: Units) -> FloatArray:
    """Word counts per unit, each row scaled to unit length (an empty unit stays zero)."""
    return _unit_rows(_counts(units))


def _counts(units: Units) -> FloatArray:
    vocabulary = {word: i for i, word in enumerate(sorted({w for ws in units.words for w in ws}))}
    matrix = np.zeros((len(units), max(len(vocabulary), 1)), dtype=np.float64)
    for row, words in enumerate(units.words):
        for word in words:
            matrix[row, vocabulary[word]] += 1.0
    return matrix


def _unit_rows(matrix: FloatArray) -> FloatArray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.maximum(norms, 1e-12), dtype=np.float64)


def kernel_cpd(
    units: Units, *, penalty: float | None = None, count: int | None = None
) -> list[int]:
    """ruptures' KernelCPD (linear kernel) on the bag of words, by penalty or change count."""
    import ruptures

    if len(units) < 2:
        return []
    detector = ruptures.KernelCPD(kernel="linear", min_size=1, jump=1).fit(bag_of_words(units))
    if count is not None:
        return _inner(detector.predict(n_bkps=min(count, len(units) - 1)), len(units))
    return _inner(detector.predict(pen=penalty), len(units))


def pelt(units: Units, penalty: float) -> list[int]:
    """ruptures' Pelt with the RBF cost on the bag of words."""
    import ruptures

    if len(units) < 2:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = ruptures.Pelt(model="rbf", min_size=1, jump=1).fit(bag_of_words(units))
        return _inner(found.predict(pen=penalty), len(units))


def _inner(ends: Sequence[int], n: int) -> list[int]:
    """ruptures gives segment ends, the last one n; a segment end is the next segment's start."""
    return sorted({int(e) for e in ends if 0 < e < n})


def even(n: int, length: float) -> list[int]:
    """Segments of `length` units (the mean of the calibration split)."""
    step = max(length, 1.0)
    return sorted({round(step * i) for i in range(1, int(n / step) + 1)} & set(range(1, n)))


def scattered(n: int, rate: float, seed: int) -> list[int]:
    """Each gap a boundary with probability `rate` (the calibration split's), fixed seed."""
    rng = random.Random(seed)
    return [i for i in range(1, n) if rng.random() < rate]


def split_scores(units: Units) -> tuple[FloatArray, FloatArray]:
    """The seed's similarity split score at every unit, and its separation term alone.

    TF-IDF vectors of the units (no embedding model is available offline). Cutting before
    unit s: cohesion is the mean pairwise cosine inside each half (averaged over the two),
    separation 1 - the cosine of the two halves' summed vectors; the seed's score, "least
    alike across, most alike within", is their sum. Unit 0 has no score (NaN).
    """
    tfidf = _tfidf(units)
    n = len(units)
    separation = np.full(n, np.nan)
    cohesion = np.full(n, np.nan)
    if n < 2:
        return separation, separation
    similarity = tfidf @ tfidf.T
    block = np.cumsum(np.cumsum(similarity, axis=0), axis=1)
    diagonal = np.concatenate([[0.0], np.cumsum(np.diag(similarity))])
    heads = np.cumsum(tfidf, axis=0)
    total = heads[-1]
    for s in range(1, n):
        head, tail = heads[s - 1], total - heads[s - 1]
        separation[s] = 1.0 - _cosine(head, tail)
        cohesion[s] = (_within(block, diagonal, 0, s) + _within(block, diagonal, s, n)) / 2
    return cohesion + separation, separation


def _tfidf(units: Units) -> FloatArray:
    counts = _counts(units)
    idf = np.log((1 + len(units)) / (1 + (counts > 0).sum(axis=0))) + 1.0
    return _unit_rows(counts * idf)


def _cosine(a: FloatArray, b: FloatArray) -> float:
    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / denominator if denominator else 0.0


def _within(block: FloatArray, diagonal: FloatArray, start: int, end: int) -> float:
    """Mean cosine over the distinct pairs of units start..end-1 (1.0 for a single unit).

    `block` is the 2-D cumulative sum of the similarity matrix, `diagonal` the cumulative
    sum of its diagonal with a leading zero.
    """
    size = end - start
    if size < 2:
        return 1.0
    total = block[end - 1, end - 1]
    if start:
        total -= block[start - 1, end - 1] + block[end - 1, start - 1]
        total += block[start - 1, start - 1]
    pairs = total - (diagonal[end] - diagonal[start])
    return float(pairs / (size * (size - 1)))
