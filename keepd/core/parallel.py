"""Adds the lines of parallel tool use a parent walk misses, where Claude Code's loader puts them.

A response with several tool calls is written as several lines with one message id, each
result under its own call; a walk up the parent links passes through only one of each. Claude
Code 2.1.332's loader (its chain builder, after the walk) recovers the rest and places them
without touching the walk's own order: for each response on the chain, in chain order, it
takes the response's lines that are not on the chain and the tool results under any of its
lines, sorts them by file position, and merges them into the stretch of the chain from the
response's first line on the chain to just past its last one (and past the results, meta
messages, attachments and system lines that follow it), each before the first chain entry of
that stretch written after it; what is left goes at the stretch's end. Stretches that overlap
are merged. A chain that is not in file order (a result written before its call, linked to
it) therefore keeps its order: file order decides only among what the walk did not reach.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from keepd.core.messages import Node


@dataclass(slots=True)
class _Stretch:
    """Chain indices [start, end) of one response, and the lines recovered for it."""

    start: int
    end: int
    recovered: list[Node]


def pull_in(
    chain: list[Node],
    siblings: Callable[[str], Sequence[Node]],
    children: Callable[[str], Sequence[Node]],
) -> list[Node]:
    """`chain` with the missing parallel lines merged in: `siblings(msg_id)` gives a response's
    lines in file order, `children(uuid)` the entries whose parent is `uuid`."""
    index = {node.pos: at for at, node in enumerate(chain)}
    taken = set(index)  # on the chain or recovered already: nothing is placed twice
    done: set[str] = set()
    stretches: list[_Stretch] = []
    for at, node in enumerate(chain):
        msg_id = node.msg_id
        if msg_id is None or node.kind != "assistant" or msg_id in done:
            continue
        done.add(msg_id)
        lines = [n for n in siblings(msg_id) if n.sidechain == node.sidechain] or [node]
        recovered = [n for n in lines if n.pos not in taken]
        for line in lines:
            for child in children(line.uuid) if line.uuid is not None else ():
                if child.tool_results and child.pos not in taken and child.kind == "user":
                    recovered.append(child)
                    taken.add(child.pos)
        taken.update(n.pos for n in recovered)
        if not recovered:
            continue
        end = max([at, *(index.get(n.pos, -1) for n in lines)]) + 1
        while end < len(chain) and _continues(chain[end], msg_id):
            end += 1
        stretches.append(_Stretch(at, end, sorted(recovered, key=_pos)))
    return _merged(chain, _joined(stretches)) if stretches else chain


def _continues(node: Node, msg_id: str) -> bool:
    """Whether `node` still belongs to the response `msg_id` on the chain: another of its
    lines, a tool result or meta message, an attachment, a system line but a boundary."""
    if node.kind == "assistant":
        return node.msg_id == msg_id
    if node.kind == "user":
        return node.meta or bool(node.tool_results)
    if node.kind == "attachment":
        return True
    return node.kind == "system" and node.boundary is None


def _joined(stretches: list[_Stretch]) -> list[_Stretch]:
    """Overlapping stretches as one."""
    joined: list[_Stretch] = []
    for stretch in sorted(stretches, key=lambda s: s.start):
        last = joined[-1] if joined else None
        if last is not None and stretch.start < last.end:
            last.end = max(last.end, stretch.end)
            last.recovered = sorted([*last.recovered, *stretch.recovered], key=_pos)
        else:
            joined.append(stretch)
    return joined


def _merged(chain: list[Node], stretches: list[_Stretch]) -> list[Node]:
    out: list[Node] = []
    done = 0
    for stretch in stretches:
        out.extend(chain[done : stretch.start + 1])
        waiting = stretch.recovered
        taken = 0
        for node in chain[stretch.start + 1 : stretch.end]:
            while taken < len(waiting) and waiting[taken].pos < node.pos:
                out.append(waiting[taken])
                taken += 1
            out.append(node)
        out.extend(waiting[taken:])
        done = stretch.end
    out.extend(chain[done:])
    return out


def _pos(node: Node) -> int:
    return node.pos
