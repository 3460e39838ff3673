"""A session whose every text tries to break out of the note: tags, handlers, URLs, huge lines.

If any of it ran, it would change `document.title`, set `window.pwned` or add a `<pwned>`
element; the tests look for each.
"""

from __future__ import annotations

from tests.unit.builders import Chain

SESSION_ID = "hostile-0001"
PROJECT = '/tmp/<script>document.title="pwned-cwd"</script>/"><img src=x onerror=alert(1)>'
ATTACKS = (
    '<script>document.title="pwned"; window.pwned = 1</script>',
    "<img src=x onerror=\"document.body.appendChild(document.createElement('pwned'))\">",
    '</svg><script>window.pwned = 2; document.title = "pwned"</script><svg>',
    "</title></text></textarea></pre><script>window.pwned = 3</script>",
    '<a href="javascript:window.pwned=4">click</a> [link](javascript:alert(1))',
    '"><svg onload="window.pwned=5"><circle class="pt" r="9"/></svg>',
    "<style>body { display: none }</style><link rel=stylesheet href=https://example.com/x.css>",
    "' onmouseover='window.pwned=6' x='",
    "&lt;script&gt; literal entities &amp; stay literal",
    '<iframe src="javascript:parent.pwned=7"></iframe><base href="https://example.com/">',
)
PARSER = "tokenizer grammar parser lexer precedence ast nodes"
DOCS = "mkdocs theme navigation deploy pages sidebar search"
HUGE_PROMPT_BYTES = 1 << 20


def huge_line() -> str:
    """A one-megabyte single-line prompt that starts with a script tag."""
    unit = "<script>window.pwned=8</script> sidebar "
    return (unit * (HUGE_PROMPT_BYTES // len(unit) + 1))[:HUGE_PROMPT_BYTES]


def hostile_chain() -> Chain:
    """Two pieces of work (a parser, then a docs site), every prompt and reply hostile."""
    chain = Chain("h")
    extra = {"sessionId": SESSION_ID, "cwd": PROJECT}
    context = 20_000
    for turn in range(16):
        topic = PARSER if turn < 8 else DOCS
        attack = ATTACKS[turn % len(ATTACKS)]
        words = " ".join(topic.split()[turn % 4 :][:4])
        chain.prompt(f"{attack} {words} step{turn}", **extra)
        context += 3_000
        chain.reply(f"{attack} done with {topic}", context=context, **extra)
        if turn == 12:
            chain.prompt(huge_line(), **extra)
            context += 4_000
            chain.reply(f"{DOCS} {ATTACKS[1]}", context=context, **extra)
    return chain


def hostile_session() -> bytes:
    return hostile_chain().jsonl()
