"""How loaded the machine was while the evaluation timed keepd, and the plain words that say so.

The speed rows are CPU times and wall-clock figures of one process; other processes on the same
cores make them slower and noisier without anything in keepd changing. So the run reads the
1-minute load average (`os.getloadavg`) before and after its timed parts and says, beside the
figures, whether the machine was quiet; before them it waits a little for the load of jobs that
just ended to fade.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

# The share of the cores that other processes may keep busy, on average over a minute, before the
# machine counts as loaded. A stated line, not a fitted one: on a 2-core machine it is one half
# of a core, so a second process running flat out beside the timings is always "loaded", while an
# idle desktop's background (about 0.1-0.3 on this 2-core machine, read with `uptime` when no
# test or helper ran) is not.
LOADED_SHARE = 0.25
# The evaluation's own process is runnable throughout its timed parts: it counts about one
# towards the load average read after them, and is not load on its timings.
OWN = 1.0
# How long the run waits for the load of jobs that just ended to fade before it times keepd
# (the 1-minute average falls by about a factor e a minute), and how often it looks.
SETTLE_SECONDS = 150.0
SETTLE_STEP = 5.0


@dataclass(frozen=True, slots=True)
class Load:
    """The 1-minute load average before and after the timed parts, and the machine's cores."""

    before: float
    after: float
    cores: int

    @property
    def others(self) -> float:
        """The load the other processes made: the larger reading, less this run's own."""
        return max(self.before, self.after - OWN, 0.0)

    @property
    def limit(self) -> float:
        return LOADED_SHARE * self.cores

    @property
    def loaded(self) -> bool:
        return self.others > self.limit


def now() -> float:
    """The 1-minute load average (0 where the system has none, as on Windows)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def settled(
    wait: float = SETTLE_SECONDS,
    read: Callable[[], float] = now,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """The load average once it is under the loaded line, waiting up to `wait` seconds for it:
    a job that ended just before the run (a test run, an earlier evaluation) still counts in
    the 1-minute average for a minute or two, and is no load on the timings to come.

    >>> readings = iter([1.2, 0.9, 0.3])
    >>> settled(60, lambda: next(readings), lambda _: None)
    0.3
    >>> settled(0, lambda: 1.5, lambda _: None)
    1.5
    """
    limit = LOADED_SHARE * cores()
    reading, waited = read(), 0.0
    while reading > limit and waited < wait:
        sleep(SETTLE_STEP)
        waited += SETTLE_STEP
        reading = read()
    return reading


def cores() -> int:
    return os.cpu_count() or 1


def describe(load: Load) -> str:
    """The speed section's paragraph: the readings, and whether the machine was quiet."""
    readings = (
        f"Load: the 1-minute load average was {load.before:.2f} before the timed runs and "
        f"{load.after:.2f} after them, on {load.cores} cores (this run itself adds about "
        f"{OWN:g} to the second)."
    )
    if not load.loaded:
        return f"{readings} The machine was quiet (other processes under {_limit(load)})."
    return f"{readings}\n\n{warning(load)}"


def warning(load: Load) -> str:
    """The plain statement a loaded run puts at the top of both pages and in its speed section."""
    return (
        f"**The machine was loaded while this run timed keepd**: other processes kept about "
        f"{load.others:.1f} of its {load.cores} cores busy (above {_limit(load)}), so every time "
        f"here (the speed section, the time columns, the daemon's CPU) is slower and noisier than "
        f"a quiet machine's. Re-run on a quiet machine for figures to quote."
    )


def _limit(load: Load) -> str:
    return f"{load.limit:g}, {LOADED_SHARE:.0%} of the cores"
