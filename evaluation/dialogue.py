"""Dialogue topic segmentation (DialSeg711, TIAGE): keepd and the usual methods, tuned off test.

keepd segments a dialogue with every utterance a stop and no floors: every zone whose height
reaches a threshold (in wiggles) starts a segment. The threshold, the windows and the rise
weight are chosen on the calibration split, as the baselines' settings are, and everything is
reported on the test split.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import product
from pathlib import Path

import orjson

from evaluation.cases import Case
from evaluation.methods import Setting, Units, even, kernel_cpd, pelt, scattered, texttiling
from evaluation.metrics import Totals, score, totals
from evaluation.score import Prepared, prepare_state
from keepd.api import text_state
from keepd.core.grade import Tuning, grade

DATASETS = (
    ("DialSeg711", "dialseg711/dialseg_711.json", ("dev",)),
    ("TIAGE", "tiage/tiage.json", ("train", "dev")),
)
PUBLISHED_TEXTTILING = (10, 6)


@dataclass(frozen=True, slots=True)
class Dialogue:
    name: str
    units: Units
    gold: list[int]  # utterances that start a segment


Segmenter = Callable[[Dialogue], list[int]]
Candidate = Setting[Segmenter]


@dataclass(frozen=True, slots=True)
class Row:
    method: str
    setting: str
    totals: Totals
    seconds: float


@dataclass(frozen=True, slots=True)
class DatasetResult:
    name: str
    calibration: str  # which splits, how many dialogues
    test: int
    rows: list[Row]


def load(shared: Path, relative: str, splits: Sequence[str], limit: int | None) -> list[Dialogue]:
    """The dialogues of `splits`, every `step`-th one when `limit` asks for fewer."""
    records = orjson.loads((shared / "corpus" / "segmentation" / relative).read_bytes())
    chosen = [r for r in records if r["set"] in splits]
    if limit is not None and len(chosen) > limit:
        step = len(chosen) / limit
        chosen = [chosen[int(i * step)] for i in range(limit)]
    return [_dialogue(relative, record) for record in chosen]


def _dialogue(relative: str, record: dict[str, object]) -> Dialogue:
    segments = [int(n) for n in record["segments"]]  # type: ignore[attr-defined]
    starts, at = [], 0
    for length in segments[:-1]:
        at += length
        starts.append(at)
    texts = [str(t) for t in record["utterances"]]  # type: ignore[attr-defined]
    return Dialogue(f"{relative}#{record['dial_id']}", Units.of_texts(texts), starts)


def run_dataset(
    shared: Path, label: str, relative: str, splits: Sequence[str], limit: int | None
) -> DatasetResult:
    calibration = load(shared, relative, splits, limit)
    test = load(shared, relative, ("test",), limit)
    rows = [_calibrated(family, calibration, test) for family in _families(calibration)]
    rows += [_measured(candidate, test) for candidate in _fixed(calibration)]
    described = f"{'+'.join(splits)} ({len(calibration)} dialogues)"
    return DatasetResult(label, described, len(test), rows)


def _calibrated(family: list[Candidate], calibration: list[Dialogue], test: list[Dialogue]) -> Row:
    best = min(family, key=lambda candidate: evaluate(candidate.run, calibration)[0].loss)
    return _measured(best, test)


def _measured(candidate: Candidate, test: list[Dialogue]) -> Row:
    fresh = Candidate(candidate.method, candidate.setting, _uncached(candidate))
    found, seconds = evaluate(fresh.run, test)
    return Row(candidate.method, candidate.setting, found, seconds)


def evaluate(run: Segmenter, dialogues: list[Dialogue]) -> tuple[Totals, float]:
    started = time.perf_counter()
    found = [run(dialogue) for dialogue in dialogues]
    seconds = time.perf_counter() - started
    scores = [
        score(d.gold, boundaries, len(d.units))
        for d, boundaries in zip(dialogues, found, strict=True)
    ]
    return totals(scores), seconds


# keepd ------------------------------------------------------------------------------------


def segmentation_tuning(
    threshold: float, window: int, rise_weight: float, kept_power: float
) -> Tuning:
    """Every utterance is a stop and there are no floors: only the zones' height decides."""
    return Tuning(
        faint=threshold,
        min_kept_uses=0,
        min_kept_share=0.0,
        min_frees=0.0,
        ahead=window,
        behind=window,
        rise_weight=rise_weight,
        kept_power=kept_power,
    )


def keepd_boundaries(prepared: Prepared, tuning: Tuning) -> list[int]:
    """Every zone starts a segment."""
    return sorted(zone.best for zone in grade(prepared.curve, prepared.frees, tuning).zones)


def prepare_dialogue(dialogue: Dialogue) -> Prepared:
    case = Case(dialogue.name, Path(dialogue.name), None, "dialogue")
    return prepare_state(case, text_state(dialogue.units.texts))


class _KeepdRun:
    """keepd at one tuning; curves are kept across tunings unless `fresh` (to time it)."""

    def __init__(self, tuning: Tuning, cache: dict[str, Prepared] | None) -> None:
        self.tuning = tuning
        self.cache = cache

    def __call__(self, dialogue: Dialogue) -> list[int]:
        if self.cache is None:
            return keepd_boundaries(prepare_dialogue(dialogue), self.tuning)
        prepared = self.cache.get(dialogue.name)
        if prepared is None:
            prepared = self.cache[dialogue.name] = prepare_dialogue(dialogue)
        return keepd_boundaries(prepared, self.tuning)


def _uncached(candidate: Candidate) -> Segmenter:
    run = candidate.run
    return _KeepdRun(run.tuning, None) if isinstance(run, _KeepdRun) else run


# the grids --------------------------------------------------------------------------------


def _families(calibration: list[Dialogue]) -> list[list[Candidate]]:
    cache: dict[str, Prepared] = {}
    keepd = [
        Candidate(
            "keepd",
            f"zones ≥ {threshold} wiggles, windows {window}, rise ×{rise}, kept^{power}",
            _KeepdRun(segmentation_tuning(threshold, window, rise, power), cache),
        )
        for window, rise, threshold, power in product(
            (2, 3, 4, 6), (0.5, 1.0, 1.5), (0.5, 1, 1.5, 2, 3, 4, 6, 8, 10), (0.35, 0.5)
        )
    ]
    return [keepd, _tiling(vocabulary=False), _tiling(vocabulary=True), _cpd(), _pelt()]


def _tiling(*, vocabulary: bool) -> list[Candidate]:
    name = "TextTiling, vocabulary introduction" if vocabulary else "TextTiling, block comparison"
    return [
        Candidate(name, f"w={w}, k={k}", partial(_tile, w=w, k=k, vocabulary=vocabulary))
        for w, k in product((6, 10, 20), (3, 6))
    ]


def _tile(dialogue: Dialogue, w: int, k: int, vocabulary: bool = False) -> list[int]:
    return texttiling(dialogue.units, w, k, vocabulary=vocabulary)


def _cpd() -> list[Candidate]:
    return [
        Candidate("KernelCPD (linear kernel)", f"penalty {p}", partial(_kernel_cpd, penalty=p))
        for p in (0.5, 1.0, 1.5, 2.0, 3.0)
    ]


def _kernel_cpd(dialogue: Dialogue, penalty: float) -> list[int]:
    return kernel_cpd(dialogue.units, penalty=penalty)


def _pelt() -> list[Candidate]:
    return [
        Candidate("Pelt (RBF cost)", f"penalty {p}", partial(_pelt_run, penalty=p))
        for p in (0.5, 1.0, 2.0, 4.0, 8.0)
    ]


def _pelt_run(dialogue: Dialogue, penalty: float) -> list[int]:
    return pelt(dialogue.units, penalty)


def _fixed(calibration: list[Dialogue]) -> list[Candidate]:
    """Settings not chosen on data: TextTiling as published, and the trivial baselines."""
    units = sum(len(d.units) for d in calibration)
    segments = sum(len(d.gold) + 1 for d in calibration)
    rate = (segments - len(calibration)) / max(units - len(calibration), 1)
    length = units / max(segments, 1)
    w, k = PUBLISHED_TEXTTILING
    return [
        Candidate(
            "TextTiling, block comparison",
            f"w={w}, k={k} (as published)",
            partial(_tile, w=w, k=k),
        ),
        Candidate("even split", f"every {length:.1f} utterances", partial(_even, length=length)),
        Candidate("no boundary", "", _nothing),
        Candidate("random", f"p={rate:.2f} per gap, fixed seed", partial(_random, rate=rate)),
    ]


def _even(dialogue: Dialogue, length: float) -> list[int]:
    return even(len(dialogue.units), length)


def _nothing(dialogue: Dialogue) -> list[int]:
    return []


def _random(dialogue: Dialogue, rate: float) -> list[int]:
    return scattered(len(dialogue.units), rate, zlib.crc32(dialogue.name.encode()))
