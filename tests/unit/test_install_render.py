"""The service templates filled in: the systemd units, the launchd plist, the command found."""

from __future__ import annotations

import os
import plistlib
import re
import shutil
import sys
from pathlib import Path

import pytest

from keepd.daemon.server import BACKLOG
from keepd.errors import ServiceError
from keepd.login import command as found
from keepd.login.command import Command, command_problem, resolve_command
from keepd.login.render import (
    DESKTOP,
    PLIST,
    SERVICE,
    SOCKET,
    Extras,
    desktop_quote,
    machine_extras,
    render_desktop,
    render_plist,
    render_service,
    render_socket,
    template,
)
from keepd.paths import log_file

KEEPD = Command(("/opt/keepd/bin/keepd",), "test")


def test_every_template_is_shipped_with_the_package() -> None:
    for name in (SERVICE, SOCKET, PLIST, DESKTOP):
        assert template(name).strip()
    source = Path(__file__).resolve().parents[2] / "service"
    for name in (SERVICE, SOCKET, PLIST, DESKTOP):
        assert (source / name).read_text() == template(name)


def test_the_service_unit() -> None:
    text = render_service(KEEPD, Extras())
    lines = text.splitlines()
    for line in (
        "Type=notify",
        "ExecStart=/opt/keepd/bin/keepd run",
        "Restart=on-failure",
        "PrivateUsers=yes",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=read-only",
        "PrivateTmp=yes",
        "ProtectKernelTunables=yes",
        "RuntimeDirectory=keepd",
        "WantedBy=default.target",
    ):
        assert line in lines, line
    assert any(line.startswith("WatchdogSec=") for line in lines)
    writable = next(line for line in lines if line.startswith("ReadWritePaths="))
    for folder in ("%h/.local/share/keepd", "%h/.local/state/keepd", "%h/.claude"):
        assert f"-{folder}" in writable.split("=", 1)[1].split()
    assert not re.search(r"@[A-Z_]+@", text)


def test_the_socket_unit() -> None:
    lines = render_socket().splitlines()
    assert "ListenStream=%t/keepd/keepd.sock" in lines
    assert "SocketMode=0600" in lines
    assert "WantedBy=sockets.target" in lines
    assert f"Backlog={BACKLOG}" in lines  # as short as the daemon's own listening socket


def test_odd_paths_are_quoted_and_escaped() -> None:
    odd = Command(("/home/a b/100%/py$thon", "-m", "keepd"), "test")
    extras = Extras({"CLAUDE_CONFIG_DIR": "/x y/claude"}, [Path("/data/my notes")])
    lines = render_service(odd, extras).splitlines()
    assert 'ExecStart="/home/a b/100%%/py$$thon" -m keepd run' in lines
    assert 'Environment="CLAUDE_CONFIG_DIR=/x y/claude"' in lines
    assert 'ReadWritePaths=-"/data/my notes"' in lines


def test_the_machine_adds_what_the_template_misses(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["HOME"])
    assert machine_extras() == Extras({}, [], log_file().parent)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "/srv/claude-a,/srv/claude-b")
    monkeypatch.setenv("KEEPD_NOTES_DIR", str(home / ".local/share/keepd/elsewhere"))
    extras = machine_extras()
    assert extras.environment == {
        "CLAUDE_CONFIG_DIR": "/srv/claude-a,/srv/claude-b",
        "KEEPD_NOTES_DIR": str(home / ".local/share/keepd/elsewhere"),
    }
    assert extras.writable == [Path("/srv/claude-a"), Path("/srv/claude-b")]


def test_the_launchd_plist_parses_with_the_keys_launchd_needs(tmp_path: Path) -> None:
    odd = Command(("/Users/me/.local/bin/keepd",), "test")
    extras = Extras({"CLAUDE_CONFIG_DIR": "/Users/me/claude"}, log_dir=tmp_path / "Logs" / "keepd")
    data = plistlib.loads(render_plist(odd, extras))
    assert data["Label"] == "org.keepd.daemon"
    assert data["ProgramArguments"] == ["/Users/me/.local/bin/keepd", "run"]
    assert all(Path(arg).is_absolute() for arg in data["ProgramArguments"][:1])
    assert data["RunAtLoad"] is True
    assert data["KeepAlive"] == {"SuccessfulExit": False}
    assert isinstance(data["ThrottleInterval"], int) and data["ThrottleInterval"] >= 10
    assert data["ProcessType"] == "Background"
    path = data["EnvironmentVariables"]["PATH"].split(":")
    assert path[0] == "/Users/me/.local/bin" and "/usr/bin" in path
    assert data["EnvironmentVariables"]["CLAUDE_CONFIG_DIR"] == "/Users/me/claude"
    for key in ("StandardOutPath", "StandardErrorPath"):
        assert data[key] == str(tmp_path / "Logs" / "keepd" / "launchd.log")
    module = Command(("/usr/bin/python3", "-m", "keepd"), "test")
    data = plistlib.loads(render_plist(module, Extras()))
    assert data["ProgramArguments"] == ["/usr/bin/python3", "-m", "keepd", "run"]


def test_a_packaged_plist_names_no_home_of_the_build_machine(tmp_path: Path) -> None:
    """`keepd service files` (what Homebrew runs) writes generic files: launchd cannot expand
    ~ in a log path, so the keys are left out and the daemon logs to its own file."""
    from keepd.cli.main import main

    assert main(["service", "files", str(tmp_path), "--manager", "launchd"]) == 0
    text = (tmp_path / "org.keepd.daemon.plist").read_text()
    data = plistlib.loads(text.encode())
    assert "StandardOutPath" not in data and "StandardErrorPath" not in data
    assert os.environ["HOME"] not in text and "@" not in text
    installed = machine_extras()
    assert installed.log_dir is not None
    mine = plistlib.loads(render_plist(KEEPD, installed))
    assert mine["StandardErrorPath"] == str(installed.log_dir / "launchd.log")


def test_moved_xdg_folders_are_carried_into_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    """The unit makes a moved XDG_DATA_HOME writable; it must also pass the variable, or the
    daemon stores compactions in ~/.local/share where `keepd recall` does not look."""
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("XDG_DATA_HOME", "/srv/data")
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local/state"))  # the default: not carried
    monkeypatch.setenv("XDG_CONFIG_HOME", "/srv/config")
    extras = machine_extras()
    assert extras.environment == {"XDG_CONFIG_HOME": "/srv/config", "XDG_DATA_HOME": "/srv/data"}
    assert Path("/srv/data/keepd") in extras.writable
    lines = render_service(KEEPD, extras).splitlines()
    assert "Environment=XDG_DATA_HOME=/srv/data" in lines
    assert "Environment=XDG_CONFIG_HOME=/srv/config" in lines


def _script(folder: Path, name: str = "keepd") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    return script


def test_the_command_as_pipx_and_uv_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pipx and `uv tool` link ~/.local/bin/keepd into their venv: the link is kept."""
    real = _script(tmp_path / "pipx" / "venvs" / "keepd" / "bin")
    link = tmp_path / "bin" / "keepd"
    link.parent.mkdir()
    link.symlink_to(real)
    monkeypatch.setattr(sys, "argv", [str(link), "service", "install"])
    assert resolve_command().argv == (str(link),)
    monkeypatch.setenv("PATH", str(link.parent))
    monkeypatch.setattr(sys, "argv", ["keepd", "service", "install"])
    assert resolve_command().argv == (str(link),)


def test_the_command_beside_python_or_python_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = tmp_path / "venv" / "bin"
    python = _script(venv, "python")
    monkeypatch.setattr(sys, "argv", ["/x/keepd/__main__.py", "service"])
    monkeypatch.setattr(sys, "executable", str(python))
    assert resolve_command().argv == (str(python), "-m", "keepd")
    script = _script(venv)
    assert resolve_command().argv == (str(script),)
    assert resolve_command(str(script)).how == "given with --command"
    with pytest.raises(ServiceError):
        resolve_command("no-such-keepd-command")


def test_problems_with_a_command(tmp_path: Path) -> None:
    assert command_problem(Command((str(tmp_path / "none"),), "test"))
    assert command_problem(Command(("/bin/sh",), "test")) is None
    if not tmp_path.is_relative_to("/tmp"):
        pytest.skip("tmp_path is not under /tmp")
    script = _script(tmp_path / "bin")
    problem = command_problem(Command((str(script),), "the keepd command being run"))
    assert problem is not None and "its /tmp is private" in problem
    advice = f"`{script} service install --command {script}`"
    assert advice in problem  # the advice, followed, is taken:
    given = resolve_command(str(script))
    assert command_problem(given) is None and found.shared_tmp_warning(given) is not None
    assert Path("/tmp") in found.HIDDEN


def test_a_command_given_under_tmp_gets_a_unit_that_shares_tmp(tmp_path: Path) -> None:
    """Under PrivateTmp=yes the service could not see a keepd in /tmp: the unit of such a
    command (taken only with --command) shares /tmp; any other keeps its private /tmp."""
    hidden = Command(("/tmp/venv/bin/keepd",), found.GIVEN)
    lines = render_service(hidden, Extras()).splitlines()
    assert "PrivateTmp=no" in lines and "PrivateTmp=yes" not in lines
    assert "PrivateTmp=yes" in render_service(KEEPD, Extras()).splitlines()


def test_a_link_or_an_interpreter_under_tmp_is_what_the_command_needs(
    pytestconfig: pytest.Config,
) -> None:
    """A `~/.local/bin/keepd` outside /tmp can still need /tmp: a link into a venv there, or a
    script whose `#!` names a venv's python there."""
    cache = getattr(pytestconfig, "cache", None)  # None under -p no:cacheprovider
    if cache is None:
        pytest.skip("no pytest cache folder to make a folder outside /tmp in")
    outside = cache.mkdir("outside-tmp")  # beside the checkout
    if any(outside.is_relative_to(hidden) for hidden in found.HIDDEN):
        pytest.skip("the checkout is under /tmp")
    try:
        venv = Path("/tmp") / f"keepd-venv-{os.getpid()}" / "bin"
        python = _script(venv, "python")
        script = venv / "keepd"
        script.write_text(f"#!{python}\nimport keepd\n")
        script.chmod(0o755)
        link = outside / "keepd"
        link.unlink(missing_ok=True)
        link.symlink_to(script)
        needed = found.needed_paths(Command((str(link),), "test"))
        assert needed == [link, python, script]  # the link's `#!` line is the script's
        assert found.hidden_path(Command((str(link),), "test")) == python
        wrapper = outside / "keepd-wrapper"
        wrapper.write_text(f"#!{python}\n")
        wrapper.chmod(0o755)
        assert found.hidden_path(Command((str(wrapper),), "test")) == python
        assert found.hidden_path(Command(("/bin/sh",), "test")) is None
    finally:
        shutil.rmtree(outside, ignore_errors=True)
        shutil.rmtree(Path("/tmp") / f"keepd-venv-{os.getpid()}", ignore_errors=True)


def test_the_unit_keeps_its_own_network_unless_the_bus_is_abstract(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Abstract Unix sockets belong to a network namespace: under PrivateNetwork=yes the
    daemon could not reach a session bus at unix:abstract=..., so that machine's unit goes
    without it; a bus at a path (the usual $XDG_RUNTIME_DIR/bus) keeps it."""
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
    assert "PrivateNetwork=yes" in render_service(KEEPD, machine_extras()).splitlines()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:abstract=/tmp/dbus-x1,guid=ab")
    lines = render_service(KEEPD, machine_extras()).splitlines()
    assert "PrivateNetwork=yes" not in lines
    assert "# PrivateNetwork= left out: the bus is abstract" in lines
    assert "IPAddressDeny=any" in lines  # Unix sockets are not IP: this one stays


def _exec_words(value: str) -> list[str]:
    """An `Exec=` value read back as the Desktop Entry spec says: the string escapes first
    (`\\\\` is a backslash), then the quoting (inside quotes a backslash escapes `"`, `` ` ``,
    `$` and itself), then `%%` is a percent sign."""
    text = value.replace("\\\\", "\\")
    words: list[str] = []
    word, quoted, at = "", False, 0
    while at < len(text):
        char = text[at]
        if quoted and char == "\\" and at + 1 < len(text) and text[at + 1] in '"`$\\':
            word, at = word + text[at + 1], at + 2
            continue
        if char == '"':
            quoted = not quoted
        elif char == " " and not quoted:
            words.append(word)
            word = ""
        else:
            word += char
        at += 1
    return [part.replace("%%", "%") for part in [*words, word] if part]


@pytest.mark.parametrize(
    "program",
    ["/opt/keepd/bin/keepd", "/opt/my tools/keepd", '/o/a"b$c`d\\e', "/o/100% sure/keepd"],
)
def test_the_autostart_entry_runs_the_command_with_its_log(program: str) -> None:
    extras = Extras(environment={"CLAUDE_CONFIG_DIR": "/w/my claude"}, log_dir=Path("/h/log"))
    text = render_desktop(Command((program,), "test"), extras)
    lines = text.splitlines()
    for line in ("[Desktop Entry]", "Type=Application", "Name=keepd", "NoDisplay=true"):
        assert line in lines, line
    value = next(line for line in lines if line.startswith("Exec=")).removeprefix("Exec=")
    expected = ["env", "CLAUDE_CONFIG_DIR=/w/my claude", program, "run", "--log-file"]
    assert _exec_words(value) == [*expected, "/h/log/keepd.log"]
    bare = render_desktop(Command((program,), "test"), Extras())  # a package's: no log file
    assert f"Exec={desktop_quote(program)} run" in bare.splitlines()
    assert log_file().name == "keepd.log" and machine_extras().log_dir == log_file().parent
