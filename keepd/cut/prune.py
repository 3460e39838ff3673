"""Prunes a context as the second seed does, with keepd's measure as the relevance score."""

from __future__ import annotations

from keepd.cut.boundary import cut_uuid
from keepd.cut.gist import notes as notes_text
from keepd.cut.load import Loaded
from keepd.cut.model import Placement, Plan, Turn
from keepd.cut.plan import assemble
from keepd.cut.summary import message_text, recall_cut
from keepd.cut.validate import check_kept
from keepd.errors import UsageError

KEEP_LAST = 3
WORKING = 6
HALF_LIFE = 10.0
BEFORE_FIRST_PROMPT = "(before the first prompt)"


def spans(loaded: Loaded) -> list[tuple[int, int]]:
    """Each turn's first and last message: from a prompt to the next (older kept prompts too;
    messages before the first prompt are a turn of their own)."""
    messages = loaded.branch.messages
    starts = [i for i, node in enumerate(messages) if node.is_prompt]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    ends = [*(start - 1 for start in starts[1:]), len(messages) - 1]
    return list(zip(starts, ends, strict=True)) if messages else []


def scores(loaded: Loaded, turns: list[tuple[int, int]], half_life: float) -> list[float]:
    """Later uses of each turn's words, decayed by the turn's age."""
    import numpy as np

    message, first, _ = loaded.state.index.uses()
    unit = np.zeros(len(loaded.branch.messages), dtype=np.int64)
    for number, (start, end) in enumerate(turns):
        unit[start : end + 1] = number
    used_in, from_turn = unit[message], unit[first]
    leaning = np.bincount(from_turn[used_in > from_turn], minlength=len(turns))
    age = len(turns) - 1 - np.arange(len(turns))
    return [float(x) for x in leaning * 0.5 ** (age / half_life)]


def plan_prune(
    loaded: Loaded,
    *,
    keep_last: int = KEEP_LAST,
    working: int = WORKING,
    notes: bool = False,
    half_life: float = HALF_LIFE,
    force: bool = False,
) -> Plan:
    """Keeps the recent turns and the best-scored older ones; the rest go.

    The last `keep_last` turns stay word for word (the seed's short-term memory). Each older
    turn scores the uses, in later turns, of the words it introduced (how much what came
    after leans on it), halved every `half_life` turns of age; the best `working` stay (its
    working memory). The rest leave the context, with nothing in their place or, with
    `notes`, a short notes message before the rest (its long-term memory).
    """
    if keep_last < 1 or working < 0 or half_life <= 0:
        raise UsageError("--keep-last must be at least 1 and --working at least 0")
    turns = _choose(loaded, spans(loaded), keep_last, working, half_life)
    uuids = loaded.uuids
    kept = [uuid for turn in turns if turn.keep for uuid in uuids[turn.first : turn.last + 1]]
    dropped = [i for turn in turns if not turn.keep for i in range(turn.first, turn.last + 1)]
    check_kept(loaded, kept, allow_open_calls=force)
    choices = ("prune", str(keep_last), str(working), str(half_life), str(notes))
    boundary = cut_uuid(loaded.snapshot.sha256, *choices)
    summary, source, placement = None, "", Placement.NONE
    if notes and dropped:
        body = notes_text(loaded, dropped)
        summary = message_text(body, Placement.FIRST, notes=True, cut=recall_cut(boundary))
        source, placement = "keepd's notes", Placement.FIRST
    return assemble(
        loaded,
        "prune",
        placement,
        kept,
        summary=summary,
        source=source,
        turns=tuple(turns),
        boundary_uuid=boundary,
    )


def _choose(
    loaded: Loaded, spans_: list[tuple[int, int]], keep_last: int, working: int, half_life: float
) -> list[Turn]:
    recent_from = max(len(spans_) - keep_last, 0)
    score = scores(loaded, spans_, half_life)
    older = sorted(range(recent_from), key=lambda k: (-score[k], -k))
    best = set(older[:working])
    return [
        Turn(
            number=k,
            first=start,
            last=end,
            tokens=float(loaded.tokens[start : end + 1].sum()),
            score=None if k >= recent_from else round(score[k], 2),
            keep=k >= recent_from or k in best,
            recent=k >= recent_from,
            quote=_quote(loaded, start),
        )
        for k, (start, end) in enumerate(spans_)
    ]


def _quote(loaded: Loaded, start: int) -> str:
    node = loaded.branch.messages[start]
    return node.quote if node.is_prompt else BEFORE_FIRST_PROMPT
