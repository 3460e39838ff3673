"""One-off: write session.txt from the old scripts/make_example.py, running its simulation."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OLD = HERE.parent / "make_example.py"
PREAMBLE = """\
The example session keepd ships (keepd/data/example.jsonl): a developer and Claude Code add a
CSV import to a small invoicing tool, fix a CI failure on the side, then add PDF export.
scripts/example/build.py turns this transcript into the session file; its docstring gives the
grammar. In short: "::: NAME ..." lines start records; a record's text runs to the next such
line, minus the one empty line that ends every text. Trailing spaces are part of the text.
"""


def directive(name: str, *words: str, **options: object) -> str:
    """A directive line; options that are True become flags, falsy ones are left out."""
    parts = [name, *words]
    parts += [key if value is True else f"{key}={value}" for key, value in options.items() if value]
    return "::: " + " ".join(parts)


def body(name: str, text: str, *words: str) -> list[str]:
    line = directive(name, *words)
    if any(part.startswith("::: ") for part in text.split("\n")):
        raise ValueError(f"{line}: a line of its text starts like a directive")
    return [line, text, ""]


def load_old() -> Any:
    spec = importlib.util.spec_from_file_location("make_example", OLD)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_example"] = module
    spec.loader.exec_module(module)
    return module


def call_lines(old: Any, repo: dict[str, str], call: Any) -> list[str]:
    """The call with its arguments and the result the old simulation computes for it."""
    seconds, error, branch = repr(float(call.seconds)), bool(call.exit_code), call.branch
    lines = [directive("call", call.name, seconds=seconds, error=error, branch=branch)]
    for key, value in call.input.items():
        if isinstance(value, str):
            lines += body("input", value, key)
        else:
            lines += body("input", json.dumps(value), key, "json")
    return lines + body("result", old.run_call(repo, call))


def turn_lines(old: Any, repo: dict[str, str], turn: Any) -> list[str]:
    pause = repr(turn.pause) if turn.pause else None
    head = directive("turn", pause=pause, branch=turn.branch, interrupted=turn.interrupted)
    lines = [head] + (body("caveat", old.CAVEAT) if turn.caveat else [])
    lines += body("prompt", turn.prompt)
    for step in turn.steps:
        lines.append(directive("step"))
        lines += body("thinking", step.thinking) if step.thinking else []
        lines += body("text", step.text) if step.text else []
        for call in step.calls:
            lines += call_lines(old, repo, call)
    if turn.interrupted:
        assert not turn.reply
        return lines
    return lines + body("reply", turn.reply)


def main() -> None:
    old = load_old()
    old.COMMITTED.clear()
    old.COMMITTED.update(old.INITIAL_REPO)
    repo = dict(old.INITIAL_REPO)
    header = {
        "cwd": old.ROOT,
        "branch": "feature/csv-import",
        "model": old.MODEL,
        "version": old.VERSION,
        "start": old.START.isoformat(),
        "namespace": "https://github.com/keepd/example-session",
    }
    assert old.uuid.uuid5(old.uuid.NAMESPACE_URL, header["namespace"]) == old.NS
    lines = [PREAMBLE, directive("session", **header)]
    for turn in old.PIECE_1 + old.PIECE_2 + old.PIECE_3:
        lines += turn_lines(old, repo, turn)
    (HERE / "session.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
