"""Writes the labelling brief's prompt lists: one text file per session, one line per stop.

Each line is `[k] (+M min, branch B) text`, k counting the stops `keepd report --whole` lists,
the text cut at 700 characters, as `../shared/corpus/labels/brief.md` describes. Readers label
these files; `held_out_labels.json` beside this module was made from them.

Run: `python -m evaluation.label_prompts OUT_DIR SESSION.jsonl ...`
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from keepd.api import analyse_file
from keepd.cut.load import raw_entries

CAP = 700


def prompt_lines(path: Path) -> list[str]:
    """The brief's lines for one session file, oldest stop first."""
    stops = analyse_file(path, whole=True).stops
    raw = raw_entries(path.read_bytes(), {stop.uuid for stop in stops})
    lines: list[str] = []
    previous: datetime | None = None
    for k, stop in enumerate(stops):
        found = raw.get(stop.uuid)
        entry = found.entry if found else {}
        when = _time(entry.get("timestamp"))
        gap = "-" if previous is None or when is None else _minutes(when, previous)
        previous = when or previous
        branch = entry.get("gitBranch") or "-"
        text = " ".join(_text(found.blocks if found else []).split())
        lines.append(f"[{k}] (+{gap} min, branch {branch}) {text[:CAP]}")
    return lines


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _minutes(later: datetime, earlier: datetime) -> str:
    return f"{(later - earlier).total_seconds() / 60:.0f}"


def _text(blocks: list[dict[str, Any]]) -> str:
    return " ".join(str(block.get("text", "")) for block in blocks if block.get("type") == "text")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.label_prompts")
    parser.add_argument("out", type=Path)
    parser.add_argument("sessions", type=Path, nargs="+")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.sessions:
        lines = prompt_lines(path)
        if lines:
            target = args.out / f"{path.stem}.txt"
            target.write_text(f"# {path.stem}\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
