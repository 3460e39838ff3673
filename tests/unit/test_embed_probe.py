"""The embedding probe's own pieces: word-count distances, the weights' reader, the model."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import numpy as np
import orjson
import pytest

from evaluation.probes.embed_probe import Embedder, cosine_distance, read_safetensor
from evaluation.texts import word_distance


def test_word_distance_is_one_minus_the_cosine_of_the_counts() -> None:
    same = word_distance(Counter(["parser", "fix"]), Counter(["fix", "parser"]))
    apart = word_distance(Counter(["parser"]), Counter(["release", "notes"]))
    half = word_distance(Counter(["a"]), Counter(["a", "b", "c", "d"]))
    assert same == pytest.approx(0.0)
    assert apart == 1.0
    assert half == pytest.approx(0.5)
    assert word_distance(Counter(), Counter(["a"])) == 0.0  # nothing to compare


def test_read_safetensor_reads_a_float16_table(tmp_path: Path) -> None:
    table = np.arange(6, dtype=np.float16).reshape(2, 3)
    header = orjson.dumps(
        {"embedding.weight": {"dtype": "F16", "shape": [2, 3], "data_offsets": [0, 12]}}
    )
    path = tmp_path / "w.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header + table.tobytes())
    assert np.array_equal(read_safetensor(path), table)


@pytest.mark.skipif(
    importlib.util.find_spec("wordllama") is None or importlib.util.find_spec("tokenizers") is None,
    reason="wordllama is not installed",
)
def test_the_bundled_model_puts_related_requests_closer() -> None:
    embed = Embedder()
    fix, repair, notes, empty = embed(
        ["fix the parser bug", "repair the parsing error", "write the release notes", ""]
    )
    assert cosine_distance(fix, repair) < cosine_distance(fix, notes)
    assert not empty.any()  # a text without tokens embeds to zeros
