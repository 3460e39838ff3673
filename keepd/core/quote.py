"""A prompt's quote as Claude Code's rewind picker shows it: `/name args` for a slash command,
`! cmd` for shell-mode input, the first line of plain text, IDE context left out.

Checked on the real picker of 2.1.332 (tests/claude/test_quotes.py): text blocks are joined by
new lines and the row shows the first line, with "…" when more follows; a slash command shows
its name and the first line of its arguments; `<bash-input>` shows as "! " and the command;
IDE context blocks (`<ide_opened_file>`, `<ide_selection>`, ...) are left out when the prompt
has other text. A prompt of IDE context alone shows its raw tag there; keepd, which promised
never to quote raw markup, shows a short form instead ("IDE: opened README.md"). A prompt with
no text (an image alone, or blank) reads "(no prompt)"; control characters, terminal escape
sequences and invisible format characters (zero-width space, byte order mark) do not show.
"""

from __future__ import annotations

import re

QUOTE_CHARS = 240
NO_PROMPT = "(no prompt)"  # the picker's row for a prompt without text (an image alone)
_RAW_PIECE = 4 * QUOTE_CHARS
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_ARGS = re.compile(r"<command-args>(.*?)(?:</command-args>|$)", re.S)
_BASH = re.compile(r"<bash-input>(.*?)(?:</bash-input>|$)", re.S)
_IDE = re.compile(r"^\s*<(ide_[a-z_]+)>(.*?)(?:</\1>|$)", re.S)
_OPENED = re.compile(r"opened the file (.+?) in the IDE")
_SELECTED = re.compile(r"selected the lines (\d+) to (\d+) from (.+?):")
# What a terminal does not show: escape sequences (CSI and two-byte ones), then control and
# format characters but the tab; the tab stays, as the terminal turns it into spaces.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")
_UNSEEN = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u00ad\u200b-\u200c\u200e\u200f\u2060\ufeff]")


def shown(texts: list[str]) -> str:
    """The picker's row for a prompt whose text blocks are `texts`.

    >>> shown(["<command-message>review</command-message>\\n<command-name>/review</command-name>"
    ...        "\\n<command-args>14\\nmore</command-args>"])
    '/review 14'
    >>> shown(["<command-name>clear</command-name><command-args></command-args>"])
    '/clear'
    >>> shown(["<bash-input>git pull</bash-input>"]), shown(["fix it\\nplease"])
    ('! git pull', 'fix it…')
    >>> shown(["<ide_opened_file>The user opened the file /a/b.md in the IDE.</ide_opened_file>",
    ...        "why?"])
    'why?'
    >>> shown([]), shown(["  "]), shown(["\x0f\x0fnext"]), shown(["a\x1b[31mred\x1b[0m"])
    ('(no prompt)', '(no prompt)', 'next', 'ared')
    """
    own = [text for text in texts if not _IDE.match(text)]
    if not own:
        return _ide_short(texts) if texts else NO_PROMPT
    joined = "\n".join(own).strip()
    if not joined:
        return NO_PROMPT
    if "<" in joined:  # both tags open with it: most prompts hold neither
        tagged = _tagged(joined)
        if tagged is not None:
            return tagged
    line = _first_line(joined)
    more = len(joined) > len(line) and joined[len(line) :].strip() != ""
    return _capped(line + ("…" if more else ""))


def _visible(line: str) -> str:
    """`line` as a terminal shows it: without escape sequences and unseen characters."""
    if line.isprintable():  # neither controls nor format characters: most prompts
        return line
    return _UNSEEN.sub("", _ESCAPES.sub("", line)).strip()


def _tagged(joined: str) -> str | None:
    """The row of a slash command or of shell-mode input; None for other text."""
    command = _COMMAND.search(joined)
    if command:
        args = _ARGS.search(joined)
        first = _first_line(args.group(1)) if args else ""
        name = command.group(1)
        slash = "" if name.startswith("/") else "/"  # some files write `clear`; the row: /clear
        return _capped(f"{slash}{name} {first}".strip())
    bash = _BASH.search(joined)
    if bash:
        return _capped("! " + _first_line(bash.group(1), strip=False))
    return None


def raw(texts: list[str]) -> str:
    """The prompt's whole text on one line, tags and all (what `quote_raw` keeps).

    Its white space collapsed, a piece of the text from its start is the start of the whole
    collapsed: when the piece gives `QUOTE_CHARS` characters, the rest is not split.
    """
    text = " ".join(texts)
    if len(text) > _RAW_PIECE:
        quote = collapsed(text[:_RAW_PIECE])
        if len(quote) >= QUOTE_CHARS:
            return quote[:QUOTE_CHARS]
    return collapsed(text)[:QUOTE_CHARS]


def collapsed(text: str) -> str:
    """`" ".join(text.split())`: its white space collapsed to single spaces, none at its ends.

    Text that is printable holds no white space but the ASCII space (the others are control
    characters or separators, which are not printable), so without two spaces in a row or
    one at an end it is its own answer, found without splitting it into words.

    >>> collapsed("fix it"), collapsed(" fix\\n\\tit\\u00a0 now ")
    ('fix it', 'fix it now')
    """
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def _first_line(text: str, *, strip: bool = True) -> str:
    line = text.lstrip("\n").split("\n", 1)[0]
    return line.strip() if strip else line.rstrip()


def _capped(text: str) -> str:
    text = _visible(text)
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


def _ide_short(texts: list[str]) -> str:
    """A short form of IDE context alone.

    >>> _ide_short(["<ide_selection>The user selected the lines 5 to 6 from /x/a.py:\\nfoo"
    ...             "</ide_selection>"])
    'IDE: lines 5-6 of a.py'
    >>> _ide_short([])
    ''
    """
    if not texts:
        return ""
    body = " ".join(texts)
    opened = _OPENED.search(body)
    if opened:
        return f"IDE: opened {_name(opened.group(1))}"
    selected = _SELECTED.search(body)
    if selected:
        first, last, path = selected.groups()
        span = first if first == last else f"{first}-{last}"
        return f"IDE: line{'s' if first != last else ''} {span} of {_name(path)}"
    return "IDE context"


def _name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1] or path
