"""The `--json` form: one analysis as an object, several as an array (schema in docs/json.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import orjson

from keepd.core.analysis import SCHEMA_VERSION, Analysis

SCHEMA = SCHEMA_VERSION


def dumps(analyses: Sequence[Analysis], *, many: bool) -> bytes:
    """JSON bytes of one analysis, or an array when `many` sessions were asked for."""
    data = [analysis.to_dict() for analysis in analyses]
    payload: object = data if many else data[0]
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n"


def note_json(path: Path, analysis: Analysis) -> bytes:
    """`keepd note --json`: where the note is, and the session it shows (docs/json.md)."""
    data = {
        "schema": SCHEMA,
        "note": str(path),
        "url": path.as_uri(),
        "session_id": analysis.session_id,
        "path": analysis.path,
        "project": analysis.project,
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
