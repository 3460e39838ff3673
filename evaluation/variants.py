"""What each cue and pick rule adds: keepd's grading with one cue taken out or another counted
in, or another rule for the pick, scored on the readers' labels and on the joins (against their
gold, the junction alone beside it); and where a join's missed pick lands.

A cue is counted in by treating it as work finished before the stop, and a pick rule chooses
among the zones keepd grades, so every variant runs the one grading rule of core/grade.py; the
rows "pick before" run the pick rule before the newest-work model (core/newest.py), the rows
"newest-work pick" that model with a weight set to 0 or another floor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from evaluation import labels
from evaluation.labels import Labelled
from evaluation.markdown import percent, table
from evaluation.score import Prepared, grading_of, judge_grading, summarise
from keepd.core.cues import STARTS, TURNS, StopCues
from keepd.core.grade import DEFAULT_TUNING, Grade, Grading, Zone, grade
from keepd.core.newest import DEFAULT_NEWEST, HEIGHT, POINTS, ZONE_FEATURES, Newest
from keepd.core.points import DEFAULT_POINTS, score

Variant = Callable[[Prepared], Grading]
LONG_PROMPT = DEFAULT_POINTS.long_words  # content words
FRESH_SHARE = DEFAULT_POINTS.fresh_share  # of the files the next `turns_ahead` turns touch


def _words_and_events(p: Prepared) -> Grading:
    return grade(p.curve, p.frees, DEFAULT_TUNING, p.events)


def _counting(extra: Callable[[Prepared], np.ndarray]) -> Variant:
    def run(p: Prepared) -> Grading:
        if p.cues is None:
            return grading_of(p)
        finished = p.cues.finished | np.asarray(extra(p), dtype=bool)
        return grade(p.curve, p.frees, DEFAULT_TUNING, p.events, _with(p.cues, finished))

    return run


def _with(cues: StopCues, finished: np.ndarray) -> StopCues:
    return dataclasses.replace(cues, finished=finished)


def _fresh(p: Prepared) -> np.ndarray:
    return p.cues.fresh_share(3) >= FRESH_SHARE if p.cues is not None else np.zeros(0)


def _starts(p: Prepared) -> np.ndarray:
    if p.cues is None:
        return np.zeros(0)
    return ((p.cues.marks & STARTS) > 0) | p.cues.after_clear()


def _long(p: Prepared) -> np.ndarray:
    return p.prompt_uses >= LONG_PROMPT if p.prompt_uses is not None else np.zeros(0)


def _turns(p: Prepared) -> np.ndarray:
    return (p.cues.marks & TURNS) > 0 if p.cues is not None else np.zeros(0)


def _signal(field: str) -> Callable[[Prepared], np.ndarray]:
    """Where one signal of the points table is present (core/points.py reads it)."""

    def read(p: Prepared) -> np.ndarray:
        if p.cues is None:
            return np.zeros(0)
        high = np.zeros(len(p.cues), dtype=bool)
        pause = DEFAULT_TUNING.pause_minutes * 60
        signals = score(p.cues, p.events, high, DEFAULT_POINTS, pause).signals
        return next(s.present for s in signals if s.field == field)

    return read


def _numbers(p: Prepared) -> np.ndarray:
    return p.cues.new_number if p.cues is not None else np.zeros(0)


def _points(**changes: Any) -> Variant:
    """keepd's grading with other points for the cues (core/points.py)."""
    return _tuned(DEFAULT_NEWEST, **changes)


def _tuned(newest: Newest | None, **changes: Any) -> Variant:
    """keepd's grading with another newest-work model (None: the pick rule before it) and
    other points for the cues."""
    table = dataclasses.replace(DEFAULT_POINTS, **changes)
    tuning = dataclasses.replace(DEFAULT_TUNING, points=table, newest=newest)
    return lambda p: grade(p.curve, p.frees, tuning, p.events, p.cues)


def _newest(*zeroed: str, **changes: Any) -> Variant:
    """keepd's grading with the newest-work model's weights of `zeroed` features set to 0
    (not refitted: `python -m evaluation.fit_newest` refits) or other `changes`."""
    weights = tuple((name, 0.0 if name in zeroed else w) for name, w in DEFAULT_NEWEST.weights)
    return _tuned(dataclasses.replace(DEFAULT_NEWEST, weights=weights, **changes))


_before = _tuned(None)


def _picking(rule: Callable[[list[Zone]], Zone], inner: Variant = _before) -> Variant:
    """`inner`'s zones with another pick among its ●● and ●●● zones (events' picks kept)."""

    def run(p: Prepared) -> Grading:
        grading = inner(p)
        strong = [z for z in grading.zones if z.grade.strength >= Grade.SUBTOPIC.strength]
        if not strong or grading.pick is None or grading.pick.event is not None:
            return grading
        return dataclasses.replace(grading, pick=rule(strong))

    return run


def _latest(strong: list[Zone]) -> Zone:
    """The latest zone of the strongest grade, whether words or cues made it so."""
    top = max(zone.grade.strength for zone in strong)
    return [zone for zone in strong if zone.grade.strength == top][-1]


def _strongest(strong: list[Zone]) -> Zone:
    """keepd's rank, then the highest multiple, then the latest."""
    top = max((zone.grade.strength, not zone.cued) for zone in strong)
    ranked = [zone for zone in strong if (zone.grade.strength, not zone.cued) == top]
    return max(ranked, key=lambda zone: (zone.multiple, zone.best))


# Each signal of the points table, by the field that gives its points.
SIGNALS = {
    "work finished": "finished",
    "a git branch switch": "branch",
    "a pause": "pause",
    "a long prompt": "long_prompt",
    "a fuller prompt after short replies": "after_short",
    "a prompt that turns to the next thing": "turns",
    "the prompt before closed the work": "after_closing",
    "new files": "new_files",
    "new words": "novel",
    "a reply's opening": "replies",
    "the words at ●● height": "words",
    "the content-free prompt's penalty": "bare",
}
LATEST = "pick before: latest ●●● (cues rank as words)"
BEFORE = "pick before: the latest zone of the strongest rank (no newest-work model)"
RANKED, CLEAR = DEFAULT_POINTS.ranked, DEFAULT_POINTS.clear
PICK_RULES: dict[str, Variant] = {
    BEFORE: _before,
    f"pick before: cued ●●● ranks with the words at {RANKED - 0.5:g} points": _tuned(
        None, ranked=RANKED - 0.5
    ),
    f"pick before: cued ●●● ranks with the words at {RANKED + 0.5:g} points": _tuned(
        None, ranked=RANKED + 0.5
    ),
    "pick before: cued ●●● never ranks with the words": _tuned(None, ranked=float("inf")),
    LATEST: _picking(_latest),
    "pick before: highest ●●● multiple": _picking(_strongest),
}
NEWEST_RULES: dict[str, Variant] = {
    "newest-work pick without the cue points (weight 0)": _newest(POINTS),
    "newest-work pick without new files (weight 0)": _newest("new files"),
    "newest-work pick without the words' height (weight 0)": _newest(HEIGHT),
    "newest-work pick without the zone grades (weights 0)": _newest(*ZONE_FEATURES),
    "newest-work pick, floor 0.05": _newest(floor=0.05),
    "newest-work pick, floor 0.15": _newest(floor=0.15),
}

VARIANTS: dict[str, Variant] = {
    "words and session events (no cue points)": _words_and_events,
    "keepd: the points table, the newest-work pick": grading_of,
    **{f"without {name}": _points(**{field: 0.0}) for name, field in SIGNALS.items()},
    "+ a prompt that starts work (points as work finished)": _counting(_starts),
    "+ a new issue or PR number (points as work finished)": _counting(_numbers),
    f"●●● at {CLEAR - 0.5:g} points": _points(clear=CLEAR - 0.5),
    f"●●● at {CLEAR + 0.5:g} points": _points(clear=CLEAR + 0.5),
    **PICK_RULES,
    **NEWEST_RULES,
}


def variant_table(
    labelled: Sequence[Labelled],
    joins: Mapping[str, Sequence[Prepared]],
    chosen: Mapping[str, Variant] = VARIANTS,
) -> str:
    """Each variant on one side's labels and joins (the piece-aware gold from those labels)."""
    rows = []
    for name, variant in chosen.items():
        s = labels.summarise(
            [labels.score_grading(case, variant(case.prepared)) for case in labelled]
        )
        cells = [
            f"{percent(j.exact)} / {percent(j.within_one)} "
            f"({percent(j.junction_exact)} / {percent(j.junction_within_one)})"
            for j in (
                summarise([judge_grading(case, variant(case)) for case in cases])
                for cases in joins.values()
            )
        ]
        rows.append(
            [
                name,
                f"{s.found}/{s.switches} ({percent(s.found_share)})",
                f"{s.clear - s.false_clear}/{s.clear} ({percent(s.clear_at_boundary)})",
                f"{s.picks_near}/{s.sessions} ({percent(s.pick_share)})",
                *cells,
            ]
        )
    headers = [
        "grading",
        "task switches with ●●● within one",
        "●●● at a reader boundary",
        "pick within one of the newest",
        *(f"{title}: at / within one of the gold (of the junction alone)" for title in joins),
    ]
    return table(headers, rows)


def held_out_check(labelled: Sequence[Labelled], joins: Mapping[str, Sequence[Prepared]]) -> str:
    """keepd, and the grading before the cues' points, on the held-out labels and joins."""
    before = "words and session events (no cue points)"
    chosen = {before: VARIANTS[before], BEFORE: _before, "keepd": grading_of}
    return variant_table(labelled, joins, chosen)


def cue_rates(labelled: Sequence[Labelled]) -> str:
    """How often each cue is present at stops both readers call a task, at other marked
    stops, and at stops nobody marked."""
    cues: dict[str, Callable[[Prepared], Any]] = {
        "work finished (tool calls)": _signal("finished"),
        "a session event (branch, compaction, pause)": lambda p: np.asarray(p.events) > 0,
        f"new files ({FRESH_SHARE:.0%}+)": _fresh,
        "a prompt that starts work": _starts,
        "a new issue or PR number": _numbers,
        f"a long prompt ({LONG_PROMPT}+ words)": _long,
        "a prompt that turns to the next thing": _turns,
        f"new words ({DEFAULT_POINTS.novel_share:.0%}+ of the prompt's)": _signal("novel"),
        "a reply's opening": _signal("replies"),
    }
    kinds: dict[str, list[tuple[Labelled, int]]] = {
        "task (both)": [],
        "other marks": [],
        "none": [],
    }
    for case in labelled:
        tasks = {k for pair in case.task_switches() for k in pair}
        marked = case.boundaries()
        for k in range(len(case.prepared.curve)):
            kind = "task (both)" if k in tasks else "other marks" if k in marked else "none"
            kinds[kind].append((case, k))
    rows = []
    for name, read in cues.items():
        cells = []
        for stops in kinds.values():
            hits = sum(1 for case, k in stops if bool(read(case.prepared)[k]))
            cells.append(f"{hits}/{len(stops)} ({percent(hits / max(len(stops), 1))})")
        rows.append([name, *cells])
    return table(["cue", *(f"at {kind}" for kind in kinds)], rows)


def join_misses(cases: Sequence[Prepared], labelled: Sequence[Labelled]) -> str:
    """Where the picks that miss a join's gold by more than one stop land: in an earlier piece,
    between the junction and a gold the last piece's readers moved later, after the gold at a
    stop its readers marked (a step), after it elsewhere; or nowhere (no pick)."""
    places = dict.fromkeys(("earlier", "short", "marked", "later", "none"), 0)
    for case in cases:
        gold = case.at_gold()
        grading = grading_of(case)
        if grading.pick is None or not gold or case.gold is None:
            places["none"] += 1
            continue
        at = grading.pick.best
        if any(abs(at - k) <= 1 for k in gold):
            continue
        places[_place(at, case.gold, case, gold, labelled)] += 1
    return (
        f"{sum(places.values())} of {len(cases)} picks miss the gold by more than one stop: "
        f"{places['earlier']} in an earlier piece, {places['short']} between the junction and "
        f"a newer task inside the last piece, {places['marked']} later at a stop the last "
        f"piece's readers marked (a step), {places['later']} later elsewhere, "
        f"{places['none']} without a pick"
    )


def _place(
    at: int, junction: int, case: Prepared, gold: tuple[int, ...], labelled: Sequence[Labelled]
) -> str:
    """Where a missed pick at stop `at` of a join lies (join_misses' places)."""
    if at < junction:
        return "earlier"
    if at < min(gold):
        return "short"
    source = next(s for s in labelled if s.name == case.case.pieces[-1])
    where = {uuid: k for k, uuid in enumerate(source.prepared.uuids)}
    k = where.get(case.uuids[at])
    marked = k is not None and any(abs(k - j) <= 1 for j in source.boundaries())
    return "marked" if marked else "later"
