"""Writes what a summarizer must keep and may drop as plain instructions, from an analysis."""

from __future__ import annotations

from bisect import bisect_right

from keepd.core.analysis import Analysis, BlockInfo, Stop, WordInfo

QUOTE_ROOM = 90


def short(text: str, room: int = QUOTE_ROOM) -> str:
    """One line of at most `room` characters, cut with an ellipsis.

    >>> short("a  b\\n c"), short("abcdef", 4)
    ('a b c', 'abc…')
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= room else flat[: room - 1] + "…"


def turn_of(analysis: Analysis, message: int) -> Stop | None:
    """The prompt whose turn holds a message: the last stop at or before it."""
    indexes = [stop.index for stop in analysis.stops]
    at = bisect_right(indexes, message) - 1
    return analysis.stops[at] if at >= 0 else None


def word_groups(analysis: Analysis) -> list[tuple[Stop | None, list[WordInfo]]]:
    """The borrowed words grouped by the turn that introduced them, the most used first."""
    groups: dict[int, tuple[Stop | None, list[WordInfo]]] = {}
    for word in analysis.borrowed_words:
        turn = turn_of(analysis, word.first)
        key = turn.index if turn is not None else -1
        groups.setdefault(key, (turn, []))[1].append(word)
    return list(groups.values())


def group_text(turn: Stop | None, words: list[WordInfo]) -> str:
    """One line: the words with their uses, the messages that introduced them, and the turn."""
    listed = ", ".join(f"{word.word} ×{word.uses}" for word in words)
    firsts = sorted({word.first for word in words})
    where = f"message {firsts[0]}" if len(firsts) == 1 else f"messages {firsts[0]}-{firsts[-1]}"
    if turn is None:
        return f"- {listed}: from {where}, before the first prompt the picker lists"
    if not turn.quote:
        return f"- {listed}: from {where}"
    return f"- {listed}: from {where}, in the turn that began “{short(turn.quote)}”"


def block_start(analysis: Analysis, block: BlockInfo) -> str:
    """How a block starts: with a prompt, or inside a turn (then its first prompt, if any).

    `BlockInfo.quote` alone misleads: it is the block's first prompt, which may sit at the
    block's very end, after messages of an earlier turn.
    """
    turn = turn_of(analysis, block.first)
    inside = [stop for stop in analysis.stops if block.first <= stop.index <= block.last]
    if turn is not None and turn.index == block.first:
        return f"beginning “{short(turn.quote)}”" if turn.quote else ""
    where = "before the first prompt the picker lists"
    if turn is not None:
        where = f"inside the turn that began “{short(turn.quote, 60)}”"
    if inside and inside[0].quote:
        return f"{where}, then “{short(inside[0].quote, 60)}”"
    return where


def block_text(analysis: Analysis, block: BlockInfo) -> str:
    """A block by its messages and how it starts."""
    start = block_start(analysis, block)
    where = f"messages {block.first}-{block.last}"
    return f"{where}, {start}" if start else where


def summary_instructions(analysis: Analysis) -> str:
    """Instructions to paste after `/compact` or give a summarizer; empty when there is no stop."""
    stop = analysis.target_stop()
    if stop is None:
        return ""
    lines = [
        f"When you summarize this conversation: the work from my message “{short(stop.quote)}” "
        f"(message {stop.index}) on is what matters now."
    ]
    if analysis.borrowed_words:
        lines.append(
            "It relies on these words from before that message (uses after it; where they "
            "first appeared). Keep each one and what it refers to:"
        )
        lines += [group_text(turn, words) for turn, words in word_groups(analysis)]
    trips = [block for block in analysis.blocks if block.side_trip]
    if trips:
        lines.append("Drop these earlier parts whole; nothing from that message on refers to them:")
        lines += [f"- {block_text(analysis, block)}" for block in trips]
    elif analysis.blocks:
        lines.append("Every earlier part is still referred back to: shorten them, drop none whole.")
    return "\n".join(lines)
