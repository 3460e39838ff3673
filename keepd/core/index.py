"""The rolling first-appearance index: where each word first appeared, and two histograms.

Appending k messages costs O(their words); the curve over every stop is two reversed
cumulative sums (measure.md). Words are kept as 64-bit hashes in sorted arrays, so following
hundreds of sessions stays small; `detail` also keeps every use, for the blocks and the
borrowed words of one analysis.

>>> index = Index()
>>> index.extend([["parser", "tests"], ["parser", "fix"], ["docs"]])
>>> index.uses_by_message.tolist(), index.uses_by_first.tolist()
([2, 2, 1], [3, 1, 1])
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
_SMALL_BATCH = 64


class Growable:
    """A numpy array with amortised O(1) appends (int64 unless told otherwise)."""

    def __init__(self, dtype: type[np.generic] = np.int64) -> None:
        self._data: np.ndarray = np.zeros(16, dtype=dtype)
        self.size = 0

    def view(self) -> np.ndarray:
        return self._data[: self.size]

    def grow(self, extra: int) -> None:
        need = self.size + extra
        if need > len(self._data):
            bigger = np.zeros(max(need, 2 * len(self._data)), dtype=self._data.dtype)
            bigger[: self.size] = self._data[: self.size]
            self._data = bigger
        self.size = need

    def append(self, values: np.ndarray) -> None:
        start = self.size
        self.grow(len(values))
        self._data[start : self.size] = values


class KeySet:
    """A set of 64-bit keys (hashes) at 8 bytes a key: a sorted array and a few recent ones.

    A Python set of hashes costs some 70 bytes a key; a followed session keeps one per
    response, which for hundreds of sessions was a tenth of the daemon's memory.

    >>> seen = KeySet()
    >>> [seen.add(key) for key in (5, -3, 5, 2**62, -3)]
    [True, True, False, True, False]
    """

    def __init__(self) -> None:
        self._sorted: array[int] = array("q")
        self._recent: set[int] = set()

    def add(self, key: int) -> bool:
        """Adds `key`; returns whether it was new."""
        if key in self._recent:
            return False
        at = bisect_left(self._sorted, key)
        if at < len(self._sorted) and self._sorted[at] == key:
            return False
        self._recent.add(key)
        if len(self._recent) > 32 + len(self._sorted) // 16:
            self._sorted = array("q", sorted(chain(self._sorted, self._recent)))
            self._recent = set()
        return True


class _FirstSeen:
    """Maps word hashes to the message where each first appeared."""

    def __init__(self) -> None:
        self._keys: IntArray = np.empty(0, dtype=np.int64)
        self._firsts: IntArray = np.empty(0, dtype=np.int64)
        self._pending: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._keys) + len(self._pending)

    def resolve(self, uniq: IntArray, first_here: IntArray) -> tuple[IntArray, IntArray]:
        """First message of each sorted unique hash, recording `first_here` for new ones.

        Returns the firsts and a mask of the hashes that were new. `uniq` is sorted and
        distinct (`unique_first`'s): in the first large batch of a fresh index (a cold read)
        every hash is new and `uniq` is already the sorted key array `_record` would build.
        """
        if not len(self._keys) and not self._pending and len(uniq) >= _SMALL_BATCH:
            self._keys, self._firsts = uniq, first_here
            return first_here, np.ones(len(uniq), dtype=bool)
        firsts = np.full(len(uniq), -1, dtype=np.int64)
        if len(self._keys):
            at = np.minimum(np.searchsorted(self._keys, uniq), len(self._keys) - 1)
            found = self._keys[at] == uniq
            firsts[found] = self._firsts[at[found]]
        missing = np.flatnonzero(firsts < 0)
        if self._pending and len(missing):
            for i in missing.tolist():
                firsts[i] = self._pending.get(int(uniq[i]), -1)
            missing = np.flatnonzero(firsts < 0)
        firsts[missing] = first_here[missing]
        self._record(uniq[missing], first_here[missing])
        new = np.zeros(len(uniq), dtype=bool)
        new[missing] = True
        return firsts, new

    def _record(self, keys: IntArray, firsts: IntArray) -> None:
        if len(keys) < _SMALL_BATCH:
            self._pending.update(zip(keys.tolist(), firsts.tolist(), strict=True))
            if len(self._pending) <= 256 + len(self._keys) // 8:
                return
            keys = np.fromiter(self._pending.keys(), dtype=np.int64, count=len(self._pending))
            firsts = np.fromiter(self._pending.values(), dtype=np.int64, count=len(keys))
            self._pending = {}
        merged_keys = np.concatenate([self._keys, keys])
        order = np.argsort(merged_keys)  # no key is there twice: any sort gives this order
        self._keys = merged_keys[order]
        self._firsts = np.concatenate([self._firsts, firsts])[order]


def unique_first(hashes: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """`np.unique(hashes, return_index=True, return_inverse=True, return_counts=True)`,
    cheaper.

    `np.unique` sorts stably to find each value's first place; an unstable sort and the
    smallest place in each run of equal values give the same answer.

    >>> [a.tolist() for a in unique_first(np.array([7, 3, 7, 5, 3], dtype=np.int64))]
    [[3, 5, 7], [1, 3, 0], [2, 0, 2, 1, 0], [2, 1, 2]]
    """
    order = hashes.argsort()  # the methods, not np.argsort and the like: the same, quicker
    ordered = hashes[order]
    starts_run = np.empty(len(ordered), dtype=bool)
    starts_run[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts_run[1:])
    starts = starts_run.nonzero()[0]
    inverse = np.empty(len(ordered), dtype=np.int64)
    inverse[order] = starts_run.cumsum() - 1
    counts = np.empty(len(starts), dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=counts[:-1])
    counts[-1:] = len(ordered) - starts[-1:]
    return ordered[starts], np.minimum.reduceat(order, starts), inverse, counts


def _count_into(counts: IntArray, at: IntArray) -> None:
    """Adds one to `counts` at each of `at`: a histogram of the whole range for a large batch,
    else only the places named (an appended line's few words, not the whole session).

    >>> counts = np.zeros(5, dtype=np.int64)
    >>> _count_into(counts, np.array([3, 0, 3]))
    >>> counts.tolist()
    [1, 0, 0, 2, 0]
    """
    if len(at) * 8 >= len(counts):
        counts += np.bincount(at, minlength=len(counts))
        return
    places, times = np.unique(at, return_counts=True)
    counts[places] += times


class Index:
    """First appearances and the use histograms of one branch, appended to in order."""

    def __init__(self, *, detail: bool = True) -> None:
        self.detail = detail
        self._seen = _FirstSeen()
        self._by_message = Growable()
        self._by_first = Growable()
        self._use_message = Growable()
        self._use_first = Growable()
        self._use_word = Growable()
        self.names: dict[int, str] = {}

    @property
    def size(self) -> int:
        """How many messages have been appended."""
        return self._by_message.size

    @property
    def vocabulary(self) -> int:
        return len(self._seen)

    @property
    def uses_by_message(self) -> IntArray:
        """Uses of content words in each message."""
        return self._by_message.view()

    @property
    def uses_by_first(self) -> IntArray:
        """Uses whose word first appeared in each message."""
        return self._by_first.view()

    def extend(self, messages: Sequence[Sequence[str]]) -> None:
        """Appends messages (each its content words, with repeats), oldest first."""
        lengths = np.fromiter(map(len, messages), dtype=np.int64, count=len(messages))
        words = list(chain.from_iterable(messages))
        hashes = np.fromiter(map(hash, words), dtype=np.int64, count=len(words))
        self.extend_keys(lengths, hashes, lambda at: list(map(words.__getitem__, at.tolist())))

    def extend_keys(
        self, lengths: IntArray, hashes: IntArray, spell: Callable[[IntArray], list[str]]
    ) -> None:
        """Appends messages given as how many words each has and every word's key
        (`hash(word)`), oldest first; `spell` gives the words at some positions of `hashes`."""
        start = self.size
        self._by_message.append(lengths)
        self._by_first.grow(len(lengths))
        if len(hashes) == 0:
            return
        owner = np.repeat(np.arange(start, start + len(lengths), dtype=np.int64), lengths)
        uniq, where, inverse, _ = unique_first(hashes)
        firsts, new = self._seen.resolve(uniq, owner[where])
        use_first = firsts[inverse]
        _count_into(self._by_first.view(), use_first)
        if self.detail:
            self._keep_uses(owner, use_first, hashes)
            self.names.update(zip(uniq[new].tolist(), spell(where[new]), strict=True))

    def _keep_uses(self, owner: IntArray, use_first: IntArray, hashes: IntArray) -> None:
        self._use_message.append(owner)
        self._use_first.append(use_first)
        self._use_word.append(hashes)

    def uses(self) -> tuple[IntArray, IntArray, IntArray]:
        """Every use as (message, first message of its word, word hash); needs `detail`."""
        if not self.detail:
            raise ValueError("this index keeps no per-use detail")
        return self._use_message.view(), self._use_first.view(), self._use_word.view()
