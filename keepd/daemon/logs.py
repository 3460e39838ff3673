"""Where the daemon logs: stderr always (the journal), and a file under launchd or when set."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from keepd.config import LogConfig
from keepd.paths import log_file
from keepd.system.atomic import make_folder

FORMAT = "%(levelname)s %(name)s: %(message)s"
FILE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def under_launchd() -> bool:
    """launchd names the job in `XPC_SERVICE_NAME`; a Terminal shell has "0" or nothing."""
    return sys.platform == "darwin" and os.environ.get("XPC_SERVICE_NAME", "0") not in ("", "0")


def setup_logging(config: LogConfig, *, verbose: bool = False) -> Path | None:
    """Replaces the root logger's handlers; returns the log file if one is written."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.setLevel(logging.DEBUG if verbose else config.level.upper())
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(stderr)
    target = Path(config.file).expanduser() if config.file else None
    if target is None and under_launchd():
        target = log_file()
    if target is not None:
        make_folder(target.parent)
        handler = logging.FileHandler(target, encoding="utf-8")
        handler.setFormatter(logging.Formatter(FILE_FORMAT))
        root.addHandler(handler)
    for noisy in ("apscheduler", "watchdog"):
        logging.getLogger(noisy).setLevel(max(root.level, logging.WARNING))
    return target
