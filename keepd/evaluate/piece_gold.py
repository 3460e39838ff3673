"""A join's gold as a reader would give it from its pieces' labels: where its newest task begins.

A stitched join's last piece is the tail of a real session. The join's newest task begins at
the junction, unless that session's readers marked a new task inside the tail: then it begins
there, and a pick there is right for a person ("summarize up to the newest work"). Where both
readers call a prompt a task (within one prompt of each other in their own numbering, as
labels.py counts task switches), the newest such pair inside the tail is the gold, either
reader's prompt being at it; a later task only one reader marked counts beside that (or beside
the junction), either reader's answer being right. Steps do not move the gold: a step continues
the task begun at the junction. The gold is named by prompt uuids, found in the join by them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

Marks = Sequence[tuple[int, str]]  # a reader's task boundaries: (prompt index, prompt uuid)


def agreed(a: Sequence[int], b: Sequence[int]) -> list[tuple[int, int]]:
    """Stops of `a` and of `b` within one stop of each other, as (a's, b's) pairs, each stop
    in at most one pair (the first match in order)."""
    left = list(b)
    pairs = []
    for k in a:
        match = next((j for j in left if abs(j - k) <= 1), None)
        if match is not None:
            left.remove(match)
            pairs.append((k, match))
    return pairs


def newest_task(
    junction: str, tail: Collection[str], tasks: tuple[Marks, Marks]
) -> tuple[str, ...]:
    """The gold of a join whose last piece opens with prompt `junction` and holds the entries
    `tail` (uuids), when its session's two readers marked `tasks`: prompt uuids, in order."""
    a, b = sorted(tasks[0]), sorted(tasks[1])
    pairs = agreed([k for k, _ in a], [k for k, _ in b])
    uuid_of = (dict(a), dict(b))

    def inside(marks: Sequence[tuple[int, str]]) -> list[str]:
        """The uuids of `marks` inside the tail after its first prompt (marks before it, or
        at it, are the junction)."""
        return [u for _, u in marks if u in tail and u != junction]

    moved = [
        (max(pair), inside([(pair[0], uuid_of[0][pair[0]]), (pair[1], uuid_of[1][pair[1]])]))
        for pair in pairs
    ]
    moved = [(k, found) for k, found in moved if found]
    newest_at, newest = moved[-1] if moved else (-1, [junction])
    alone = [(k, u) for k, u in a if k not in {p[0] for p in pairs}]
    alone += [(k, u) for k, u in b if k not in {p[1] for p in pairs}]
    later = inside([(k, u) for k, u in alone if k > newest_at])
    return tuple(dict.fromkeys([*newest, *later]))


def reader_tasks(label: Mapping[str, Any]) -> tuple[Marks, Marks]:
    """The task boundaries of both readers of one session in a labels file."""
    readers = label.get("readers", {})
    return (_tasks(readers.get("a", {})), _tasks(readers.get("b", {})))


def _tasks(answer: Mapping[str, Any]) -> list[tuple[int, str]]:
    marks = answer.get("boundaries")
    return [
        (int(mark["index"]), str(mark["uuid"]))
        for mark in (marks if isinstance(marks, list) else [])
        if mark.get("kind") == "task" and "index" in mark and "uuid" in mark
    ]
