"""Counts and token amounts in the words a person reads: "1 place", "1,000k" as "1M"."""

from __future__ import annotations


def plural(count: int, one: str, many: str | None = None) -> str:
    """`count` and the noun that agrees with it.

    >>> plural(1, "place to stop", "places to stop"), plural(9, "session")
    ('1 place to stop', '9 sessions')
    """
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def tokens_text(tokens: float) -> str:
    """Tokens in a few characters: a window of a million reads "1M", never "1000k".

    >>> [tokens_text(n) for n in (812.4, 28_140.0, 200_000.0, 1_000_000.0, 1_500_000.0)]
    ['812', '28.1k', '200k', '1M', '1.5M']
    """
    if tokens >= 999_500:
        millions = tokens / 1_000_000
        return f"{millions:.0f}M" if round(millions, 1) == round(millions) else f"{millions:.1f}M"
    if tokens >= 100_000:
        return f"{tokens / 1000:.0f}k"
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else f"{tokens:.0f}"
