"""Sessions: keepd's pick against the other methods, each adapted to choose one stop.

Segmenters choose where the newest piece begins: ruptures' single best change point, Pelt's
last one, TextTiling's deepest gap; the seed's similarity split score its highest stop among
those keepd could pick (the same floors); the trivial ones the middle stop or a random one.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial

import numpy as np

from keepd.api import analyse_file
from keepd.core.grade import DEFAULT_TUNING, grade
from keepd.evaluate.methods import (
    Setting,
    Units,
    kernel_cpd,
    pelt,
    split_scores,
    texttiling_deepest,
)
from keepd.evaluate.score import Prepared, judge

Chooser = Callable[[Prepared], int | None]
PELT_PENALTIES = (0.5, 1.0, 2.0, 4.0, 8.0)
TILING = (20, 10)  # nltk's defaults: pseudo-sentences of 20 words, blocks of 10


Method = Setting[Chooser]


@dataclass(frozen=True, slots=True)
class Choice:
    """One method's stop on one case, how far it is from the gold stop, and its time."""

    pick: int | None
    distance: int | None
    seconds: float


@dataclass(frozen=True, slots=True)
class MethodRows:
    """Each method's choices on the pooled held-out kinds, the labelled and unstitched cases."""

    pelt_penalty: float
    kinds: dict[str, list[Prepared]]
    choices: dict[str, dict[str, list[Choice]]]  # method -> kind -> choices
    settings: dict[str, str]
    independent: list[str]  # the kinds whose pieces each have their own tail


def keepd_pick(prepared: Prepared) -> int | None:
    return judge(prepared, DEFAULT_TUNING).pick


def eligible(prepared: Prepared) -> list[int]:
    """The stops keepd could pick (its floors), which the seed's score chooses among too."""
    flags = grade(prepared.curve, prepared.frees, DEFAULT_TUNING).eligible
    return [k for k, ok in enumerate(flags) if ok]


def units(prepared: Prepared) -> Units:
    return Units.of_words(prepared.turns)


def split_pick(prepared: Prepared, *, separation_only: bool = False) -> int | None:
    allowed = eligible(prepared)
    if not allowed:
        return None
    scores = split_scores(units(prepared))[1 if separation_only else 0]
    return allowed[int(np.nanargmax(scores[allowed]))]


def one_change(prepared: Prepared) -> int | None:
    found = kernel_cpd(units(prepared), count=1)
    return found[0] if found else None


def last_change(prepared: Prepared, penalty: float) -> int | None:
    found = pelt(units(prepared), penalty)
    return found[-1] if found else None


def middle(prepared: Prepared) -> int | None:
    return len(prepared.turns) // 2 if len(prepared.turns) > 1 else None


def any_stop(prepared: Prepared) -> int | None:
    allowed = eligible(prepared)
    rng = random.Random(zlib.crc32(prepared.case.name.encode()))
    return rng.choice(allowed) if allowed else None


def cheap_methods(penalty: float) -> list[Method]:
    """Every method but TextTiling, whose block comparison takes seconds per session."""
    return [
        Method("keepd", "the pick (●● or ●●● zone), defaults", keepd_pick),
        Method("similarity split (the seed's score)", "TF-IDF, cohesion + separation", split_pick),
        Method(
            "similarity split, separation only",
            "1 − cosine of the halves",
            partial(split_pick, separation_only=True),
        ),
        Method("KernelCPD (linear kernel)", "one change point", one_change),
        Method(
            "Pelt (RBF cost)",
            f"penalty {penalty}, last change",
            partial(last_change, penalty=penalty),
        ),
        Method("even split", "the middle stop", middle),
        Method("random", "an eligible stop, fixed seed", any_stop),
    ]


def choose(method: Method, prepared: Prepared) -> Choice:
    started = time.perf_counter()
    pick = method.run(prepared)
    return _choice(pick, prepared.at_gold(), time.perf_counter() - started)


def _choice(pick: int | None, golds: tuple[int, ...], seconds: float) -> Choice:
    """A pick and its distance to the nearest stop at the gold."""
    distance = None if pick is None or not golds else min(abs(pick - k) for k in golds)
    return Choice(pick, distance, seconds)


def calibrate_pelt(cases: Sequence[Prepared]) -> float:
    """Pelt's penalty with the most picks within one stop on the calibration joins."""
    return max(PELT_PENALTIES, key=lambda p: within_one([choose(_pelt(p), c) for c in cases]))


def _pelt(penalty: float) -> Method:
    return Method("Pelt", "", partial(last_change, penalty=penalty))


def exact(choices: Sequence[Choice]) -> float:
    return sum(1 for c in choices if c.distance == 0) / max(len(choices), 1)


def within_one(choices: Sequence[Choice]) -> float:
    return sum(1 for c in choices if c.distance is not None and c.distance <= 1) / max(
        len(choices), 1
    )


# TextTiling and keepd's whole analysis, timed on the same sample, two processes ------------


@dataclass(frozen=True, slots=True)
class Timed:
    """keepd (whole file analysed, parsing included) and TextTiling (turns given) on one case."""

    name: str
    keepd: Choice
    block: Choice
    vocabulary: Choice


def timed_sample(sample: Sequence[Prepared], workers: int = 2) -> list[Timed]:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_timed, sample))


def _timed(prepared: Prepared) -> Timed:
    started = time.perf_counter()
    analysis = analyse_file(prepared.case.path, whole=True)
    seconds = time.perf_counter() - started
    uuids = [stop.uuid for stop in analysis.stops]
    pick = uuids.index(analysis.pick) if analysis.pick in uuids else None
    gold = prepared.at_gold()
    w, k = TILING
    tiles = [_tile(prepared, w, k, vocabulary) for vocabulary in (False, True)]
    return Timed(prepared.case.name, _choice(pick, gold, seconds), *tiles)


def _tile(prepared: Prepared, w: int, k: int, vocabulary: bool) -> Choice:
    started = time.perf_counter()
    pick = texttiling_deepest(units(prepared), w, k, vocabulary=vocabulary)
    return _choice(pick, prepared.at_gold(), time.perf_counter() - started)
