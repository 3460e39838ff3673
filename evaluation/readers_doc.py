"""The sections of docs/EVALUATION.md on grades as people see them and on replayed notices."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation import baselines, labels, replay, variants
from evaluation.labels import Labelled, Source
from evaluation.markdown import table
from evaluation.sessions import GroupCases
from keepd.core.grade import DEFAULT_TUNING
from keepd.core.newest import DEFAULT_NEWEST
from keepd.daemon.policy import NEWEST


def readers_section(read: dict[Source, list[Labelled]], groups: Sequence[GroupCases]) -> str:
    calibration = next((found for s, found in read.items() if not s.held_out), [])
    joins = {
        group.title: group.cases for group in groups if not group.held_out and not group.independent
    }
    parts = [
        f"""## Grades as people see them

Two readers, each alone, marked on the prompts of real sessions (with the minutes since the
previous prompt and the git branch) every prompt where a new piece of work begins, as a
*task* (a different goal) or a *step* (the same task goes on), and where the work still going
on at the end began (*newest*). Calibration: `../shared/corpus/labels/boundaries.json`
({len(calibration)} sessions); held out: `evaluation/data/held_out_labels.json`, labelled
the same way and never used to choose anything. Only what both readers say is scored:
a *task switch* is a stop both call a task (within one stop of each other), found when a ●●●
zone lies within one stop of it; a ●●● zone is *off any boundary* when neither reader marked
a stop within one of it; the pick is scored where both readers' newest agree within one stop
(a newest of 0, one piece of work throughout: right when nothing is picked).

Every curve covers the whole history, with the session's own events and cues.""",
    ]
    for source, found in read.items():
        scores = [labels.score_session(case) for case in found]
        words = [labels.score_words(case) for case in found]
        role = "held out" if source.held_out else "calibration"
        parts.append(
            f"### {role}: {source.title}, {len(found)} sessions\n\n"
            + table(labels.ROW_HEADERS, labels.session_rows(scores))
            + f"\n\n- keepd: {labels.summarise(scores).line()}"
            + "\n- the words and session events alone (before the cues): "
            + labels.summarise(words).line()
            + f"\n\n#### {role}: keepd against trivial picks and grades\n\n"
            + _AGAINST
            + "\n\n"
            + "\n".join(baselines.against(found, scores, None if source.held_out else joins))
        )
    held = next((found for s, found in read.items() if s.held_out), [])
    held_joins = {
        group.title: group.cases for group in groups if group.held_out and not group.independent
    }
    points = DEFAULT_TUNING.points
    parts.append(
        f"""### What each cue and pick rule adds (calibration)

Each row runs keepd's grading with one cue taken out or another counted as if it were work
finished, or with another rule for the pick among the zones keepd grades; the labels are the
calibration readers', the joins the calibration joins (tails 8-15), each scored against its
gold from the calibration labels, with the junction alone in brackets ("Sessions: keepd's
pick"). Unless a row says otherwise, the pick is the newest-work model's (core/newest.py);
the rows "pick before" run the rule before it, in which the words' own ●●● zones outrank ●●●
zones the cues made with fewer than {points.ranked:g} points, and the rows "newest-work pick"
set one of the model's weights to 0 (not refitted) or move its floor.
`python -m evaluation.fit_newest` prints the model's leave-one-session-out figures, refitted
for each choice, with standard errors (a join's counted with every join of the same tail: they
share its stops and miss together) and each choice's paired difference from the chosen one;
`python -m evaluation.probes.pick_misses` sorts the pick's misses on the same footing into causes.

{variants.variant_table(calibration, joins)}

keepd's rule is the second row: every cue's points (core/points.py) from a logistic fit on
the calibration stops both readers call a task against the usable stops no reader marked within
one stop (a ●●● zone next to any reader's boundary is not wrong, so those stops are left out
of the fit), rounded to halves; ●●● at {points.clear:g} points, chosen by the rule below (the
rows at {points.clear - 0.5:g} and {points.clear + 0.5:g} show the trade between finding task
switches and staying at a reader boundary), and a cued ●●● zone of {points.ranked:g} points or
more ranks with the words' own for the pick under the newest-work model's floor (the "pick
before" rows: it found the most newest pieces, and the joins within one of their gold more
often than a point lower). The pick itself is the newest-work model's: the usable stop where
new work most likely begins for the last time (core/newest.py, fitted by
`python -m evaluation.fit_newest` on the calibration labels and joins after the points).
`python -m evaluation.fit_points --ablate` refits the table and prints, leaving one session
out at a time (the points fitted and the total chosen on the other sessions), the figures with
each signal left out of the fit. Held out was looked at twice before this table, the first
time with new files at 0.5 points (6/8 task switches, 16/23 ●●● at a boundary, 8/13 picks),
which led to the standard-error rule; this table (new words, a reply's opening, new files and
the pause beside a branch switch) and the newest-work model were chosen on calibration data
alone, and are checked here beside the grading before the cues' points and the pick rule before
the model:

{variants.held_out_check(held, held_joins)}

How often each cue is present at the stops both readers call a task, at stops only marked
otherwise (a step, or a task by one reader), and at stops nobody marked (calibration):

{variants.cue_rates(calibration)}

### Where the joins' missed picks land

Picks more than one stop from a join's gold: in an earlier piece; short of the gold, at or
after the junction when the last piece's readers marked a newer task (most often the junction
itself); after the gold at a stop those readers marked (a step); or after it elsewhere:

{_misses(groups, read)}"""
    )
    parts.append(_constants())
    return "\n\n".join(parts)


def _misses(groups: Sequence[GroupCases], read: dict[Source, list[Labelled]]) -> str:
    side = {source.held_out: found for source, found in read.items()}
    return "\n".join(
        f"- {group.label}: {variants.join_misses(group.cases, side.get(group.held_out, []))}."
        for group in groups
        if not group.independent
    )


def _points_line() -> str:
    p = DEFAULT_TUNING.points
    return (
        f"cue points: work finished {p.finished:g}, git branch {p.branch:g}, pause "
        f"{p.pause:g} (beside a branch switch too), a prompt of {p.long_words}+ words "
        f"{p.long_prompt:g}, of {p.fuller}+ after one of {p.short} or fewer {p.after_short:g}, "
        f"turns to the next thing {p.turns:g}, after a prompt that closed the work "
        f"{p.after_closing:g}, new files ({p.fresh_share:.0%} of {p.turns_ahead} turns) "
        f"{p.new_files:g}, new words ({p.novel_share:.0%} of {p.novel_words}+ words no earlier "
        f"prompt used) {p.novel:g}, a reply's opening {p.replies:g}, words at ●● height "
        f"{p.words:g}, no content {p.bare:g}; ●●● at {p.clear:g} points, not beaten next to it"
    )


def _newest_line() -> str:
    model = DEFAULT_NEWEST
    weights = ", ".join(f"{name} {weight:g}" for name, weight in model.weights)
    return (
        f"the newest-work model: intercept {model.intercept:g}, {weights}; the words' height "
        f"capped at {model.height_cap:g} wiggles; a pick needs a newest score of {model.floor:g}"
    )


def _constants() -> str:
    t = DEFAULT_TUNING
    rows = [
        [
            f"●●● / ●● / ● at {t.clear:g} / {t.subtopic:g} / {t.faint:g} wiggles; rise "
            f"{t.clear_rise:g}; windows {t.ahead} / {t.behind}; rise weight {t.rise_weight:g}; "
            f"kept power {t.kept_power:g}",
            "the calibration joins (seeds 7, 11, 13), earlier sessions; the sweep below",
        ],
        [
            f"floors: {t.min_kept_uses} word uses, {t.min_kept_share:.0%} of them, "
            f"frees {t.min_frees:.0%}",
            "the calibration joins",
        ],
        [
            f"a pause is {t.pause_minutes:g} minutes or more before a prompt",
            "the six sessions of corpus/labels/newest_piece.json, in earlier work",
        ],
        [
            _points_line(),
            "boundaries.json (`python -m evaluation.fit_points`): a logistic fit (ridge 1) of "
            "the stops both readers call a task against the usable stops no reader marked "
            "within one, coefficients rounded to halves; the ●●● total on the same sessions: "
            "the most task switches found while ●●● stays at a reader boundary in 85% or more "
            "one standard error down; which signals count, by the same figures left one session "
            "out (a signal stays if leaving it out finds fewer task switches); the held-out "
            "check below was looked at twice before this table (see CHANGELOG and the commits "
            "of issue 14)",
        ],
        [
            f"a cued ●●● zone of {DEFAULT_TUNING.points.ranked:g}+ points ranks with the words' "
            "own for the pick (the rule under the newest-work model's floor)",
            "boundaries.json (the newest piece) and the calibration joins (their gold)",
        ],
        [
            _newest_line(),
            "python -m evaluation.fit_newest: a ridge logistic fit on the usable stops of "
            "boundaries.json's sessions (both readers' tasks) and of the calibration joins "
            "(their junctions too); features, target, ridge and floor chosen on "
            "leave-one-session-out figures (a join: without every session in it)",
        ],
        [
            'prompt words: "long" 20+, "fuller" 10+ after 3 or fewer or a command (whose words '
            'are markup); "turns to the next thing": next issue / task / step, "next:", '
            "another issue, something else, moving on, switch to (in the first 200 characters); "
            '"closes the work": great, thanks, perfect, that works, looks good (not "... but"); '
            '"new words" 60% of 5+; "a reply\'s opening": yes, no, but, also, still, hmm, '
            'wait, or, an option\'s letter or number, a quote (">")',
            "the prompts of boundaries.json's sessions around the task switches the points "
            "missed and the ●●● zones off any boundary (read by hand); the word counts from the "
            "logistic fit's features; new words' 60% / 5 from 50-80% / 5-10 left one session out",
        ],
        [
            "work finished: git commit / push / merge, gh pr create / merge in a Bash call",
            "the corpus's tool calls (the commands people's sessions run)",
        ],
        [
            "the tie rule: a content-free prompt gives way to the next prompt within one wiggle",
            "no constant of its own (the wiggle)",
        ],
        [
            f"urgent notices skip the {NEWEST + 1} newest stops unless ●●● there",
            "the replay of every corpus session below (no labels used)",
        ],
        [
            "●●● only where work finished, a branch switch, a pause, a prompt that turns to the "
            "next thing or one after a closing prompt is named, or the words stand "
            f"{DEFAULT_TUNING.points.sure_height:g}+ wiggles high (core/sure.py)",
            "boundaries.json left one project out (issue 27's cues that carry across projects; "
            "the height: the newest-work model's own cap, 10, 15 and 20 alike there)",
        ],
        [
            f"the pick gives way to a later such ●●● among the {DEFAULT_TUNING.recent} newest "
            "prompts; an urgent notice once per session",
            "boundaries.json, in sample and left one project out (windows of 4-8 alike); the "
            "replay of its sessions (python -m evaluation --calibration)",
        ],
    ]
    return "### Which data chose each constant\n\n" + table(["constant", "chosen on"], rows)


_AGAINST = """A trivial pick names a stop by its position alone; a trivial grade puts ●●● where a
rule with no model would (evaluation/baselines.py). keepd must beat them. On calibration, keepd as
shipped is scored on the sessions its constants were chosen on (not evidence); the rows "left
one project out" refit the cues' points and ●●● total (fit_points), or the newest-work model
(fit_newest), on the other projects' sessions only, then grade the project left out."""


def headline(
    runs: Sequence[replay.Replayed],
    read: dict[Source, list[Labelled]],
    left_out: Sequence[replay.Replayed] = (),
) -> str:
    """The notices a person would get, per side: the page's first figure; `left_out`:
    calibration's sessions replayed with keepd's points fitted on the other projects."""
    by_name = {run.session: run for run in runs}
    return f"""## The notices a person would get

Every labelled session replayed turn by turn through the daemon's own notice policy
(`keepd.daemon.policy.decide`, default settings; "Notices, replayed" below lists each notice),
each notice marked against the two readers' boundaries: within one stop of where either
reader's newest task so far begins (the newest task marked at or before the prompt just
answered), else of either reader's task boundary, else of a step, else neither. Calibration
labels chose keepd's constants; held-out labels chose nothing.

{replay.headline(read, by_name, left_out)}"""


def replay_section(runs: Sequence[replay.Replayed], labelled: Sequence[Labelled]) -> str:
    by_name = {case.name: case for case in labelled}
    return f"""## Notices, replayed

Every corpus session followed as the daemon follows it, one turn at a time: after each turn
(when the session is quiet) the daemon's own policy (`keepd.daemon.policy.decide`, default
settings) runs on a compact session state with a clock set to the newest entry's time, and a
notice sent is remembered as the daemon does. "stop" is the stop's position in the current
context and how many picker entries lie below it; "at a task" says, for labelled sessions,
whether a reader calls a stop within one of it a task.

{table(replay.ROW_HEADERS, replay.rows(runs, by_name))}

{replay.line(replay.summarise(runs, by_name))}."""
