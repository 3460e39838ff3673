"""Every command keepd prints works when pasted (issue 26).

The commands are collected from what keepd prints (in backticks, after "undo:" or "continue:",
and the examples of every `--help`) on the bundled example and on sessions made here: report,
note, cut, prune, undo, doctor, sessions and errors. Each `keepd` command is then run as printed
(SESSION, WORDS and FILE replaced by a real session, a word and a file); a `cd DIR && claude
--resume ID` is checked for the folder and for the file Claude Code resumes (the real client
is tests/claude's business); any other program must exist. Commands that never end or change the
machine are named in NOT_RUN with the reason.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest

from keepd.cli.help import EXAMPLES
from keepd.paths import example_session, project_slug
from tests.cut_kit import age, quiet_copy

EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"
# Printed commands not run, and why: they serve until stopped or install on this machine.
NOT_RUN = {
    "keepd run": "the daemon runs until stopped",
    "keepd mcp": "serves Claude Code on stdio until stopped",
    "keepd service install": "would install a login service (its --dry-run is run)",
    "claude mcp add keepd -- keepd mcp": "changes Claude Code's settings",
    "keepd cut SESSION --pick --summarize": "runs `claude -p`, which sends the prompts to a model",
}
# Commands whose exit status 1 is an answer (something is not well, not running), not a failure.
STATE_ANSWERS = ("keepd doctor", "keepd service status")
BACKTICKED = re.compile(r"`([^`]+)`")
LABELLED = re.compile(r"^\s*(?:undo|continue): (.+)$")


def printed_commands(text: str) -> list[str]:
    """The commands in keepd's output, in the order printed."""
    found: list[str] = []
    in_examples = in_summary = False
    for line in text.splitlines():
        # A dry run's preview of the summary is text for the model, not keepd's advice.
        in_summary = line.startswith("  the summary (") or (in_summary and line[:4] == "    ")
        if in_summary:
            continue
        if line.startswith("examples:"):
            in_examples = True
            continue
        if in_examples and line.startswith("    "):
            continue  # an example's explanation, under it
        if in_examples and line.startswith("  "):
            found.append(re.split(r"\s{2,}", line.strip())[0])
            continue
        in_examples = False
        labelled = LABELLED.match(line)
        if labelled:
            found.append(labelled.group(1))
        found += [span for span in BACKTICKED.findall(line) if _looks_like_a_command(span)]
    return found


def _looks_like_a_command(span: str) -> bool:
    """A backticked span that is a command line, not a name (`claude -p` in a sentence is one)."""
    first = (span.split(maxsplit=1) or [""])[0]
    return first in ("keepd", "cd", "pipx", "uv", "systemctl", "chmod") or first.startswith("/")


def run(
    *args: str, cwd: Path | None = None, stdin: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The console script in a child process, with this test's HOME and no terminal."""
    with Path(stdin or os.devnull).open(encoding="utf-8") as given:
        return subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from keepd.cli.launch import main; sys.exit(main())",
                *args,
            ],
            stdin=given,
            capture_output=True,
            text=True,
            timeout=120,
            env=dict(os.environ),
            cwd=cwd,
            check=False,
        )


class Paster:
    """Pastes printed commands: fills in the placeholders, runs them, keeps what they print."""

    def __init__(self, session: str, inputs: dict[str, Path], folder: Path) -> None:
        self.session = session
        self.inputs = inputs  # FILE for each command that reads one on stdin
        self.folder = folder
        self.ran: list[str] = []

    def paste(self, command: str) -> str:
        if command in NOT_RUN:
            return ""
        if command.startswith("cd "):
            return self._resume(command)
        argv = shlex.split(command.replace("SESSION", self.session).replace("WORDS", "invoice"))
        if argv[0] != "keepd":
            assert shutil.which(argv[0]) or os.access(argv[0], os.X_OK), f"{command}: no {argv[0]}"
            return ""
        stdin = None
        if argv[-2:] == ["<", "FILE"]:
            argv, stdin = argv[:-2], self.inputs[argv[1]]
        done = run(*argv[1:], cwd=self.folder, stdin=stdin)
        self.ran.append(command)
        allowed = (0, 1) if command.startswith(STATE_ANSWERS) else (0,)
        assert done.returncode in allowed, f"{command} -> {done.returncode}: {done.stderr}"
        for bad in ("no such session", "usage", "Traceback", "internal error"):
            assert bad not in done.stderr, f"{command}: {done.stderr}"
        return done.stdout + done.stderr

    def _resume(self, command: str) -> str:
        """`cd DIR && claude --resume ID`: DIR exists and holds Claude Code's file for ID."""
        cd, resume = command.split(" && ")
        folder = Path(shlex.split(cd)[1])
        assert folder.is_dir(), command
        session_id = shlex.split(resume)[-1]
        roots = [Path.home() / ".claude"]
        files = [root / "projects" / project_slug(folder) / f"{session_id}.jsonl" for root in roots]
        assert any(path.is_file() for path in files), command
        self.ran.append(command)
        return ""

    def paste_all(self, text: str) -> list[str]:
        """Pastes every command in `text` once, in order, and what each prints right after it,
        as a person reading the output would."""
        seen: set[str] = set()
        queue = printed_commands(text)
        while queue:
            command = queue.pop(0)
            if command in seen:
                continue
            seen.add(command)
            out = self.paste(command)
            queue[:0] = printed_commands(out)
        return sorted(seen)


@pytest.fixture
def project(private_home: Path, tmp_path: Path) -> Path:
    """A project folder of this machine with the example as its session (its cwd rewritten)."""
    folder = tmp_path / "invoicer"
    folder.mkdir()
    text = example_session().read_bytes().replace(b'"/home/dev/invoicer', f'"{folder}'.encode())
    target = private_home / ".claude" / "projects" / project_slug(folder) / f"{EXAMPLE_ID}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_bytes(text)
    age(target)
    return folder


@pytest.fixture
def paster(project: Path, tmp_path: Path) -> Paster:
    session = next((Path.home() / ".claude" / "projects").glob(f"*/{EXAMPLE_ID}.jsonl"))
    given = {"session_id": EXAMPLE_ID, "cwd": str(project), "transcript_path": str(session)}
    inputs = {
        "statusline": given,
        "hook": given | {"hook_event_name": "PreCompact", "trigger": "auto"},
    }
    files = {}
    for name, data in inputs.items():
        files[name] = tmp_path / f"{name}.json"
        files[name].write_bytes(orjson.dumps(data))
    return Paster(EXAMPLE_ID[:8], files, project)


def test_the_collector_finds_what_a_person_would_paste() -> None:
    text = (
        "  the 170 messages are in the recall store as cut ab12: `keepd recall --cut ab12 WORDS`\n"
        "  undo: keepd undo /tmp/a\\ b.jsonl\n"
        "  continue: cd /w && claude --resume x\n"
        "  ask Claude (`claude -p`) to write it\n"
        "examples:\n"
        "  keepd report          the newest\n"
        "  keepd cut SESSION --pick --summarize\n"
        "      the summary written by `claude -p` instead\n"
    )
    assert printed_commands(text) == [
        "keepd recall --cut ab12 WORDS",
        "keepd undo /tmp/a\\ b.jsonl",
        "cd /w && claude --resume x",
        "keepd report",
        "keepd cut SESSION --pick --summarize",
    ]


def test_every_help_example_works(paster: Paster) -> None:
    helps = run("--help").stdout + "".join(run(name, "--help").stdout for name in EXAMPLES)
    # Each example on its own (what they print is the next test's), the undo last: the other
    # examples see the cut (`keepd recall WORDS --session SESSION` finds what it left out).
    commands = sorted(dict.fromkeys(printed_commands(helps)), key=lambda c: "keepd undo" in c)
    pasted = [command for command in commands if paster.paste(command) is not None]
    examples = {line for lines in EXAMPLES.values() for line, _ in lines}
    assert examples <= set(pasted)
    assert {"keepd report SESSION --json", "keepd undo SESSION"} <= set(paster.ran)


def test_what_report_cut_prune_and_undo_print_works(paster: Paster, project: Path) -> None:
    outputs = [
        run("report", cwd=project),
        run("report", "--example"),
        run("cut", EXAMPLE_ID[:8], "--pick", "--dry-run"),
        run("cut", EXAMPLE_ID[:8], "--pick"),
    ]
    pasted = paster.paste_all("".join(done.stdout + done.stderr for done in outputs))
    assert f"keepd undo {EXAMPLE_ID}" in pasted
    assert f"cd {project} && claude --resume {EXAMPLE_ID}" in pasted
    assert any(command.startswith("keepd recall --cut ") for command in pasted)
    pruned = run("prune", EXAMPLE_ID, "--keep-last", "1", "--working", "1")
    assert f"keepd undo {EXAMPLE_ID}" in paster.paste_all(pruned.stdout)


def test_the_undo_printed_for_a_copy_finds_the_copy(paster: Paster, tmp_path: Path) -> None:
    """The issue's case: a copy named 2095544c-copy, outside Claude Code's folders."""
    copy = quiet_copy(example_session(), tmp_path / "elsewhere" / "2095544c-copy.jsonl")
    before = copy.read_bytes()
    cut = run("cut", str(copy), "--pick")
    assert cut.returncode == 0, cut.stderr
    undo = [command for command in printed_commands(cut.stdout) if command.startswith("keepd undo")]
    assert undo == [f"keepd undo {copy}"]
    assert "claude --resume" not in cut.stdout  # Claude Code would not find it there
    paster.paste_all(cut.stdout)
    assert copy.read_bytes() == before


def test_what_doctor_and_the_errors_print_works(paster: Paster) -> None:
    assert run("cut", EXAMPLE_ID, "--pick").returncode == 0  # something in the recall store
    outputs = [
        run("doctor"),
        run("reprot"),
        run("report", "1"),
        run("recall"),
        run("sessions"),
        run("service", "status"),
    ]
    text = "".join(done.stdout + done.stderr for done in outputs)
    pasted = paster.paste_all(text)
    assert {"keepd report", "keepd recall WORDS", "keepd --help"} <= set(pasted)
    assert "pipx install keepd" not in text and "keepd[" not in text


def test_the_services_warning_about_tmp_names_a_clone_that_exists() -> None:
    """A keepd under /tmp cannot be a service; the advice installs it from its clone (not
    run here: it would install keepd for this user)."""
    from keepd.login.command import Command, command_problem

    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        program = Path(folder) / "keepd"
        program.write_text("#!/bin/sh\n", encoding="utf-8")
        program.chmod(0o755)
        problem = command_problem(Command((str(program),), "test"))
    assert problem is not None and "pipx install keepd" not in problem
    advised = [shlex.split(span) for span in BACKTICKED.findall(problem)]
    installs = [argv for argv in advised if argv[0] in ("pipx", "uv")]
    assert [argv[:2] for argv in installs] == [["pipx", "install"], ["uv", "tool"]]
    assert ["service", "install"] in [argv[-2:] for argv in advised]  # then that keepd's
    for argv in installs:
        assert (Path(argv[-1]) / "pyproject.toml").is_file(), argv
