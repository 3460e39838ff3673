"""The `--json` form: one analysis as an object, several as an array (schema in docs/json.md)."""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from keepd.core.analysis import Analysis


def dumps(analyses: Sequence[Analysis], *, many: bool) -> bytes:
    """JSON bytes of one analysis, or an array when `many` sessions were asked for."""
    data = [analysis.to_dict() for analysis in analyses]
    payload: object = data if many else data[0]
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n"
