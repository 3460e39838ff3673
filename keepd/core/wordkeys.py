"""Splits many texts into content words at once, as `content_words` does, giving each word as
the key the index files it under (`hash(word)`), without a string for every use of a word.

Splitting texts one by one costs a string, a hash and a set lookup for every piece of text
(what lies between the characters that cannot be in a word). Here the pieces of all the
texts are found together with numpy; equal pieces are told apart by their bytes, and only
each distinct piece becomes a string, to be checked against the stopwords, searched with the
word pattern where it is not a word as it stands, and hashed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, compress

import numpy as np
import numpy.typing as npt

from keepd.core.words import SPACED, STOPWORDS, lowered_to_ascii, searched

IntArray = npt.NDArray[np.int64]
_SPACE = ord(" ")
_DOT = ord(".")
_A = ord("a")  # a piece that starts before it (a digit, "_" or ".") is searched
# For a piece of k bytes (k = 0..16; 17 stands for longer), the masks of the bytes of it that
# its first and its second 8-byte word hold.
_HEAD_MASKS = np.array([(1 << 8 * min(k, 8)) - 1 for k in range(18)], dtype=np.uint64)
_TAIL_MASKS = np.array([(1 << 8 * min(max(k - 8, 0), 8)) - 1 for k in range(18)], dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True, slots=True)
class WordKeys:
    """The content words of some texts: how many each text has, and each word's key and
    spelling, the texts' words one after another."""

    counts: IntArray
    keys: IntArray
    spellings: list[str]  # the words of each distinct piece, one piece after another
    spelled: IntArray  # which of `spellings` each word is

    def words_at(self, at: IntArray) -> list[str]:
        """The words at positions `at` of `keys`."""
        return [self.spellings[i] for i in self.spelled[at].tolist()]

    def words_between(self, start: int, stop: int) -> list[str]:
        """The words at positions `start` to `stop` - 1 of `keys` (one text's, say).

        >>> word_keys(["one parser", "two tokens"]).words_between(0, 2)
        ['parser', 'two']
        """
        spellings = self.spellings
        return [spellings[i] for i in self.spelled[start:stop].tolist()]

    def with_split(self, split: Mapping[int, Sequence[str]]) -> WordKeys:
        """These words, with those of texts split already put in their places (`split`: the
        text's index and its words; its text here was empty).

        >>> found = word_keys(["one parser", "", "two tokens"]).with_split({1: ["grammar"]})
        >>> found.counts.tolist(), found.words_at(np.arange(len(found.keys)))
        ([1, 1, 2], ['parser', 'grammar', 'two', 'tokens'])
        """
        at = sorted(split)
        words = [word for i in at for word in split[i]]
        sizes = [len(split[i]) for i in at]
        where = (self.counts.cumsum() - self.counts)[at].repeat(sizes)
        counts = self.counts.copy()
        counts[at] = sizes
        keys = np.fromiter(map(hash, words), dtype=np.int64, count=len(words))
        spelled = len(self.spellings) + np.arange(len(words))
        return WordKeys(
            counts,
            np.insert(self.keys, where, keys),
            self.spellings + words,
            np.insert(self.spelled, where, spelled),
        )


def word_keys(texts: Sequence[str]) -> WordKeys:
    """The content words of each of `texts`, as `content_words` gives them, by key.

    >>> found = word_keys(["Fix parse_line() in entries.py.", "", "the parser, again"])
    >>> found.counts.tolist(), found.words_at(np.arange(len(found.keys)))
    ([3, 0, 1], ['fix', 'parse_line', 'entries.py', 'parser'])
    >>> bool(found.keys[0] == hash("fix"))
    True
    """
    lowered = [lowered_to_ascii(text) for text in texts]
    # Spaces around every text: no piece spans two texts, and each piece has edges to find.
    encoded = [text.encode("ascii", "replace") for text in lowered]
    spaced = b"".join([b" ", b" ".join(encoded), b" "]).translate(SPACED)
    data = np.frombuffer(spaced, dtype=np.uint8)
    word = data != _SPACE
    bounds = (word[1:] != word[:-1]).nonzero()[0] + 1
    starts, ends = bounds[0::2], bounds[1::2]
    ends -= data[ends - 1] == _DOT  # a dot that ends a piece joins nothing
    long_enough = (ends - starts >= 3).nonzero()[0]  # shorter pieces hold no word
    starts, ends = starts[long_enough], ends[long_enough]
    distinct, ones = _distinct(spaced, starts, ends)
    spelled = _spelled(spaced, data, starts[ones], ends[ones])
    return _expand(spelled, distinct, starts, text_starts=_text_starts(encoded))


def _distinct(spaced: bytes, starts: IntArray, ends: IntArray) -> tuple[IntArray, IntArray]:
    """Which distinct piece each piece is (numbered in the order they first appear), and where
    each distinct piece first appears.

    A piece of up to 16 bytes is read as two 8-byte words, the bytes past its end masked to
    zero (no piece holds a zero byte, so two different pieces differ in a word); pieces are
    sorted by a mix of the two, and a run of equal pieces ends wherever a word differs, so
    a run holds one piece only, however the mix falls (two pieces that mix alike may split
    each other's run: they then count as more distinct pieces, no harm). A longer piece is
    a distinct one of its own: its first word is its place shifted up a byte, whose zero low
    byte no piece's first byte is, so it equals no other piece's. All pieces are sorted
    together: half the array operations of sorting the short ones apart, each of which costs
    more than its work on a branch's few thousand pieces. The sort is of values, not an
    argsort (a third of its time): the mix's high bits with each piece's place in the low
    ones, so a run is in the pieces' order and opens with a piece's first appearance. The
    mix is multiplied once more, as the high bytes of a short piece's word are all zero.
    """
    lengths = np.minimum(ends - starts, 17)
    padded = spaced + bytes(16)
    windows = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    head = windows[starts] & _HEAD_MASKS[lengths]
    tail = windows[starts + 8] & _TAIL_MASKS[lengths]
    longer = (lengths > 16).nonzero()[0]
    if len(longer):
        head[longer] = longer.astype(np.uint64) << np.uint64(8)
    low = np.uint64((1 << max(len(starts).bit_length(), 1)) - 1)
    placed = (((head ^ (tail * _MIX)) * _MIX) & ~low) | np.arange(len(starts), dtype=np.uint64)
    placed.sort()
    order = (placed & low).astype(np.int64)
    head, tail = head[order], tail[order]
    opens = np.empty(len(order), dtype=bool)
    opens[:1] = True
    np.logical_or(head[1:] != head[:-1], tail[1:] != tail[:-1], out=opens[1:])
    firsts = order[opens]
    # numbered by first appearance: the text is then sliced front to back (`_spelled`)
    by_place = firsts.argsort()
    number = np.empty(len(firsts), dtype=np.int64)
    number[by_place] = np.arange(len(firsts))
    which = np.empty(len(starts), dtype=np.int64)
    which[order] = number[opens.cumsum() - 1]
    return which, firsts[by_place]


def _spelled(
    spaced: bytes, data: npt.NDArray[np.uint8], starts: IntArray, ends: IntArray
) -> tuple[list[str], IntArray, IntArray]:
    """The content words of the distinct pieces (`starts`, `ends`), as `content_words` finds
    them, how many each piece has and where its own start among them.

    A piece that starts with a letter and holds no dot is a word as it stands unless it is
    a stopword, which is told for all pieces at once, and so is a dotted name `WORD` takes
    whole (`_searched`); only the others (version numbers, "e.g", a path's ".claude") are
    searched with `WORD`, one by one. The words as they stand come first, the
    searched ones after them, so no list is made for each piece: each such list outlived
    the batch, and the cycle collector walked it again and again.
    """
    text = spaced.decode("ascii")  # one string, sliced: one object a distinct piece
    pieces = [text[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    odd = _searched(data, starts, ends)
    stop = np.fromiter(map(STOPWORDS.__contains__, pieces), dtype=bool, count=len(pieces))
    kept = ~(odd | stop)
    per = kept.astype(np.int64)
    plain = kept.nonzero()[0]
    spellings = list(compress(pieces, kept.tolist()))
    base = np.zeros(len(pieces), dtype=np.int64)
    base[plain] = np.arange(len(plain))
    others = odd.nonzero()[0]
    if len(others):
        found = [searched(pieces[i]) for i in others.tolist()]
        sizes = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        per[others] = sizes
        base[others] = len(plain) + sizes.cumsum() - sizes
        spellings += chain.from_iterable(found)
    return spellings, per, base


def _searched(
    data: npt.NDArray[np.uint8], starts: IntArray, ends: IntArray
) -> npt.NDArray[np.bool_]:
    """Which pieces `WORD` must search: those that start with a digit, "_" or "." and those
    holding a dot that are not a dotted name whole (`WORD` takes one whose first part has
    three characters or more and no part empty: "entries.py", not "e.g" or "main...origin").

    The pieces are in their order in `data`, so each search walks the dots front to back (a
    count of the dots up to every byte cost more).
    """
    dots = (data == _DOT).nonzero()[0]
    first = dots.searchsorted(starts)
    dotted = first != dots.searchsorted(ends)
    runs = dots[1:][dots[1:] - dots[:-1] == 1]  # the second dot of two in a row
    empty = (runs.searchsorted(starts) != runs.searchsorted(ends)) | (data[ends - 1] == _DOT)
    short = dots[np.minimum(first, len(dots) - 1)] - starts < 3 if len(dots) else dotted
    needed: npt.NDArray[np.bool_] = (data[starts] < _A) | (dotted & (short | empty))
    return needed


def _text_starts(encoded: list[bytes]) -> IntArray:
    """Where each text starts in the spaced bytes (a space before each)."""
    sizes = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)) + 1
    return sizes.cumsum() - sizes + 1


def _expand(
    spelled: tuple[list[str], IntArray, IntArray],
    distinct: IntArray,
    starts: IntArray,
    *,
    text_starts: IntArray,
) -> WordKeys:
    """Every piece's words, from those of the distinct pieces (`_spelled`: the words, how many
    each piece has, where its own start), in the texts' order."""
    spellings, per, base = spelled
    keys = np.fromiter(map(hash, spellings), dtype=np.int64, count=len(spellings))
    each = per[distinct]  # words in each piece
    if len(per) and per.max() > 1:
        piece = np.arange(len(distinct)).repeat(each)
        within = np.arange(len(piece)) - (each.cumsum() - each).repeat(each)
        entry = base[distinct[piece]] + within
    else:
        piece = each.nonzero()[0]
        entry = base[distinct[piece]]
    # each text's words: those of its pieces, the pieces being in the texts' order (a search
    # for each text's start among the pieces, not for each piece's text among the starts)
    before = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(each, out=before[1:])
    edges = np.append(starts.searchsorted(text_starts), len(starts))
    counts = before[edges[1:]] - before[edges[:-1]]
    return WordKeys(counts, keys[entry], spellings, entry)
