"""evaluation.full's account of the machine's load while it timed keepd: a quiet machine is said
to be quiet, a loaded one is said to be loaded at the top of the pages, and this run's own
process is not counted as load on itself."""

from __future__ import annotations

from evaluation.load import Load, describe, warning


def test_a_quiet_machine_is_called_quiet() -> None:
    quiet = Load(before=0.2, after=1.3, cores=2)
    assert not quiet.loaded
    words = describe(quiet)
    assert "0.20 before" in words and "1.30 after" in words and "2 cores" in words
    assert "quiet" in words and "loaded" not in words


def test_the_runs_own_process_is_not_load() -> None:
    assert Load(before=0.0, after=1.5, cores=2).others == 0.5
    assert not Load(before=0.0, after=1.5, cores=2).loaded
    assert Load(before=0.0, after=1.6, cores=2).loaded


def test_a_loaded_machine_is_said_to_be_loaded() -> None:
    busy = Load(before=3.4, after=4.0, cores=2)
    assert busy.loaded and busy.others == 3.4
    assert "**The machine was loaded while this run timed keepd**" in describe(busy)
    assert "3.4 of its 2 cores" in warning(busy)


def test_the_line_scales_with_the_cores() -> None:
    assert Load(before=1.5, after=0.0, cores=8).others == 1.5
    assert not Load(before=1.5, after=0.0, cores=8).loaded
    assert Load(before=1.5, after=0.0, cores=4).loaded
