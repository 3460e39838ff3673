"""What the command line says, decided without files (issue 26): install advice by installer,
token amounts and counts, usage errors, the report's header."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from keepd.cli.options import session_name, usage_message, width
from keepd.login.advice import add_package, installer
from keepd.report.numbers import plural, tokens_text
from keepd.report.terminal import elsewhere_note, project_name


@pytest.mark.parametrize(
    ("prefix", "python", "advice"),
    [
        (Path("/home/me/.local/share/pipx/venvs/keepd"), None, "pipx inject keepd mcp"),
        (Path("/home/me/.local/pipx/venvs/keepd"), None, "pipx inject keepd mcp"),
        (
            Path("/w/keepd/.venv"),
            "/w/keepd/.venv/bin/python",
            "/w/keepd/.venv/bin/python -m pip install mcp",
        ),
        (
            Path("/w/my dir/.venv"),
            "/w/my dir/.venv/bin/python",
            "'/w/my dir/.venv/bin/python' -m pip install mcp",
        ),
    ],
)
def test_the_mcp_advice_follows_the_installer(
    prefix: Path, python: str | None, advice: str
) -> None:
    assert add_package("mcp", prefix, python) == advice
    assert "keepd[" not in advice and "pipx install keepd" not in advice


def test_a_uv_tool_is_told_to_reinstall_from_its_clone() -> None:
    advice = add_package("mcp", Path("/home/me/.local/share/uv/tools/keepd"))
    assert installer(Path("/home/me/.local/share/uv/tools/keepd")) == "uv"
    assert advice.startswith("uv tool install --reinstall --with mcp ")
    assert not advice.endswith(" keepd")  # the clone, never the package index's name


@pytest.mark.parametrize(
    ("tokens", "text"),
    [
        (999.0, "999"),
        (1_000.0, "1.0k"),
        (200_000.0, "200k"),
        (999_499.0, "999k"),
        (1_000_000.0, "1M"),
        (2_000_000.0, "2M"),
        (1_250_000.0, "1.2M"),
    ],
)
def test_tokens_read_plainly(tokens: float, text: str) -> None:
    assert tokens_text(tokens) == text


def test_plurals() -> None:
    assert [plural(n, "message") for n in (0, 1, 2, 1000)] == [
        "0 messages",
        "1 message",
        "2 messages",
        "1,000 messages",
    ]


@pytest.mark.parametrize("given", ["0", "-5", "39", "x"])
def test_narrow_widths_are_refused(given: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        width(given)
    assert width("40") == 40


@pytest.mark.parametrize("given", ["", "1", "ab", "2bc"])
def test_short_prefixes_are_refused(given: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        session_name(given)


@pytest.mark.parametrize(
    "given", ["2bca", "a/b", "x.jsonl", "2bcaea32-dfa9-5e36-a665-ace49ee0d851"]
)
def test_names_of_4_characters_or_paths_are_taken(given: str) -> None:
    assert session_name(given) == given


def test_a_typo_is_guessed_only_when_close() -> None:
    choices = "'report', 'note', 'cut', 'prune'"
    guessed = usage_message(
        "keepd", f"argument COMMAND: invalid choice: 'prnue' (choose from {choices})"
    )
    assert "did you mean `keepd prune`?" in guessed and "choose from" not in guessed
    far = usage_message(
        "keepd", f"argument COMMAND: invalid choice: 'xyzzy' (choose from {choices})"
    )
    assert "did you mean" not in far and "no command 'xyzzy'" in far


def test_the_project_and_another_projects_session_are_named() -> None:
    assert project_name("/home/dev/invoicer/") == "invoicer"
    assert "/tmp/x has no sessions" in elsewhere_note("/tmp/x")


def test_the_clone_is_the_one_keepd_was_installed_from() -> None:
    """This checkout is installed editable (the guide's setup): its folder, never a name."""
    from keepd.login.advice import _recorded_folder, install_keepd, source

    here = str(Path(__file__).resolve().parents[2])
    recorded = _recorded_folder()
    if recorded is not None and recorded != here:  # a worktree run with another clone's venv
        pytest.skip(f"keepd is installed from {recorded}, not from this checkout")
    assert source() == here
    assert install_keepd() == f"`pipx install {source()}` or `uv tool install {source()}`"
