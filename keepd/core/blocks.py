"""Names what the summary may drop: which earlier blocks the kept part borrows from, and what."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from keepd.core.index import Index, IntArray, unique_first

BLOCKS = 6
SIDE_TRIP_SHARE = 0.05
TOP_WORDS = 12


@dataclass(frozen=True, slots=True)
class Block:
    """Messages `first..last` before the stop and the share of borrowed uses they introduced."""

    first: int
    last: int
    borrowed: int
    share: float

    @property
    def side_trip(self) -> bool:
        return self.share < SIDE_TRIP_SHARE


@dataclass(frozen=True, slots=True)
class BorrowedWord:
    """A word the kept part leans on, how often, and the message that introduced it."""

    word: str
    uses: int
    first: int


def blocks_before(index: Index, stop: int, count: int = BLOCKS) -> list[Block]:
    """Splits messages 0..stop-1 into `count` even blocks; attributes borrowed uses to them."""
    if stop <= 0:
        return []
    message, first, _ = index.uses()
    borrowed_firsts = first[(message >= stop) & (first < stop)]
    edges = _even_edges(stop, min(count, stop))
    # np.histogram's counts: no first reaches `stop`, the last edge, and the edges rise.
    at = edges.searchsorted(borrowed_firsts, side="right") - 1
    per_block: list[int] = np.bincount(at, minlength=len(edges) - 1).tolist()
    total = len(borrowed_firsts) or 1
    return [
        Block(first=int(lo), last=int(hi) - 1, borrowed=int(n), share=int(n) / total)
        for lo, hi, n in zip(edges[:-1], edges[1:], per_block, strict=True)
    ]


def _even_edges(stop: int, parts: int) -> IntArray:
    """`np.linspace(0, stop, parts + 1).round()` as integers, without its Python layer: the
    same products of a place and the step, the last edge `stop` itself.

    >>> _even_edges(10, 6).tolist(), _even_edges(5, 5).tolist()
    ([0, 2, 3, 5, 7, 8, 10], [0, 1, 2, 3, 4, 5])
    """
    step = stop / parts
    return np.array([*(round(i * step) for i in range(parts)), stop], dtype=np.int64)


def borrowed_words(
    index: Index, stop: int, top: int = TOP_WORDS, ignore: frozenset[str] = frozenset()
) -> list[BorrowedWord]:
    """The words the kept part borrows most, most used first, leaving out `ignore`."""
    message, first, word = index.uses()
    mask = (message >= stop) & (first < stop)
    if not mask.any():
        return []
    hashes, where, _, counts = unique_first(word[mask])
    hashes, where, counts = _likeliest(hashes, where, counts, top + len(ignore))
    # Read as lists once: indexing the arrays item by item in the sort key cost more than it.
    keys, uses, firsts = hashes.tolist(), counts.tolist(), first[mask][where].tolist()
    names = [index.names.get(key, "") for key in keys]
    order = sorted(
        (i for i, name in enumerate(names) if name not in ignore),
        key=lambda i: (-uses[i], names[i]),
    )[:top]
    return [
        BorrowedWord(word=index.names.get(keys[i], "?"), uses=uses[i], first=firsts[i])
        for i in order
    ]


def _likeliest(
    hashes: IntArray, where: IntArray, counts: IntArray, enough: int
) -> tuple[IntArray, IntArray, IntArray]:
    """The distinct words used at least as often as the `enough`-th most used, in their order.

    With `enough` the words wanted plus those that may be left out, the words wanted are
    among these; naming and sorting only them, not the hundreds a kept part borrows, is most
    of what the borrowed words cost.
    """
    if len(counts) <= enough:
        return hashes, where, counts
    cut = len(counts) - enough
    keep = np.flatnonzero(counts >= np.partition(counts, cut)[cut])
    return hashes[keep], where[keep], counts[keep]
