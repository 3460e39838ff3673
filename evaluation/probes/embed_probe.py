"""`python -m evaluation.probes.embed_probe`: measures whether a small embedding model
shipped in its wheel (wordllama's 256-d weights) adds to the cues on the calibration labels,
and what it costs.

Each stop gets four distances (1 - cosine): the assistant's text of its turn against that of the
turn before, and its prompt against the assistant's text of the turn before, each once from the
model's embeddings and once from plain content-word counts (no model). Two checks, both left one
session out on calibration data only (held-out labels are never read):
- the stops `fit_points` fits on (a task switch against a stop no reader marked within one):
  the log loss of a ridge logistic fit of the points table's signals, and of the same plus each
  set of distances, with a standard error over sessions;
- the newest-work model (`fit_newest`) with the distances as extra features: the pick within one
  of the readers' newest and the calibration joins' picks at / within one of their gold.
The model is read straight from the installed wheel's files (its tokenizer and weights): its own
loader fetches the tokenizer from the network, and importing it configures the root logger.
`pip install wordllama` first; nothing else is downloaded. What it found, and why keepd ships
no embedding extra: docs/figures.md, "An embedding model, tried and left out".
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import orjson

from evaluation import fit_newest, labels
from evaluation.cases import project_folds, shared_or_none
from evaluation.fit_points import fitted_stops, stops_of
from evaluation.logistic import ridge_logistic
from evaluation.markdown import table
from evaluation.score import Prepared
from evaluation.texts import stop_texts, word_distances
from keepd.core.newest import Column

FloatArray = npt.NDArray[np.float64]
Embed = Callable[[Sequence[str]], FloatArray]
DISTANCES = ("embedding: reply", "embedding: prompt-reply", "words: reply", "words: prompt-reply")


class Embedder:
    """wordllama's bundled token embeddings, averaged over a text's tokens and normalised."""

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        spec = importlib.util.find_spec("wordllama")
        if spec is None or spec.origin is None:
            raise SystemExit("embed_probe: wordllama is not installed (pip install wordllama)")
        root = Path(spec.origin).parent
        self.tokenizer = Tokenizer.from_file(
            str(root / "tokenizers" / "l2_supercat_tokenizer_config.json")
        )
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.table = read_safetensor(root / "weights" / "l2_supercat_256.safetensors")

    def __call__(self, texts: Sequence[str]) -> FloatArray:
        out = np.zeros((len(texts), self.table.shape[1]))
        encoded = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        for i, encoding in enumerate(encoded):
            ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, len(self.table) - 1)
            if len(ids):
                vector = self.table[ids].astype(np.float64).mean(axis=0)
                out[i] = vector / max(float(np.linalg.norm(vector)), 1e-12)
        return out


def read_safetensor(path: Path) -> npt.NDArray[np.float16]:
    """The one float16 tensor of a safetensors file (8-byte header size, JSON header, data)."""
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = orjson.loads(data[8 : 8 + size])
    (entry,) = (v for k, v in header.items() if k != "__metadata__")
    assert entry["dtype"] == "F16", entry
    start, end = entry["data_offsets"]
    flat = np.frombuffer(data, dtype=np.float16, count=(end - start) // 2, offset=8 + size + start)
    return flat.reshape(entry["shape"])


def distances(prepared: Prepared, embed: Embed) -> list[Column]:
    """The four distances of every stop (0 at the first), by name (`DISTANCES`)."""
    prompts, replies = stop_texts(prepared)
    vectors_p, vectors_r = embed(prompts), embed(replies)
    columns = [
        [cosine_distance(vectors_r[k], vectors_r[k - 1]) for k in range(1, len(prompts))],
        [cosine_distance(vectors_p[k], vectors_r[k - 1]) for k in range(1, len(prompts))],
        *word_distances(prompts, replies),
    ]
    return [(name, [0.0, *values]) for name, values in zip(DISTANCES, columns, strict=True)]


def cosine_distance(a: FloatArray, b: FloatArray) -> float:
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return 1.0 - float(a @ b) / norms if norms > 0 else 0.0


# Feature sets of the stop-level check: the distances added to the points table's signals.
STOP_SETS = {
    "the points table's signals": (),
    "+ embedding distances": DISTANCES[:2],
    "+ word distances (no model)": DISTANCES[2:],
    "+ word and embedding distances": DISTANCES,
}
RIDGE = 1.0  # fit_points'


def stop_level(data: fit_newest.Data) -> str:
    """The log loss, left one project out, of the signals with each set of distances; each
    against the signals alone, and the embedding against the words."""
    sessions = []
    for item in data.labelled:
        fitted, task = fitted_stops(item)
        named = dict(data.cases[item.name].columns)
        extra = np.column_stack([np.asarray(named[name], dtype=np.float64) for name in DISTANCES])
        sessions.append((stops_of(item).features, extra[fitted], task[fitted]))
    folds = project_folds([item.name for item in data.labelled])
    losses = {
        title: _held_out_losses(sessions, columns, folds) for title, columns in STOP_SETS.items()
    }
    stops = sum(len(task) for _, _, task in sessions)
    base, words = losses["the points table's signals"], losses["+ word distances (no model)"]
    rows = [
        [
            title,
            f"{found.sum() / stops:.4f}",
            _change(found, base, stops),
            _change(found, words, stops),
        ]
        for title, found in losses.items()
    ]
    return table(["features", "log loss", "against the signals alone", "against + words"], rows)


def _held_out_losses(
    sessions: Sequence[tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]],
    columns: Sequence[str],
    folds: Sequence[Sequence[int]],
) -> FloatArray:
    """Each session's summed log loss under a fit on the other projects' sessions (`folds`:
    the positions of each project's sessions)."""
    picked = [DISTANCES.index(name) for name in columns]
    out = []
    for i, (signals, extra, task) in enumerate(sessions):
        fold = next(f for f in folds if i in f)
        rest = [s for j, s in enumerate(sessions) if j not in fold]
        x = np.vstack([np.column_stack([s, e[:, picked]]) for s, e, _ in rest])
        centre, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
        binary = np.all((x == 0) | (x == 1), axis=0)
        centre[binary], scale[binary] = 0.0, 1.0  # signals keep their 0/1 scale
        beta = ridge_logistic((x - centre) / scale, np.concatenate([t for _, _, t in rest]), RIDGE)
        held = (np.column_stack([signals, extra[:, picked]]) - centre) / scale
        chance = 1.0 / (1.0 + np.exp(-(beta[0] + held @ beta[1:])))
        out.append(-float(np.sum(np.where(task, np.log(chance), np.log1p(-chance)))))
    return np.asarray(out)


def _change(found: FloatArray, against: FloatArray, stops: int) -> str:
    """The change in log loss per stop, with its standard error over sessions."""
    if found is against:
        return "-"
    diff = found - against
    error = float(np.std(diff, ddof=1)) * math.sqrt(len(diff)) / stops
    return f"{diff.sum() / stops:+.4f} ± {error:.4f}"


# Feature sets of the newest-work model: fit_newest's chosen one, and it with distances.
NEWEST_SETS = {
    "fit_newest's chosen features": (),
    "+ embedding distances": DISTANCES[:2],
    "+ word distances (no model)": DISTANCES[2:],
    "+ word and embedding distances": DISTANCES,
}


def cost(texts: Sequence[str]) -> str:
    """The model's load time and resident memory, and its time per text on `texts`."""
    before = _resident_mb()
    start = time.perf_counter()
    embed = Embedder()
    loaded = time.perf_counter() - start
    added = _resident_mb() - before
    start = time.perf_counter()
    embed(texts)
    each = (time.perf_counter() - start) / max(len(texts), 1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (
        f"load {loaded * 1000:.0f} ms, resident memory +{added:.0f} MB; "
        f"{each * 1000:.2f} ms a text over {len(texts)} prompts and turns "
        f"({sum(map(len, texts)) / max(len(texts), 1):.0f} characters on average); "
        f"peak resident {peak:.0f} MB"
    )


def _resident_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.probes.embed_probe", description=__doc__
    )
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument("--count", type=int, default=150, help="cross-project joins of two")
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "embed_probe")
    if shared is None:
        return 2
    if (
        importlib.util.find_spec("wordllama") is None
        or importlib.util.find_spec("tokenizers") is None
    ):
        print("embed_probe: needs wordllama (pip install wordllama)", file=sys.stderr)
        return 2
    texts = [t for item in labels.load(shared) for t in _both(stop_texts(item.prepared))]
    print(f"cost: {cost(texts)}\n")
    embed = Embedder()
    data = fit_newest.load(shared, args.count, lambda prepared: distances(prepared, embed))
    print("the stops fit_points fits on, one project out (ridge logistic):\n")
    print(stop_level(data))
    print("\nthe newest-work model, one project out:\n")
    print(fit_newest.with_extra(data, NEWEST_SETS))
    return 0


def _both(pair: tuple[list[str], list[str]]) -> list[str]:
    return [*pair[0], *pair[1]]


if __name__ == "__main__":
    raise SystemExit(main())
