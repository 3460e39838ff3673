"""Splits message text into content words: identifiers and file names whole, stopwords out.

>>> content_words("Let's fix parse_line() in keepd/core/entries.py, then run the tests.")
['fix', 'parse_line', 'keepd', 'core', 'entries.py', 'run', 'tests']
"""

from __future__ import annotations

import re
import string
from itertools import filterfalse

# A word starts with a letter; dots join file names and dotted names ("entries.py",
# "json.loads"), underscores join identifiers. Path separators split, so a path yields its
# directories and its file name, each of which later messages tend to reuse on their own.
# Words shorter than three characters carry no topic ("a", "ok", "id"). The quantifiers are
# possessive: nothing after them can need a character back, and not offering to saves a fifth.
WORD = re.compile(r"[a-z][a-z0-9_]{2,}+(?:\.[a-z0-9_]++)*+")

# Function words of English plus the filler of chat ("ok", "yeah", "please") and of
# assistant prose ("let", "now"). Common content words are left in on purpose: they cancel
# in the ratio (measure.md), and filtering them was measured not to help.
STOPWORDS = frozenset(
    """
    a about above after again against all almost also although am among an and another any
    anybody anyone anything anyway anywhere are aren around as at away back be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don done down during each either else enough etc even ever every everyone
    everything few for from further get gets getting give go goes going gone got had hadn
    has hasn have haven having he her here hers herself him himself his how however i if in
    into is isn it its itself just keep know last least less let lets like ll made make
    many may maybe me might mine more most much must my myself need needs neither never
    new next no nobody none nor not nothing now of off often oh ok okay old on once one only
    onto or other others otherwise our ours ourselves out over own per perhaps please put
    quite rather re really right said same say says see seem seems shall she should
    shouldn since so some somebody someone something sometimes somewhat still such sure
    take than thank thanks that the their theirs them themselves then there therefore these
    they thing things think this those though through thus to together too toward towards
    try under until up upon us use used using ve very via want wants was wasn way we well
    were weren what whatever when whenever where whether which while who whole whom whose
    why will with within without won would wouldn yeah yes yet you your yours yourself
    yourselves
    """.split()
)

# What a word can hold: any other character only separates words. The table lower-cases
# ASCII and makes every other byte a space.
_IN_WORDS = string.ascii_lowercase + string.digits + "_."
SPACED = bytes(
    ord(chr(code).lower()) if chr(code).lower() in _IN_WORDS else ord(" ") for code in range(256)
)
# Pieces that hold no content word: the stopwords, and any of one or two characters.
_LEFT_OUT = STOPWORDS | set(_IN_WORDS) | {a + b for a in _IN_WORDS for b in _IN_WORDS}

# The only characters outside ASCII whose lower case holds an ASCII letter (Unicode 14; a
# test checks every code point): "İ" lowers to "i" and a combining dot, the Kelvin sign to "k".
LOWER_TO_ASCII = ("\u0130", "\u212a")


def content_words(text: str) -> list[str]:
    """The content words of `text`, lower-cased, in order, with repeats: what `WORD` finds
    in the lower-cased text, less the stopwords.

    The text is cut into pieces in C instead: every character that cannot be in a word
    becomes a space (each character outside ASCII too, as "?" would be), and so does a dot
    before a space, which cannot join two parts of a word. A piece is then a word as it
    stands unless it starts with a digit, "_" or "." or holds a dot; only such pieces (file
    names, version numbers, paths' hashes) are searched with `WORD`.

    >>> content_words("Le café's parser_v2 — entries.py")
    ['caf', 'parser_v2', 'entries.py']
    """
    encoded = lowered_to_ascii(text).encode("ascii", "replace") + b" "
    spaced = encoded.translate(SPACED).replace(b". ", b"  ")
    words = list(filterfalse(_LEFT_OUT.__contains__, spaced.decode("ascii").split()))
    if b"." in spaced or min(words, default="a") < "a":
        return _mended(words)
    return words


def lowered_to_ascii(text: str) -> str:
    """`text` lower-cased where lowering outside ASCII gives an ASCII letter (`LOWER_TO_ASCII`);
    ASCII itself is lowered by the table `SPACED`."""
    if not text.isascii() and any(char in text for char in LOWER_TO_ASCII):
        return text.lower()
    return text


def searched(piece: str) -> list[str]:
    """The content words `WORD` finds in a piece that is not a word as it stands."""
    return list(filterfalse(STOPWORDS.__contains__, WORD.findall(piece)))


def _mended(pieces: list[str]) -> list[str]:
    """`pieces` with each that is not a word as it stands replaced by the words `WORD` finds
    in it: one that starts with a digit, "_" or "." (what sorts before "a") or holds a dot."""
    words: list[str] = []
    for piece in pieces:
        if piece < "a" or "." in piece:
            words += searched(piece)
        else:
            words.append(piece)
    return words
