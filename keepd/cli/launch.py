"""The `keepd` console script: the status line and the hooks go straight to their own modules,
every other command to the full parser in `keepd.cli.main`.

Claude Code runs `keepd statusline` on every repaint of its status bar; importing `keepd.cli.main`
(argparse, logging, shutil) added 18 ms to the 25 ms start of the interpreter where it was
measured, so that path never imports it. A hook must not exit 2 (which blocks a compaction),
as argparse does for an unknown option, so `keepd hook precompact` reads its own options too.
"""

from __future__ import annotations

import sys

STATUSLINE_OPTIONS = frozenset({"--plain", "--color"})
HELP_OPTIONS = frozenset({"-h", "--help"})


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["statusline"] and not HELP_OPTIONS & set(args[1:]):
        # The status line exits 0 whatever it is given: Claude Code shows an error otherwise.
        unknown = [arg for arg in args[1:] if arg not in STATUSLINE_OPTIONS]
        if unknown:
            sys.stderr.write(f"keepd statusline: ignoring {' '.join(unknown)}\n")
        from keepd.claude.statusline import run

        return run(color=statusline_color(args[1:]))
    if args[:2] == ["hook", "precompact"]:
        from keepd.claude.hooks import precompact

        return precompact(args[2:])
    from keepd.cli.main import main as cli_main

    return cli_main(args)


def statusline_color(options: list[str]) -> bool | None:
    """`--plain` wins over `--color`; neither: decided by the environment (NO_COLOR, TERM).

    >>> [statusline_color(options) for options in (["--color"], ["--color", "--plain"], [])]
    [True, False, None]
    """
    if "--plain" in options:
        return False
    return True if "--color" in options else None


if __name__ == "__main__":
    raise SystemExit(main())
