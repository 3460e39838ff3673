"""Decides a cut: the stop named, what stays from it on, the summary, and the lines to write."""

from __future__ import annotations

import re
from collections.abc import Sequence

from keepd.core.analysis import Analysis, Stop
from keepd.cut.boundary import compose, cut_uuid
from keepd.cut.load import Loaded
from keepd.cut.model import Placement, Plan, Turn
from keepd.cut.summary import SummaryRequest, message_text, recall_cut, summary_body
from keepd.cut.validate import check_kept
from keepd.errors import NoSuchStopError, UsageError

_BELOW = re.compile(r"(?:below)?~(\d+)")  # the older name, kept for scripts that use it
_PRESSES = re.compile(r"(?:↑|\^)\s*(\d+)|(\d{1,4})")
CHARS_PER_TOKEN = 4


def resolve_stop(analysis: Analysis, spec: str) -> Stop:
    """The stop `spec` names: `↑N` as the report prints it (also `^N`, or N alone with at most
    four digits: the ↑ presses that reach it), its uuid or a unique prefix of it, or the older
    `below~N` (N stops below it, one press fewer)."""
    spec = spec.strip()
    below, pressed = _BELOW.fullmatch(spec), _PRESSES.fullmatch(spec)
    if below is not None or pressed is not None:
        if below is not None:
            count = int(below.group(1))
        else:
            assert pressed is not None
            count = int(pressed.group(1) or pressed.group(2)) - 1
        found = [stop for stop in analysis.stops if stop.below == count]
        if not found:
            raise NoSuchStopError(f"no stop is at ↑{count + 1} (↑1-↑{len(analysis.stops)})")
        return found[0]
    exact = [stop for stop in analysis.stops if stop.uuid == spec]
    matches = exact or [stop for stop in analysis.stops if spec and stop.uuid.startswith(spec)]
    if not matches:
        raise NoSuchStopError(f"no stop of the current context is {spec!r}")
    if len(matches) > 1:
        raise NoSuchStopError(f"{spec!r} starts {len(matches)} stops' uuids; give more of it")
    return matches[0]


def pick_stop(analysis: Analysis) -> Stop:
    """The stop the report, the note, the notice and the status line recommend (the pick, else
    the suggested one of the stops offered without a clear break), or an error saying why
    there is none."""
    stop = analysis.target_stop()
    if stop is not None:
        return stop
    raise NoSuchStopError(
        "keepd suggests no stop: no clear break, and no stop keeps enough words of its own "
        "to suggest; choose one with --at"
    )


def plan_cut(
    loaded: Loaded,
    stop: Stop | None,
    placement: Placement,
    request: SummaryRequest,
    *,
    force: bool = False,
) -> Plan:
    """Keeps every message from `stop` on (nothing for an empty context)."""
    if placement is Placement.EMPTY:
        end, kept = len(loaded.branch.messages), []
    elif stop is None:
        raise UsageError("a cut needs a stop: --at STOP or --pick")
    else:
        end, kept = stop.index, loaded.uuids[stop.index :]
    if end == 0:
        raise UsageError("nothing comes before that stop; the cut would free nothing")
    check_kept(loaded, kept, allow_open_calls=force)
    choices = ("cut", placement.value, stop.uuid if stop else "")
    summary, source, boundary = None, "", cut_uuid(loaded.snapshot.sha256, *choices)
    if placement.has_summary:
        body, source = summary_body(loaded, end, request)
        summary = message_text(body, placement, cut=recall_cut(boundary))
    return assemble(
        loaded,
        "cut",
        placement,
        kept,
        summary=summary,
        source=source,
        stop=stop,
        boundary_uuid=boundary,
    )


def assemble(
    loaded: Loaded,
    kind: str,
    placement: Placement,
    kept: Sequence[str],
    *,
    summary: str | None = None,
    source: str = "",
    stop: Stop | None = None,
    turns: tuple[Turn, ...] = (),
    boundary_uuid: str | None = None,
) -> Plan:
    """The plan of a cut whose kept list is decided: tokens, and the lines to write."""
    before, kept_tokens = kept_tokens_of(loaded, kept)
    summary_tokens = len(summary) / CHARS_PER_TOKEN if summary else 0.0
    last = loaded.entry(len(loaded.branch.messages) - 1).entry
    written = compose(
        placement,
        kept,
        summary,
        last_entry=last,
        session_id=loaded.state.tree.session_id or loaded.session_id,
        pre_tokens=round(before),
        post_tokens=round(kept_tokens + summary_tokens),
        boundary_uuid=boundary_uuid,
    )
    staying = set(kept)
    ids = dict.fromkeys([loaded.session_id, loaded.state.tree.session_id or loaded.session_id])
    return Plan(
        kind=kind,
        snapshot=loaded.snapshot,
        session_id=loaded.session_id,
        project=loaded.analysis.project,
        placement=placement,
        preserved=tuple(kept),
        dropped=len(loaded.branch.messages) - len(kept),
        summary=summary,
        summary_source=source,
        stop_uuid=stop.uuid if stop else None,
        stop_below=stop.below if stop else None,
        stop_quote=stop.quote if stop else "",
        tokens_before=before,
        tokens_kept=kept_tokens,
        tokens_summary=summary_tokens,
        window=int(loaded.analysis.context.get("window") or 0),
        written=written,
        turns=turns,
        session_ids=tuple(ids),
        dropped_uuids=tuple(uuid for uuid in loaded.uuids if uuid not in staying),
    )


def kept_tokens_of(loaded: Loaded, kept: Sequence[str]) -> tuple[float, float]:
    """The context's tokens now, and those of the kept messages plus what is not a message.

    The context's own count (usage) includes the system prompt and tools, which a cut keeps.
    """
    order = {uuid: i for i, uuid in enumerate(loaded.uuids)}
    messages = float(loaded.tokens.sum())
    context = loaded.analysis.context.get("tokens")
    before = float(context) if isinstance(context, int | float) and context else messages
    overhead = max(before - messages, 0.0)
    return before, overhead + float(sum(loaded.tokens[order[uuid]] for uuid in kept))
