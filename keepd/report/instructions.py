"""Writes what a summarizer must keep and may drop as plain instructions, from an analysis."""

from __future__ import annotations

from bisect import bisect_right

from keepd.core.analysis import Analysis, BlockInfo, Stop, WordInfo

QUOTE_ROOM = 90


def target_stop(analysis: Analysis) -> Stop | None:
    """The stop the blocks and words are measured at: the pick, else the middle of the trade."""
    if analysis.pick:
        return analysis.stop(analysis.pick)
    if analysis.trade:
        return analysis.stop(analysis.trade[len(analysis.trade) // 2])
    return None


def short(text: str, room: int = QUOTE_ROOM) -> str:
    """One line of at most `room` characters, cut with an ellipsis.

    >>> short("a  b\\n c"), short("abcdef", 4)
    ('a b c', 'abc…')
    """
    flat = " ".join(text.split())
    return flat if len(flat) <= room else flat[: room - 1] + "…"


def introduced_in(analysis: Analysis, word: WordInfo) -> str:
    """Where a word first appeared: its prompt's quote, or the prompt whose turn held it."""
    by_uuid = {stop.uuid: stop for stop in analysis.stops if stop.uuid}
    if word.first_uuid in by_uuid:
        quote = by_uuid[word.first_uuid].quote
        return f"message {word.first}, “{short(quote)}”" if quote else f"message {word.first}"
    indexes = [stop.index for stop in analysis.stops]
    at = bisect_right(indexes, word.first) - 1
    if at < 0 or not analysis.stops[at].quote:
        return f"message {word.first}"
    return f"message {word.first}, in the turn that began “{short(analysis.stops[at].quote)}”"


def block_text(block: BlockInfo) -> str:
    """A block by its messages and the start of its first prompt."""
    where = f"messages {block.first}-{block.last}"
    return f"{where}, beginning “{short(block.quote)}”" if block.quote else where


def summary_instructions(analysis: Analysis) -> str:
    """Instructions to paste after `/compact` or give a summarizer; empty when there is no stop."""
    stop = target_stop(analysis)
    if stop is None:
        return ""
    lines = [f"Summarize the conversation before message {stop.index} (“{short(stop.quote)}”)."]
    if analysis.borrowed_words:
        lines += [
            "Everything from that message on stays word for word, and it relies on these words",
            "from the part you summarize: keep each one and what it refers to.",
        ]
        lines += [
            f"- {word.word} ({word.uses} uses later; from {introduced_in(analysis, word)})"
            for word in analysis.borrowed_words
        ]
    trips = [block for block in analysis.blocks if block.side_trip]
    if trips:
        lines.append("Drop these parts whole; nothing after the stop refers back to them:")
        lines += [f"- {block_text(block)}" for block in trips]
    elif analysis.blocks:
        lines.append(
            "Each part before the stop is still referred back to: shorten them, drop none."
        )
    return "\n".join(lines)
