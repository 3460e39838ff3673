"""keepd: tells you where a long Claude Code chat can forget.

`analyse_file` and `analyse_texts` are the Python API; both return an `Analysis` whose
`to_dict()` is exactly what `keepd report --json` prints.
"""

from __future__ import annotations

from keepd._version import __version__

# Not `typing.TYPE_CHECKING`: importing typing adds 11 ms to the 13 ms start of a bare
# interpreter, on every `keepd statusline` (keepd/ops/glance_io.py). Type checkers treat any name
# TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from keepd.api import analyse_file, analyse_texts
    from keepd.core.analysis import Analysis

__all__ = ["Analysis", "__version__", "analyse_file", "analyse_texts"]


def __getattr__(name: str) -> Any:
    # numpy stays off the import path of quick commands until the API is used
    if name in ("analyse_file", "analyse_texts"):
        from keepd import api

        return getattr(api, name)
    if name == "Analysis":
        from keepd.core.analysis import Analysis

        return Analysis
    raise AttributeError(name)
