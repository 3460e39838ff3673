"""`keepd doctor`: runs every check, prints each with its fix, and says whether all is well."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

import orjson

from keepd._version import __version__
from keepd.login.checks import (
    FAIL,
    OK,
    SKIP,
    WARN,
    Check,
    check_bundle,
    check_config,
    check_inotify,
    check_mcp,
    check_notes,
    check_reader,
    check_recall,
    check_roots,
    check_session_format,
    check_windows,
)
from keepd.login.probes import (
    check_bus,
    check_command,
    check_service,
    check_socket,
    check_test_notice,
)

SCHEMA = 1
MARKS = {OK: "ok", WARN: "warn", FAIL: "FAIL", SKIP: "skip"}


def run_checks(*, notify: bool = False) -> list[Check]:
    """Every check in the order a person would fix things; a check that crashes says so."""
    checks = [_safe("config", check_config), _safe("claude roots", check_roots)]
    checks.append(_safe("session format", check_session_format))
    checks.append(_safe("windows", check_windows))
    checks.append(_safe("notes", check_notes))
    checks += [_safe("recall store", check_recall), _safe("mcp", check_mcp)]
    checks.append(_safe("reader", check_reader))
    service, state = _service()
    checks += [service, _safe("command", lambda: check_command(state))]
    socket = _safe("socket", check_socket)
    checks.append(socket)
    checks.append(_safe("inotify", lambda: check_inotify(socket.status == OK)))
    checks += [_safe("notifications", check_bus), _safe("macos bundle", check_bundle)]
    if notify:
        checks.append(_safe("test notice", check_test_notice))
    return checks


def _service() -> tuple[Check, Any]:
    try:
        return check_service()
    except Exception as error:
        return Check("service", FAIL, f"the check itself failed: {error!r}"), None


def _safe(name: str, check: Callable[[], Check]) -> Check:
    try:
        return check()
    except Exception as error:  # a doctor that crashes helps nobody: report and go on
        return Check(name, FAIL, f"the check itself failed: {error!r}", "report this to keepd")


def all_well(checks: list[Check]) -> bool:
    """True when no check failed (a warning works, with less)."""
    return not any(check.status == FAIL for check in checks)


def to_json(checks: list[Check]) -> bytes:
    data = {
        "schema": SCHEMA,
        "version": __version__,
        "ok": all_well(checks),
        "checks": [check.to_dict() for check in checks],
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2, default=str) + b"\n"


def render(checks: list[Check], out: TextIO) -> None:
    width = max(len(check.name) for check in checks)
    out.write(f"keepd doctor (keepd {__version__})\n")
    for check in checks:
        out.write(f"  {MARKS[check.status]:<4}  {check.name:<{width}}  {check.summary}\n")
        if check.fix and check.status in (WARN, FAIL):
            out.write(f"        {'':<{width}}  fix: {check.fix}\n")
    failed = [check.name for check in checks if check.status == FAIL]
    if failed:
        out.write(f"{len(failed)} problem(s): {', '.join(failed)}\n")
    else:
        out.write("all is well\n")


def doctor(out: TextIO, raw: Any, *, as_json: bool, notify: bool) -> int:
    """Runs the checks and prints them; 0 when all is well, 1 otherwise."""
    checks = run_checks(notify=notify)
    if as_json:
        raw.write(to_json(checks))
    else:
        render(checks, out)
    return 0 if all_well(checks) else 1
