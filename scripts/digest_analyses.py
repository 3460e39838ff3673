"""Prints one digest of every corpus session's analysis in both scopes, to show a change kept them.

Run: `python scripts/digest_analyses.py [--shared ../shared] [--each] [FILE ...]`. Hashes each
`Analysis.to_dict()` (current context and `--whole`) of every corpus session and of any FILE
given; `--each` prints a digest per file and scope too, to find the one that moved.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import orjson

from keepd.api import analyse_file
from keepd.errors import KeepdError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's evaluation/

from evaluation.cases import find_shared


def digest(path: Path, whole: bool) -> str:
    """The sha256 of the analysis's dict (or of the error it raised)."""
    try:
        data = orjson.dumps(analyse_file(path, whole=whole).to_dict(), option=orjson.OPT_SORT_KEYS)
    except KeepdError as error:
        data = repr(error).encode()
    return hashlib.sha256(data).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--shared", type=Path)
    parser.add_argument("--each", action="store_true", help="a digest per file and scope")
    args = parser.parse_args()
    shared = args.shared or find_shared()
    paths = sorted((shared / "corpus" / "sessions").glob("*.jsonl")) if shared else []
    paths += args.files
    total = hashlib.sha256()
    for path in paths:
        for whole in (False, True):
            one = digest(path, whole)
            total.update(one.encode())
            if args.each:
                print(f"{one[:16]} {'whole  ' if whole else 'current'} {path.name}")
    print(f"{total.hexdigest()}  {len(paths)} files, both scopes")


if __name__ == "__main__":
    main()
