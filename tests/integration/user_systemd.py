"""A real `systemd --user` of the test's own, fenced off from the machine: a private mount
namespace with a fresh tmpfs on /run, as on a machine booted with systemd (where
`/run/systemd/system` tells it so; on a plain /run directory ProtectKernelTunables= hides the
runtime folder from services), the test's runtime folder bound to /run/user/0 inside, its own
HOME under /home (PrivateTmp= hides /tmp from services), and its own cgroup in every hierarchy
(a manager left in the root cgroup moves every process on the machine into its init.scope).
Needs root; `unavailable()` says why it cannot run."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")
LAUNCH = r"""
set -eu
group=$1; home=$2; runtime=$3; uid=$4
for root in /sys/fs/cgroup /sys/fs/cgroup/*; do
    [ -f "$root/cgroup.procs" ] || continue
    mkdir -p "$root/$group"
    for f in cpuset.cpus cpuset.mems; do
        [ -f "$root/$f" ] && cat "$root/$f" > "$root/$group/$f"
    done
    echo $$ > "$root/$group/cgroup.procs"
    chown -R "$uid:$uid" "$root/$group"  # delegated, as logind does for a user's manager
done
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run
mkdir -p /run/systemd/system /run/systemd/unit-root /run/systemd/inaccessible/dir "/run/user/$uid"
mount --bind "$runtime" "/run/user/$uid"
cd /run/systemd/inaccessible
touch reg && mknod chr c 0 0 && mknod blk b 0 0 && mkfifo fifo
chmod 0000 reg chr blk fifo dir
cd /
set -- env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="/run/user/$uid" \
    LANG=C.UTF-8 systemd --user --log-target=null
if [ "$uid" != 0 ]; then
    set -- setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all "$@"
fi
exec "$@"
"""


def unavailable() -> str | None:
    """Why a private user manager cannot run here, or None."""
    if os.uname().sysname != "Linux":
        return "not Linux"
    if os.geteuid() != 0:
        return "needs root (a private mount namespace and a cgroup of its own)"
    missing = [name for name in ("systemd", "systemctl", "unshare") if shutil.which(name) is None]
    if missing:
        return f"not installed: {', '.join(missing)}"
    if Path("/run/systemd/system").exists():
        return "this machine runs systemd: use a real login session instead of a stand-in"
    if not any((root / "cgroup.procs").exists() for root in _hierarchies()):
        return "no writable cgroup hierarchy"
    return None


def _hierarchies() -> list[Path]:
    roots = [CGROUPS] if (CGROUPS / "cgroup.procs").exists() else []
    with contextlib.suppress(OSError):
        roots += [path for path in CGROUPS.iterdir() if (path / "cgroup.procs").exists()]
    return roots


@dataclass
class UserManager:
    """The running manager and the environment that reaches it (its services see `runtime`
    as /run/user/UID)."""

    home: Path
    runtime: Path
    group: str
    process: subprocess.Popen[bytes]
    uid: int = 0

    @property
    def env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "LANG": "C.UTF-8",
        }

    def run(self, argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """A command as the manager's user, in its environment."""
        other = self.uid != 0
        return subprocess.run(
            argv,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=self.home,
            user=self.uid if other else None,
            group=self.uid if other else None,
            extra_groups=[] if other else None,
        )

    def systemctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(["systemctl", "--user", *args], timeout=60)


@contextlib.contextmanager
def user_manager(uid: int = 0) -> Iterator[UserManager]:
    """Starts the manager of `uid` (root's, or an unprivileged user's, whose services get
    PrivateUsers= from their sandboxing), waits until it answers, and takes everything away."""
    home = Path(tempfile.mkdtemp(prefix="keepd-e2e-", dir="/home"))
    runtime = Path(tempfile.mkdtemp(prefix="keepd-e2e-", dir="/var/tmp"))
    runtime.chmod(0o700)
    for folder in (home, runtime):
        os.chown(folder, uid, uid)
    group = f"keepd-e2e-{os.getpid()}-{time.monotonic_ns()}"
    unshare = ["unshare", "--mount", "--propagation", "private"]
    process = subprocess.Popen(
        [*unshare, "sh", "-c", LAUNCH, "launch", group, str(home), str(runtime), str(uid)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    manager = UserManager(home, runtime, group, process, uid)
    try:
        _wait_running(manager)
        yield manager
    finally:
        _stop(manager)
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


def _wait_running(manager: UserManager, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    state = ""
    while time.monotonic() < deadline:
        if manager.process.poll() is not None:
            error = manager.process.stderr.read().decode() if manager.process.stderr else ""
            raise RuntimeError(f"systemd --user exited {manager.process.returncode}: {error}")
        # not is-system-running: it answers "offline" where it cannot read PID 1's root
        state = manager.systemctl("show", "--property=SystemState", "--value").stdout.strip()
        if state in ("running", "degraded"):
            return
        time.sleep(0.1)
    raise RuntimeError(f"systemd --user not up after {seconds}s (state {state!r})")


def _stop(manager: UserManager) -> None:
    if manager.process.poll() is None:
        manager.process.terminate()
        try:
            manager.process.wait(30)
        except subprocess.TimeoutExpired:
            manager.process.kill()
            manager.process.wait(10)
    for root in _hierarchies():
        _remove_tree(root / manager.group)


def _remove_tree(folder: Path) -> None:
    """Removes a cgroup and its children, deepest first (processes are gone by now)."""
    if not folder.is_dir():
        return
    for child in sorted(
        (path for path in folder.rglob("*") if path.is_dir()),
        key=lambda path: len(path.parts),
        reverse=True,
    ):
        with contextlib.suppress(OSError):
            child.rmdir()
    with contextlib.suppress(OSError):
        folder.rmdir()


NOBODY = 65534
SYSTEM_PYTHON = Path("/usr/bin/python3")


def pipx_like_keepd(manager: UserManager) -> tuple[Path | None, str]:
    """keepd installed for the manager's user as pipx lays it out (a venv under
    ~/.local/share/pipx and a link to its script in ~/.local/bin), made from the system Python
    with copies of this checkout's package and of the installed distributions it needs: the
    test's own Python and checkout may sit where that user or a service (PrivateTmp=) cannot
    see them, as pyenv's under /root or a clone under /tmp. Returns the link, or None and why."""
    venv = manager.home / ".local" / "share" / "pipx" / "venvs" / "keepd"
    script, why = venv_keepd(manager, venv)
    if script is None:
        return None, why
    link = manager.home / ".local" / "bin" / "keepd"
    link.parent.mkdir(parents=True)
    link.symlink_to(script)
    _own(manager.home / ".local", manager.uid)
    tried = manager.run([str(link), "--version"])
    if tried.returncode != 0:
        return None, f"user {manager.uid} cannot run the copy: {tried.stderr.strip()[-200:]}"
    return link, ""


def venv_keepd(manager: UserManager, venv: Path) -> tuple[Path | None, str]:
    """A venv at `venv` made from the system Python, holding copies of this checkout's package
    and the distributions it needs, and its `keepd` script; or None and why."""
    if not SYSTEM_PYTHON.exists():
        return None, f"{SYSTEM_PYTHON} is not installed"
    made = manager.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(venv)])
    if made.returncode != 0:
        return None, f"cannot make a venv: {made.stderr.strip()}"
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site = venv / "lib" / version / "site-packages"
    if not site.is_dir():
        return None, f"{SYSTEM_PYTHON} is not {version}"
    _copy_runtime(site)
    script = venv / "bin" / "keepd"
    script.write_text(
        f"#!{venv / 'bin' / 'python'}\nimport sys\n"
        "from keepd.cli.main import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    _own(venv, manager.uid)
    return script, ""


def _copy_runtime(site: Path) -> None:
    """This checkout's `keepd` package and the files of every distribution it depends on."""
    import keepd

    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(Path(keepd.__file__).parent, site / "keepd", ignore=ignore)
    for dist in _requirements("keepd"):
        for name in dist.files or []:
            source = Path(str(dist.locate_file(name)))
            if ".." in name.parts or "__pycache__" in name.parts or not source.is_file():
                continue
            target = site / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _requirements(root: str) -> list[metadata.Distribution]:
    """The installed distributions `root` needs, transitively (extras left out)."""
    found: dict[str, metadata.Distribution] = {}
    todo = list(metadata.requires(root) or [])
    while todo:
        requirement = todo.pop()
        if "extra ==" in requirement:
            continue
        match = re.match(r"[A-Za-z0-9._-]+", requirement)
        name = re.sub(r"[-_.]+", "-", match.group(0)).lower() if match else ""
        if not name or name in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a requirement for another platform
        found[name] = dist
        todo += dist.requires or []
    return list(found.values())


def _own(folder: Path, uid: int) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, uid, uid, follow_symlinks=False)
