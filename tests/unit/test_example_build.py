"""scripts/example/build.py rebuilds the shipped example session byte for byte from session.txt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILDER = ROOT / "scripts" / "example" / "build.py"
TRANSCRIPT = ROOT / "scripts" / "example" / "session.txt"
SHIPPED = ROOT / "keepd" / "data" / "example.jsonl"


def run_builder(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(BUILDER), *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


def test_builder_reproduces_the_shipped_example(tmp_path: Path) -> None:
    out = tmp_path / "example.jsonl"
    done = run_builder("--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == SHIPPED.read_bytes()
    assert f"{out}: 352 lines" in done.stdout


def test_a_text_without_its_closing_empty_line_is_named(tmp_path: Path) -> None:
    text = TRANSCRIPT.read_text(encoding="utf-8")
    first_prompt = text.index("::: prompt\n")
    broken = text[:first_prompt] + text[first_prompt:].replace("\n\n::: step", "\n::: step", 1)
    data = tmp_path / "session.txt"
    data.write_text(broken, encoding="utf-8")
    done = run_builder("--data", str(data), "--out", str(tmp_path / "out.jsonl"))
    line = broken[:first_prompt].count("\n") + 1
    assert done.returncode == 1
    message = f"{data}: line {line}: bad body for 'prompt' (see build.py's grammar)"
    assert done.stderr.strip() == message
    assert not (tmp_path / "out.jsonl").exists()
