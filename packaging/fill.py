"""Fills the Homebrew formula and the Arch PKGBUILD for a built sdist (version, address, hash)."""

from __future__ import annotations

import argparse
import hashlib
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TEMPLATES = {"keepd.rb": HERE / "homebrew" / "keepd.rb", "PKGBUILD": HERE / "arch" / "PKGBUILD"}


def version() -> str:
    """The one version, as keepd/_version.py states it."""
    text = (ROOT / "keepd" / "_version.py").read_text(encoding="utf-8")
    found = re.search(r'__version__ = "([^"]+)"', text)
    if found is None:
        raise SystemExit("keepd/_version.py holds no __version__")
    return found.group(1)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fill(text: str, fields: dict[str, str]) -> str:
    for name, value in fields.items():
        text = text.replace(f"@{name}@", value)
    left = re.findall(r"@[A-Z_]+@", text)
    if left:
        raise SystemExit(f"unfilled fields: {', '.join(sorted(set(left)))}")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the sdist is")
    parser.add_argument("--url", required=True, help="where the sdist will be downloaded from")
    parser.add_argument("--homepage", default="", help="the project's home page (Homebrew)")
    parser.add_argument("--out", type=Path, default=None, help="folder to write (default: --dist)")
    args = parser.parse_args()
    current = version()
    sdist = args.dist / f"keepd-{current}.tar.gz"
    if not sdist.exists():
        raise SystemExit(f"{sdist} is missing: run `python -m build` first")
    fields = {
        "VERSION": current,
        "SDIST_URL": args.url.replace("{version}", current),
        "SHA256": sha256(sdist),
        "HOMEPAGE": args.homepage or args.url,
    }
    out = args.out or args.dist
    out.mkdir(parents=True, exist_ok=True)
    for name, template in TEMPLATES.items():
        target = out / name
        target.write_text(fill(template.read_text(encoding="utf-8"), fields), encoding="utf-8")
        print(target)


if __name__ == "__main__":
    main()
