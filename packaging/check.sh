#!/usr/bin/env bash
# Builds the wheel and sdist, installs the wheel into a fresh venv and runs the installed keepd:
# --version, doctor --json (its JSON is checked; its exit code is not, since a CI machine has no
# desktop, no user service and no sessions), service install --dry-run, and the filled-in units
# through `systemd-analyze verify --user` (any stderr fails: it exits 0 on typos). Then fills the
# Homebrew formula and the PKGBUILD and runs the PKGBUILD's package() against the wheel.
# Usage: packaging/check.sh PYTHON   (a Python with `build` installed)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-.venv/bin/python}
out=build/ci-dist
rm -rf "$out"
mkdir -p "$out"

"$python" -m build --outdir "$out/dist" . >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
version=$("$python" -c 'import re,sys; print(re.search(r"\"(.+)\"", open("keepd/_version.py").read())[1])')
wheel="$out/dist/keepd-$version-py3-none-any.whl"
sdist="$out/dist/keepd-$version.tar.gz"
test -f "$wheel" && test -f "$sdist"
tar -tzf "$sdist" >"$out/sdist.txt"
grep -q "keepd-$version/keepd/login/units/keepd.service" "$out/sdist.txt"
"$python" -m zipfile -l "$wheel" >"$out/wheel.txt"
grep -q "keepd/login/units/org.keepd.daemon.plist" "$out/wheel.txt"
grep -q "keepd/login/units/keepd.desktop" "$out/wheel.txt"
grep -q "keepd/data/icons/keepd-128.png" "$out/wheel.txt"
grep -q "keepd/data/icons/keepd.svg" "$out/wheel.txt"
echo "built $wheel and $sdist"
"$python" packaging/release_check.py --dist "$out/dist" --tag "v$version"

# A fresh venv outside /tmp (the service's PrivateTmp hides /tmp), as pipx or uv would make.
python3 -m venv "$out/venv"
"$out/venv/bin/python" -m pip install --quiet "$wheel" installer 2>"$out/pip.log" \
    || { cat "$out/pip.log"; exit 1; }
keepd="$PWD/$out/venv/bin/keepd"
test "$("$keepd" --version)" = "keepd $version"

set +e
"$keepd" doctor --json >"$out/doctor.json"
doctor=$?
set -e
echo "keepd doctor --json exited $doctor (not checked here: no desktop or service in CI)"
"$python" - "$out/doctor.json" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
assert data["schema"] == 1 and isinstance(data["ok"], bool), data
names = {check["name"] for check in data["checks"]}
wanted = {"config", "claude roots", "session format", "notes", "service", "command", "socket",
          "inotify", "notifications", "macos bundle"}
assert wanted <= names, wanted - names
for check in data["checks"]:
    assert check["status"] in {"ok", "warn", "fail", "skip"} and check["summary"], check
    assert check["status"] not in {"warn", "fail"} or check["fix"], check
    print(f"  {check['status']:<4} {check['name']}: {check['summary']}")
EOF

"$keepd" service install --dry-run --manager systemd >"$out/dry-run.txt"
grep -q "^    ExecStart=$keepd run$" "$out/dry-run.txt"
grep -q "^would run: systemctl --user enable --now keepd.socket keepd.service$" "$out/dry-run.txt"
"$keepd" service install --dry-run --manager launchd >"$out/dry-run-launchd.txt"
grep -q "would run: launchctl bootstrap gui/" "$out/dry-run-launchd.txt"
"$keepd" service install --dry-run --manager autostart >"$out/dry-run-autostart.txt"
grep -q "^    Exec=$keepd run --log-file " "$out/dry-run-autostart.txt"
echo "service install --dry-run: $(wc -l <"$out/dry-run.txt") lines, nothing written"

if command -v systemd-analyze >/dev/null; then
    "$keepd" service files "$out/units" --manager systemd >/dev/null
    runtime=$(mktemp -d)
    chmod 0700 "$runtime"
    XDG_RUNTIME_DIR="$runtime" systemd-analyze verify --user \
        "$out/units/keepd.service" "$out/units/keepd.socket" 2>"$out/verify.err"
    rm -rf "$runtime"
    if [ -s "$out/verify.err" ]; then
        echo "systemd-analyze verify warned:"; cat "$out/verify.err"; exit 1
    fi
    echo "systemd-analyze verify --user: no warnings"
else
    echo "systemd-analyze is not installed: units not verified" >&2
    exit 1
fi

# The release files, filled for this sdist, and the PKGBUILD's package() run for real.
"$python" packaging/fill.py --dist "$out/dist" --out "$out/release" \
    --url "https://example.invalid/keepd-{version}.tar.gz" >/dev/null
(
    srcdir="$PWD/$out/arch/src"
    pkgdir="$PWD/$out/arch/pkg"
    mkdir -p "$srcdir/keepd-$version/dist" "$pkgdir"
    cp "$wheel" "$srcdir/keepd-$version/dist/"
    export PATH="$PWD/$out/venv/bin:$PATH"
    # shellcheck disable=SC1091
    source "$out/release/PKGBUILD"
    cd "$srcdir"
    package >/dev/null
)
grep -qx "ExecStart=/usr/bin/keepd run" "$out/arch/pkg/usr/lib/systemd/user/keepd.service"
test -f "$out/arch/pkg/usr/lib/systemd/user/keepd.socket"
echo "PKGBUILD package(): the user units in /usr/lib/systemd/user with /usr/bin/keepd"
