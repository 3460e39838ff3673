"""`keepd service install|uninstall|status|files` against a recording stand-in for systemctl and
launchctl, in the test's own HOME; and the rendered units checked by `systemd-analyze verify`."""

from __future__ import annotations

import io
import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from keepd.errors import ServiceError
from keepd.login import control
from keepd.login.actions import Done, Runner
from keepd.login.autostart import Autostart, desktop_path
from keepd.login.checks import OK, WARN
from keepd.login.command import Command, resolve_command, shared_tmp_warning
from keepd.login.launchd import Launchd
from keepd.login.probes import check_command, check_service
from keepd.login.render import Extras, machine_extras, render_service, systemd_quote
from keepd.login.systemd import Systemd
from keepd.ops.client import Client
from keepd.paths import launch_agents_dir, log_file, notes_dir, systemd_user_dir
from tests.integration.daemon_kit import make_tree, running

# Not this Python: a checkout under /tmp is refused (PrivateTmp= would hide it from the service).
KEEPD = Command(("/usr/bin/env", "keepd"), "test")
SHOWN_ACTIVE = (
    "Id=keepd.socket\nLoadState=loaded\nActiveState=active\nSubState=listening\n"
    "UnitFileState=enabled\nFragmentPath={dir}/keepd.socket\n\n"
    "Id=keepd.service\nLoadState=loaded\nActiveState=active\nSubState=running\n"
    "UnitFileState=enabled\nMainPID=4242\nNRestarts=0\nStatusText=following 3 sessions\n"
    "FragmentPath={dir}/keepd.service\n"
)


class Recorder(Runner):
    """Answers like a manager that has (or has not) loaded keepd, and records every call."""

    def __init__(self, active: bool = False) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.active = active

    def __call__(self, argv: Sequence[str]) -> Done:
        call = tuple(argv)
        self.calls.append(call)
        if call[:3] == ("systemctl", "--user", "show") and self.active:
            return Done(0, SHOWN_ACTIVE.format(dir=systemd_user_dir()))
        if call[:3] == ("systemctl", "--user", "show"):
            return Done(0, "Id=keepd.socket\nLoadState=not-found\n\nId=keepd.service\n")
        if call[:2] == ("launchctl", "print"):
            return Done(0, "\tstate = running\n\tpid = 77\n") if self.active else Done(113)
        return Done(0)

    def ran(self) -> list[tuple[str, ...]]:
        reads = ("show", "show-environment", "print", "is-system-running")
        return [call for call in self.calls if not set(call[1:3]) & set(reads)]


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "READY_SECONDS", 0.2)
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)


def test_dry_run_prints_and_writes_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "keepd", "service", "install", "--dry-run", "--manager", "systemd"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "would write " + str(systemd_user_dir() / "keepd.service") in done.stdout
    script = Path(sys.executable).parent / "keepd"  # the console script beside this Python
    assert f"    ExecStart={script} run" in done.stdout
    assert "would run: systemctl --user enable --now keepd.socket keepd.service" in done.stdout
    assert not systemd_user_dir().exists() and not notes_dir().exists()


def test_systemd_install_is_idempotent_and_restarts_on_change() -> None:
    runner = Recorder()
    out = io.StringIO()
    code = control.install(Systemd(runner), KEEPD, Extras(), out, socket=True, dry=False)
    assert code != 0  # nothing answers on the socket: said so, not hidden
    assert "does not answer" in out.getvalue()
    unit = systemd_user_dir() / "keepd.service"
    assert "ExecStart=/usr/bin/env keepd run" in unit.read_text()
    assert (systemd_user_dir() / "keepd.socket").exists()
    assert notes_dir().is_dir() and oct(notes_dir().stat().st_mode & 0o777) == "0o700"
    assert runner.ran() == [
        ("systemctl", "--user", "daemon-reload"),
        ("systemctl", "--user", "enable", "--now", "keepd.socket", "keepd.service"),
    ]
    again = Recorder(active=True)
    out = io.StringIO()
    control.install(Systemd(again), KEEPD, Extras(), out, socket=True, dry=False)
    assert f"unchanged {unit}" in out.getvalue()
    assert ("systemctl", "--user", "restart", "keepd.service") not in again.calls
    other = Command(("/bin/sh",), "test")
    changed = Recorder(active=True)
    control.install(Systemd(changed), other, Extras(), io.StringIO(), socket=False, dry=False)
    assert changed.ran()[-1] == ("systemctl", "--user", "restart", "keepd.service")
    assert ("systemctl", "--user", "disable", "--now", "keepd.socket") in changed.calls
    assert not (systemd_user_dir() / "keepd.socket").exists()


def test_the_bus_address_is_imported_only_where_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    runtime = os.environ["XDG_RUNTIME_DIR"]
    standard = {"DBUS_SESSION_BUS_ADDRESS": f"unix:path={runtime}/bus", "XDG_RUNTIME_DIR": runtime}
    assert Systemd(Recorder(), standard).bus_import() == []
    odd = {"DBUS_SESSION_BUS_ADDRESS": "unix:abstract=/tmp/dbus-x,guid=1"}
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    steps = Systemd(Recorder(), odd).bus_import()
    assert [step.argv for step in steps] == [  # type: ignore[union-attr]
        ("dbus-update-activation-environment", "--systemd", "DBUS_SESSION_BUS_ADDRESS")
    ]


def test_systemd_uninstall_leaves_only_the_data() -> None:
    control.install(Systemd(Recorder()), KEEPD, Extras(), io.StringIO(), socket=True, dry=False)
    note = notes_dir() / "abc.html"
    note.write_text("a note")
    runner = Recorder(active=True)
    out = io.StringIO()
    assert control.uninstall(Systemd(runner), out, dry=False) == 0
    assert not list(systemd_user_dir().iterdir())
    disable = ("systemctl", "--user", "disable", "--now", "keepd.service", "keepd.socket")
    assert runner.ran()[0] == disable
    assert f"notes: {notes_dir()}" in out.getvalue() and note.exists()
    out = io.StringIO()
    control.uninstall(Systemd(Recorder()), out, dry=False)
    assert "not installed" in out.getvalue()


def test_launchd_install_and_uninstall() -> None:
    runner = Recorder()
    out = io.StringIO()
    control.install(Launchd(runner), KEEPD, Extras(), out, socket=True, dry=False)
    plist = launch_agents_dir() / "org.keepd.daemon.plist"
    data = plistlib.loads(plist.read_bytes())
    assert data["ProgramArguments"] == [*KEEPD.argv, "run"]
    uid = os.getuid()
    assert runner.ran() == [
        ("launchctl", "enable", f"gui/{uid}/org.keepd.daemon"),
        ("launchctl", "bootstrap", f"gui/{uid}", str(plist)),
    ]
    assert Launchd(Recorder(active=True)).status().pid == 77
    runner = Recorder(active=True)
    control.uninstall(Launchd(runner), io.StringIO(), dry=False)
    assert runner.ran()[0] == ("launchctl", "bootout", f"gui/{uid}/org.keepd.daemon")
    assert not plist.exists()


def test_status_reads_systemctl_show() -> None:
    state = Systemd(Recorder(active=True)).status()
    assert state.running and state.enabled and state.pid == 4242
    assert "following 3 sessions" in state.detail and "keepd.socket listening" in state.detail
    missing = Systemd(Recorder()).status()
    assert not missing.installed and missing.state == "not installed"


def test_files_for_packagers_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    out = tmp_path / "units"
    argv = ["service", "files", str(out), "--manager", "systemd", "--command", "/usr/bin/env"]
    subprocess.run([sys.executable, "-m", "keepd", *argv], check=True, capture_output=True)
    assert sorted(path.name for path in out.iterdir()) == ["keepd.service", "keepd.socket"]
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    units = [str(out / "keepd.service"), str(out / "keepd.socket")]
    done = subprocess.run(
        ["systemd-analyze", "verify", "--user", *units],
        env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    odd = tmp_path / "odd 100% $dir"  # a space, a specifier sign and a dollar, quoted
    (odd / "claude").mkdir(parents=True)
    os.environ["CLAUDE_CONFIG_DIR"] = str(odd / "claude")
    try:
        text = render_service(Command(("/usr/bin/env",), "test"), machine_extras())
    finally:
        del os.environ["CLAUDE_CONFIG_DIR"]
    assert "Environment=" in text and f"-{systemd_quote(str(odd / 'claude'))}" in text
    (out / "keepd.service").write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", "--user", str(out / "keepd.service")],
        env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    broken = out / "keepd.service"
    broken.write_text(broken.read_text().replace("Type=notify", "Type=notifyy"))
    done = subprocess.run(
        ["systemd-analyze", "verify", "--user", str(broken)],
        env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "notifyy" in done.stderr  # a typo only warns: stderr is what tells


def test_service_and_doctor_stay_light(tmp_path: Path) -> None:
    """The quick commands never import numpy, watchdog or the scheduler."""
    code = (
        "import sys\n"
        "from keepd.cli.main import main\n"
        "codes = [main(['service', 'install', '--dry-run']), main(['service', 'status']),\n"
        "         main(['doctor', '--json'])]\n"
        "heavy = [m for m in ('numpy', 'watchdog', 'apscheduler') if m in sys.modules]\n"
        "print(codes, heavy, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stderr.strip().splitlines()[-1] == "[0, 1, 1] []", done.stderr


def test_install_refuses_while_a_daemon_runs_by_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = make_tree(tmp_path, notify={"enabled": False})
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tree.runtime))
    with running(tree), pytest.raises(ServiceError, match="already runs outside the service"):
        control.install(Systemd(Recorder()), KEEPD, Extras(), io.StringIO(), socket=True, dry=False)
    assert not (systemd_user_dir() / "keepd.service").exists()


def test_logs_come_from_the_journal_or_the_log_files() -> None:
    journal = Systemd(Recorder()).logs_argv(20, follow=True)
    assert journal[:2] == ["journalctl", "--user"] and "keepd.service" in journal
    assert journal[-3:] == ["--lines", "20", "--follow"]
    files = Launchd(Recorder()).logs_argv(5, follow=False)
    assert files[:3] == ["tail", "-n", "5"] and files[-1].endswith("launchd.log")


def test_autostart_install_starts_the_daemon_and_uninstall_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no systemd user manager answers: the XDG autostart entry (valid, as
    desktop-file-validate reads it), the daemon started for this login and answering, a second
    install that changes nothing, then an uninstall that stops it and leaves only the data."""
    tree = make_tree(tmp_path, notify={"enabled": False})
    for name in ("XDG_RUNTIME_DIR", "CLAUDE_CONFIG_DIR"):
        monkeypatch.setenv(name, tree.env[name])
    monkeypatch.setattr(control, "READY_SECONDS", 30.0)  # a real daemon starts here
    pid = None
    command = resolve_command(str(Path(sys.executable).with_name("keepd")))
    out = io.StringIO()
    try:
        code = control.install(
            Autostart(Runner()), command, machine_extras(), out, socket=True, dry=False
        )
        assert code == 0, out.getvalue()
        assert f"a desktop that reads {desktop_path().parent} starts it" in out.getvalue()
        entry = desktop_path()
        assert entry == Path(os.environ["XDG_CONFIG_HOME"]) / "autostart" / "keepd.desktop"
        text = entry.read_text()
        assert f"CLAUDE_CONFIG_DIR={tree.env['CLAUDE_CONFIG_DIR']}" in text  # carried
        assert f"{command.program} run --log-file {log_file()}" in text
        _validate(entry)
        state = Autostart(Runner()).status()
        pid = Client(timeout=5).call("status")["pid"]
        assert state.running and state.enabled and state.pid == pid
        assert state.command == [command.program]
        _doctor_reports_it(pid, command)
        assert "keepd daemon ready" in log_file().read_text()
        again = io.StringIO()
        control.install(
            Autostart(Runner()), command, machine_extras(), again, socket=True, dry=False
        )
        assert f"unchanged {entry}" in again.getvalue() and "starting" not in again.getvalue()
        assert Client(timeout=5).call("status")["pid"] == pid
    finally:
        gone = io.StringIO()
        control.uninstall(Autostart(Runner()), gone, dry=False)
    assert f"stopping the daemon, pid {pid}" in gone.getvalue()
    assert not entry.exists() and control.wait_ready(0.0) is None
    assert "the daemon's state" in gone.getvalue()
    assert not Autostart(Runner()).status().installed


def _doctor_reports_it(pid: int, command: Command) -> None:
    """`keepd doctor` reads the entry: the service runs, this keepd; beside systemd, a
    second login path is a warning."""
    check, state = check_service(Autostart(Runner()))
    assert check.status == OK and check.summary.startswith(f"autostart: running, pid {pid}")
    # keepd installed under /tmp (a clone there) runs, but doctor rightly warns that a service
    # with a private /tmp could not: the warning is then the right answer, not OK.
    under_tmp = shared_tmp_warning(command) is not None
    assert check_command(state).status == (WARN if under_tmp else OK)
    both, _ = check_service(Systemd(Recorder(active=True)))
    assert both.status == WARN and str(desktop_path()) in both.summary


def _validate(entry: Path) -> None:
    """desktop-file-validate (Debian's desktop-file-utils) finds nothing to say, not even a
    hint; skipped without it."""
    if shutil.which("desktop-file-validate") is None:
        pytest.skip("desktop-file-validate is not installed (desktop-file-utils)")
    argv = ["desktop-file-validate", str(entry)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    broken = entry.with_name("broken.desktop")
    broken.write_text(entry.read_text().replace("Type=Application", "Type=Aplication"))
    argv = ["desktop-file-validate", str(broken)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "Aplication" in done.stdout  # it does read the file
    broken.unlink()


def test_without_a_systemd_user_manager_the_login_path_is_autostart() -> None:
    class NoManager(Recorder):
        def __call__(self, argv: Sequence[str]) -> Done:
            super().__call__(argv)
            return Done(1, "", "Failed to connect to bus: No medium found")

    assert control.platform_manager("linux", NoManager()) == "autostart"
    assert control.platform_manager("linux", Recorder()) == "systemd"
    assert control.platform_manager("darwin", NoManager()) == "launchd"
    assert isinstance(control.make_manager(None, NoManager()), Autostart)


def test_the_advice_for_a_keepd_under_tmp_works(tmp_path: Path) -> None:
    """A keepd under /tmp found by itself is refused with advice to give it with --command;
    given so, the install goes through and its unit shares /tmp (PrivateTmp= would hide it)."""
    if not tmp_path.is_relative_to("/tmp"):
        pytest.skip("tmp_path is not under /tmp")
    script = tmp_path / "venv" / "bin" / "keepd"
    script.parent.mkdir(parents=True)
    script.write_text(f"#!{sys.executable}\n")
    script.chmod(0o755)
    found = Command((str(script),), "the keepd command being run")
    with pytest.raises(ServiceError) as refused:
        control.install(Systemd(Recorder()), found, Extras(), io.StringIO(), socket=True, dry=False)
    advice = f"`{script} service install --command {script}`"
    assert advice in refused.value.message
    given = resolve_command(advice.strip("`").split("--command ")[1])
    out = io.StringIO()
    control.install(Systemd(Recorder()), given, Extras(), out, socket=True, dry=False)
    assert "warning: " in out.getvalue() and "stops working if /tmp is emptied" in out.getvalue()
    unit = (systemd_user_dir() / "keepd.service").read_text().splitlines()
    assert f"ExecStart={script} run" in unit and "PrivateTmp=no" in unit
