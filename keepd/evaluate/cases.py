"""Builds the evaluation cases from the shared corpus: stitched joins with their gold junctions."""

from __future__ import annotations

import importlib.util
import random
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class Case:
    """A session file and the uuid of the stop that should be picked (None: no break)."""

    name: str
    path: Path
    gold: str | None
    kind: str  # "cross", "same", "labelled", "single"


def find_shared(start: Path | None = None) -> Path | None:
    """The `shared` folder beside the checkout, if there is one."""
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        candidate = folder.parent / "shared"
        if (candidate / "corpus" / "sessions").is_dir():
            return candidate
    return None


def load_stitch(shared: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("stitch", shared / "tools" / "stitch.py")
    if spec is None or spec.loader is None:
        raise ImportError("cannot load stitch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def corpus_sessions(shared: Path) -> list[Path]:
    """The user sessions of the corpus (sub-agent transcripts left out)."""
    return sorted(
        path
        for path in (shared / "corpus" / "sessions").glob("*.jsonl")
        if "__agent-" not in path.name
    )


def repository(path: Path) -> str:
    return "__".join(path.name.split("__")[:2])


def prompt_count(stitch: ModuleType, path: Path) -> int:
    return sum(1 for entry in stitch.piece(stitch.read(str(path))) if stitch.is_prompt(entry))


def stitched_cases(
    shared: Path,
    out: Path,
    *,
    count: int,
    pieces: int = 2,
    same_repository: bool = False,
    tails: tuple[int, int] = (8, 15),
    seed: int = 7,
) -> list[Case]:
    """`count` joins of `pieces` sessions each, every piece cut to a random tail length."""
    stitch = load_stitch(shared)
    sessions = corpus_sessions(shared)
    prompts = {path: prompt_count(stitch, path) for path in sessions}
    rng = random.Random(seed)
    cases: list[Case] = []
    kind = "same" if same_repository else "cross"
    out.mkdir(parents=True, exist_ok=True)
    for attempt in range(count * 50):
        if len(cases) >= count:
            break
        tail = rng.randint(*tails)
        usable = [path for path in sessions if prompts[path] >= tail]
        chosen = _choose(rng, usable, pieces, same_repository)
        if chosen is None:
            continue
        name = f"{kind}{pieces}-s{seed}-{attempt:04d}-t{tail}"
        target = out / f"{name}.jsonl"
        entries, gold = stitch.stitch([str(p) for p in chosen], None, tail)
        target.write_bytes(b"".join(orjson.dumps(entry) + b"\n" for entry in entries))
        cases.append(Case(name, target, _last(gold), kind))
    return cases


def _choose(
    rng: random.Random, usable: list[Path], pieces: int, same: bool
) -> list[Path] | None:
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
