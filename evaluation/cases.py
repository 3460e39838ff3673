"""Builds the evaluation cases from the shared corpus: stitched joins with their gold junctions."""

from __future__ import annotations

import functools
import importlib.util
import random
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from evaluation.piece_gold import newest_task, reader_tasks


@dataclass(frozen=True, slots=True)
class Case:
    """A session file and the uuid of the stop that should be picked (None: no break)."""

    name: str
    path: Path
    gold: str | None
    kind: str  # "cross", "same", "labelled", "single"
    junctions: tuple[str, ...] = ()  # a stitched join's: the first prompt of every later piece
    pieces: tuple[str, ...] = ()  # a stitched join's: the session file of every piece, in order
    targets: tuple[str, ...] = ()  # a join's gold (piece_gold.py) as prompt uuids; () `gold` alone


def find_shared(start: Path | None = None) -> Path | None:
    """The `shared` folder beside the checkout, if there is one."""
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        candidate = folder.parent / "shared"
        if (candidate / "corpus" / "sessions").is_dir():
            return candidate
    return None


def shared_or_none(given: Path | None, prog: str) -> Path | None:
    """`given`, else the `shared` folder beside the checkout; None, said in one line on
    stderr, when there is neither or `given` holds no corpus of sessions."""
    shared = given or find_shared()
    if shared is None:
        print(f"{prog}: no ../shared corpus found (give --shared)", file=sys.stderr)
    elif not (shared / "corpus" / "sessions").is_dir():
        print(f"{prog}: {shared} holds no corpus/sessions folder", file=sys.stderr)
        return None
    return shared


@functools.cache
def load_stitch(shared: Path) -> ModuleType:
    """`stitch.py` of the shared tools, reading each transcript once per process."""
    spec = importlib.util.spec_from_file_location("stitch", shared / "tools" / "stitch.py")
    if spec is None or spec.loader is None:
        raise ImportError("cannot load stitch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    vars(module)["read"] = functools.cache(module.read)  # it copies the entries it changes
    return module


def forget_transcripts(shared: Path) -> None:
    """Drops the transcripts `load_stitch` keeps once every join is written."""
    load_stitch(shared).read.cache_clear()


def corpus_sessions(shared: Path) -> list[Path]:
    """The user sessions of the corpus (sub-agent transcripts left out)."""
    return sorted(
        path
        for path in (shared / "corpus" / "sessions").glob("*.jsonl")
        if "__agent-" not in path.name
    )


HELD_OUT_LABELS = Path(__file__).resolve().parent / "data" / "held_out_labels.json"


def label_file(shared: Path, held_out: bool) -> Path:
    """The readers' labels of one side of the split: calibration (corpus/labels/boundaries.json)
    or held out (kept in the repository, never tuned on)."""
    return HELD_OUT_LABELS if held_out else shared / "corpus" / "labels" / "boundaries.json"


def side_labels(shared: Path, held_out: bool) -> dict[str, Any]:
    """The labels of one side of the split, by session file name."""
    path = label_file(shared, held_out)
    return orjson.loads(path.read_bytes()) if path.is_file() else {}


def side_sessions(shared: Path, held_out: bool) -> list[Path]:
    """The corpus sessions labelled on one side of the split, the only ones its joins draw on.

    A join drawn from both sides would carry sessions the constants were tuned on into the
    held-out check, and a piece nobody labelled has no gold but its junction. A corpus session
    labelled on neither side therefore goes into no join.
    """
    names = set(side_labels(shared, held_out))
    return [path for path in corpus_sessions(shared) if path.name in names]


def project(name: str) -> str:
    """A corpus session's project: its file name before the second `__`.

    >>> project("ebridges__wakil__3f2a.jsonl")
    'ebridges__wakil'
    """
    return "__".join(name.split("__")[:2])


def repository(path: Path) -> str:
    return project(path.name)


def project_folds(names: Sequence[str]) -> list[list[int]]:
    """The positions of `names` grouped by project, in order of each project's first name: the
    folds of a cross-validation that leaves one project out, so that no figure rests on a
    project's own style.

    >>> project_folds(["a__x__1", "b__y__1", "a__x__2"])
    [[0, 2], [1]]
    """
    folds: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        folds.setdefault(project(name), []).append(i)
    return list(folds.values())


def same_projects(names: Iterable[str], every: Iterable[str]) -> frozenset[str]:
    """`names` and every name of `every` from one of their projects: what a fit leaves out
    when it leaves their projects out."""
    given = list(names)
    projects = {project(name) for name in given}
    return frozenset({*given, *(name for name in every if project(name) in projects)})


def prompt_count(stitch: ModuleType, path: Path) -> int:
    return sum(1 for entry in stitch.piece(stitch.read(str(path))) if stitch.is_prompt(entry))


def stitched_cases(
    shared: Path,
    sessions: list[Path],
    out: Path,
    *,
    labels: Mapping[str, Any],
    count: int,
    pieces: int = 2,
    same_repository: bool = False,
    tails: tuple[int, int] = (8, 15),
    seed: int = 7,
    independent: bool = False,
) -> list[Case]:
    """Up to `count` joins of `pieces` of `sessions` each, every piece cut to a random tail
    length; a draw of the same pieces with the same tails as an earlier one is skipped. Each
    join's gold is read from `labels` (a labels file's sessions) for its last piece.

    With one tail for every piece (stitch.py's `--tail`), the junction of two pieces is the
    middle stop; `independent` draws each piece's tail on its own (up to its length).
    """
    stitch = load_stitch(shared)
    prompts = {path: prompt_count(stitch, path) for path in sessions}
    rng = random.Random(seed)
    cases: list[Case] = []
    kind = "same" if same_repository else "cross"
    out.mkdir(parents=True, exist_ok=True)
    drawn: set[tuple[tuple[Path, ...], tuple[int, ...]]] = set()
    for attempt in range(count * 50):
        if len(cases) >= count:
            break
        tail = rng.randint(*tails)
        usable = [p for p in sessions if prompts[p] >= (tails[0] if independent else tail)]
        chosen = _choose(rng, usable, pieces, same_repository)
        if chosen is None:
            continue
        cuts = [tail] * pieces
        if independent:
            cuts = [rng.randint(tails[0], min(tails[1], prompts[p])) for p in chosen]
        if (tuple(chosen), tuple(cuts)) in drawn:
            continue  # the same join twice would count one case twice
        drawn.add((tuple(chosen), tuple(cuts)))
        name = f"{kind}{pieces}-s{seed}-{attempt:04d}-t{'+'.join(map(str, cuts))}"
        if not independent:
            name = f"{kind}{pieces}-s{seed}-{attempt:04d}-t{tail}"
        target = out / f"{name}.jsonl"
        entries, gold = _stitch(stitch, chosen, cuts, out / name)
        target.write_bytes(b"".join(orjson.dumps(entry) + b"\n" for entry in entries))
        junctions = tuple(gold.get("junctions") or ())
        names = tuple(path.name for path in chosen)
        targets = _targets(entries, _last(gold), labels.get(names[-1]))
        cases.append(Case(name, target, _last(gold), kind, junctions, names, targets))
    return cases


def _stitch(
    stitch: ModuleType, chosen: list[Path], cuts: list[int], stem: Path
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """stitch.py's join; pieces of different tails are cut first, each into a file of its own."""
    if len(set(cuts)) == 1:
        return stitch.stitch([str(p) for p in chosen], None, cuts[0])  # type: ignore[no-any-return]
    paths = []
    for k, (path, cut) in enumerate(zip(chosen, cuts, strict=True)):
        entries = stitch.trim(stitch.piece(stitch.read(str(path))), None, cut)
        paths.append(stem.with_name(f"{stem.name}.piece{k}.jsonl"))
        paths[-1].write_bytes(b"".join(orjson.dumps(entry) + b"\n" for entry in entries))
    return stitch.stitch([str(p) for p in paths], None, None)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Group:
    """A set of stitched joins: what is joined, how many, with what tails, from which seed."""

    title: str
    held_out: bool
    pieces: int
    same_repository: bool
    share: float  # cases per cross-project join of two at the same --count
    tails: tuple[int, int]
    seed: int
    independent: bool = False  # each piece its own tail

    def cases(self, shared: Path, out: Path, count: int) -> list[Case]:
        """The group's joins, their pieces drawn from its own side's labelled sessions only,
        their gold from those sessions' labels."""
        return stitched_cases(
            shared,
            side_sessions(shared, self.held_out),
            out,
            labels=side_labels(shared, self.held_out),
            count=max(round(count * self.share), 2),
            pieces=self.pieces,
            same_repository=self.same_repository,
            tails=self.tails,
            seed=self.seed,
            independent=self.independent,
        )


def _groups(held_out: bool, seeds: tuple[int, int, int]) -> list[Group]:
    two, three, same = seeds
    return [
        Group("cross-project, 2 pieces", held_out, 2, False, 1.0, (8, 15), two),
        Group("cross-project, 3 pieces (last junction)", held_out, 3, False, 1 / 3, (8, 15), three),
        Group("same repository, 2 pieces", held_out, 2, True, 0.4, (8, 15), same),
    ]


CALIBRATION = _groups(False, (7, 11, 13))
HELD_OUT = _groups(True, (101, 102, 103))
# Held out too: each piece its own tail (the junction anywhere), short, long and mixed.
TAILS = [
    Group("cross-project, 2 pieces, tails 3-6", True, 2, False, 0.5, (3, 6), 201, True),
    Group("cross-project, 3 pieces, tails 3-6", True, 3, False, 1 / 3, (3, 6), 203, True),
    Group("cross-project, 2 pieces, tails 16-30", True, 2, False, 0.5, (16, 30), 202, True),
    Group("same repository, 2 pieces, tails 16-30", True, 2, True, 0.25, (16, 30), 204, True),
    Group("cross-project, 2 pieces, tails 3-30", True, 2, False, 2 / 3, (3, 30), 205, True),
    Group("cross-project, 3 pieces, tails 3-30", True, 3, False, 1 / 3, (3, 30), 206, True),
]


def _choose(rng: random.Random, usable: list[Path], pieces: int, same: bool) -> list[Path] | None:
    if same:
        groups: dict[str, list[Path]] = {}
        for path in usable:
            groups.setdefault(repository(path), []).append(path)
        big = [group for group in groups.values() if len(group) >= pieces]
        return rng.sample(rng.choice(big), pieces) if big else None
    chosen: list[Path] = []
    for path in rng.sample(usable, len(usable)):
        if all(repository(path) != repository(other) for other in chosen):
            chosen.append(path)
        if len(chosen) == pieces:
            return chosen
    return None


def _targets(
    entries: list[dict[str, Any]], junction: str | None, label: Mapping[str, Any] | None
) -> tuple[str, ...]:
    """The join's gold from its last piece's readers: the uuids of the entries from the
    junction on are the tail."""
    if junction is None or label is None:
        return ()
    uuids = [str(entry.get("uuid")) for entry in entries]
    tail = set(uuids[uuids.index(junction) :]) if junction in uuids else set()
    return newest_task(junction, tail, reader_tasks(label))


def _last(gold: dict[str, Any]) -> str | None:
    junctions = gold.get("junctions") or []
    return junctions[-1] if junctions else None


def labelled_cases(shared: Path) -> list[Case]:
    labels = orjson.loads((shared / "corpus" / "labels" / "newest_piece.json").read_bytes())
    folder = shared / "corpus" / "sessions"
    return [
        Case(name, folder / name, label["newest"]["uuid"], "labelled")
        for name, label in sorted(labels.items())
    ]


def single_cases(shared: Path) -> list[Case]:
    return [Case(path.name, path, None, "single") for path in corpus_sessions(shared)]
