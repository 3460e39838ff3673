"""Checks that a release names one version everywhere: keepd/_version.py, the tag, and the
wheel and sdist built from it (their names and their metadata)."""

from __future__ import annotations

import argparse
import re
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fill import version  # noqa: E402  (the one reader of keepd/_version.py)

NEEDED = ("Name", "Version", "Summary", "License-Expression", "Requires-Python")


def problems(dist: Path, tag: str | None, current: str) -> list[str]:
    """Everything that disagrees with `current`; empty when the release is consistent."""
    found: list[str] = []
    if tag is not None and tag != f"v{current}":
        found.append(f"the tag {tag} is not v{current} (keepd/_version.py)")
    wheel = dist / f"keepd-{current}-py3-none-any.whl"
    sdist = dist / f"keepd-{current}.tar.gz"
    for path in (wheel, sdist):
        if not path.is_file():
            found.append(f"{path.name} is missing from {dist}")
    others = sorted(p.name for p in dist.glob("keepd-*") if p not in (wheel, sdist))
    if others:
        found.append(f"{dist} holds files of another build: {', '.join(others)}")
    if wheel.is_file():
        with zipfile.ZipFile(wheel) as archive:
            text = archive.read(f"keepd-{current}.dist-info/METADATA").decode()
        found += _metadata(text, current, wheel.name)
    if sdist.is_file():
        with tarfile.open(sdist) as archive:
            member = archive.extractfile(f"keepd-{current}/PKG-INFO")
            text = member.read().decode() if member else ""
        found += _metadata(text, current, sdist.name)
    return found


def _metadata(text: str, current: str, name: str) -> list[str]:
    fields = Parser().parsestr(text)
    found = [f"{name}: no {field}" for field in NEEDED if not fields.get(field)]
    if fields.get("Version") not in (None, current):
        found.append(f"{name}: Version {fields['Version']}, not {current}")
    if fields.get("Description-Content-Type", "").split(";")[0] != "text/markdown":
        found.append(f"{name}: the long description is not the Markdown README")
    if not re.search(r"^# keepd$", fields.get_payload() or "", re.MULTILINE):
        found.append(f"{name}: the long description is not the README")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dist", type=Path, required=True, help="the built wheel and sdist")
    parser.add_argument("--tag", help="the git tag being released (v<version>)")
    args = parser.parse_args()
    current = version()
    found = problems(args.dist, args.tag, current)
    for problem in found:
        print(f"release_check: {problem}", file=sys.stderr)
    if not found:
        print(f"release_check: keepd {current}: the files, their metadata and the tag agree")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
