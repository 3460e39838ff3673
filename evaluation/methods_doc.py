"""The reference page's section on keepd against the other methods: each method's pick on every
kind of case, and TextTiling timed beside keepd on a sample."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from evaluation.markdown import image, percent, table
from evaluation.picks import Choice, MethodRows, Timed, exact, within_one
from evaluation.score import Prepared


def section(
    data: MethodRows, timed: Sequence[Timed], labelled: Sequence[Prepared], figure: str
) -> str:
    """The section: every method's cells by kind of case, then TextTiling timed beside keepd."""
    names = list(data.choices)
    rows = []
    for kind, cases in data.kinds.items():
        cells = [_cell(kind, data.choices[name][kind]) for name in names]
        rows.append([kind, len(cases), *cells])
    every = {name: [c.seconds for cs in data.choices[name].values() for c in cs] for name in names}
    ms = [f"{statistics.median(every[n]) * 1000:.1f}" if every[n] else "-" for n in names]
    rows.append(["ms per session (median)", "", *ms])
    sample = _sample_note(timed, labelled)
    settings = "\n".join(f"- {name}: {data.settings[name]}" for name in names)
    return f"""## Sessions: keepd against the other methods

Each method chooses one stop:

{settings}

Cells are *pick at the gold / within one stop*, held-out joins only, the gold being each
join's ("Sessions: keepd's pick": the junction, or the newest task the last piece's readers
marked inside it). In the first three rows every piece has the same tail (stitch.py's
`--tail`), so the junction of two pieces is the middle stop and the even split scores by
construction where the gold is the junction; in the rows marked "tails", each piece has its
own tail and the junction can be anywhere. Pelt's penalty ({data.pelt_penalty:g}) was chosen
on the calibration joins. On unstitched sessions, where no break was made on purpose, the cell
is how often a method names a stop at all. Times exclude reading the file (curve, turns and
bag of words come prepared); keepd's is its grading alone.

{table(["cases", "n", *names], rows)}

{_standing(data)}

{image(figure, "Picks at the gold and within one stop, per method")}

### TextTiling, timed against keepd on the same sessions

TextTiling's block comparison takes seconds on a session, so it runs on a sample: the first
{sample} (two processes). Its one stop is the turn nearest its deepest gap (nltk's
defaults, w=20, k=10; the turns' content words as text). keepd's time here is the whole
analysis of the file, reading and parsing included.

{_timed_table(timed)}"""


def _standing(data: MethodRows) -> str:
    """keepd against the best other method on the joins whose junction can be anywhere."""
    rates = pooled_rates(data)
    keepd = rates.pop("keepd")
    best = max(rates, key=lambda name: rates[name][1])
    return (
        f"Pooled over the joins whose pieces have their own tails, keepd picks the gold "
        f"{percent(keepd[0])} of the time ({percent(keepd[1])} within one stop); the best other "
        f"method within one stop is {best}: {percent(rates[best][0])} / {percent(rates[best][1])}."
    )


def _cell(kind: str, choices: Sequence[Choice]) -> str:
    if kind == "unstitched":
        return percent(sum(1 for c in choices if c.pick is not None) / max(len(choices), 1))
    return f"{percent(exact(choices))} / {percent(within_one(choices))}"


def _sample_note(timed: Sequence[Timed], labelled: Sequence[Prepared]) -> str:
    names = {c.case.name for c in labelled}
    sessions = sum(1 for t in timed if t.name in names)
    return (
        f"{len(timed) - sessions} held-out joins (tails 8-15) and {sessions} labelled sessions"
    )


def _timed_table(timed: Sequence[Timed]) -> str:
    rows = []
    for name, choices in (
        ("keepd (analyse_file, whole history)", [t.keepd for t in timed]),
        ("TextTiling, block comparison", [t.block for t in timed]),
        ("TextTiling, vocabulary introduction", [t.vocabulary for t in timed]),
    ):
        seconds = [c.seconds for c in choices]
        rows.append(
            [
                name,
                len(choices),
                percent(exact(choices)),
                percent(within_one(choices)),
                f"{statistics.median(seconds) * 1000:.0f} ms" if seconds else "-",
                f"{sum(seconds):.1f} s",
            ]
        )
    return table(["method", "n", "pick at gold", "within one", "median per session", "total"], rows)


def pooled_rates(rows: MethodRows) -> dict[str, tuple[float, float]]:
    """Each method on the held-out joins whose pieces have their own tails, pooled."""
    out = {}
    for method, by_kind in rows.choices.items():
        pooled = [c for kind in rows.independent for c in by_kind[kind]]
        out[method] = (exact(pooled), within_one(pooled))
    return out
