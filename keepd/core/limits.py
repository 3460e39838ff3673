"""The context window of a session and where Claude Code compacts it by itself, with where
each figure came from; pure: the settings and what the status line said are handed in.

The window, first source that knows it: keepd's own `--window` or `watch.window`; what Claude
Code's status line said for this session (`context_window.context_window_size`); the model the
session's newest reply names (`message.model`), from `MODELS`; the model the settings name
(`model`, `env.ANTHROPIC_MODEL`; a `[1m]` suffix opens the 1M window of a model that has it);
with no reply and no setting, 2.1.332's default model; usage above 200k (only a 1M window holds
it); else 200k.

The trigger (the auto-compact point) as 2.1.332 computes it: the auto-compact window
(`CLAUDE_CODE_AUTO_COMPACT_WINDOW`, else `autoCompactWindow`, else the model's window, never
above it) less the room kept for the reply (the model's output limit, at most 20,000), less
13,000; with `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` the lower of that and the percentage of the room.
Only models born with a 1M window have an auto-compact window of their own: for the others
(200k, or opened to 1M) without a setting, nothing compacts before the window is full.
`DISABLE_AUTO_COMPACT`, `DISABLE_COMPACT` or `autoCompactEnabled: false` turn it off. A session's
own automatic compactions (their `preTokens`) show where it really compacted: below the
computed point, they win (the client's environment is not keepd's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_WINDOW = 200_000
LARGE_WINDOW = 1_000_000
DEFAULT_MODEL = "claude-opus-5-5"  # 2.1.332's model with no `model` setting
OUTPUT_ROOM = 20_000  # the reply's room is the model's output limit, at most this
MARGIN = 13_000  # below the room left, where auto-compact starts


@dataclass(frozen=True, slots=True)
class Model:
    """One model as 2.1.332's registry lists it."""

    window: int  # `context.window`
    large: bool  # a 1M window on request (`maximum_window` or the `[1m]` suffix)
    output: int  # `max_output_tokens.default`

    @property
    def native(self) -> bool:
        """Born with a 1M window: 2.1.332 gives it an auto-compact window of its own."""
        return self.window >= LARGE_WINDOW and not self.large


# Read off 2.1.332's bundled model registry (`{id:..., context:{window:...},
# max_output_tokens:{default:...}}`); tests/claude/test_window.py asks the client for each.
MODELS: dict[str, Model] = {
    "claude-haiku-4-5": Model(200_000, True, 32_000),
    "claude-haiku-5-5": Model(1_000_000, False, 128_000),
    "claude-sonnet-4-0": Model(200_000, True, 32_000),
    "claude-sonnet-4-5": Model(200_000, True, 32_000),
    "claude-sonnet-4-6": Model(200_000, True, 32_000),
    "claude-sonnet-5": Model(1_000_000, False, 64_000),
    "claude-sonnet-5-5": Model(1_000_000, False, 128_000),
    "claude-opus-4-0": Model(200_000, True, 32_000),
    "claude-opus-4-1": Model(200_000, True, 32_000),
    "claude-opus-4-5": Model(200_000, True, 32_000),
    "claude-opus-4-6": Model(200_000, True, 64_000),
    "claude-opus-4-7": Model(1_000_000, False, 64_000),
    "claude-opus-4-8": Model(1_000_000, False, 64_000),
    "claude-opus-5": Model(1_000_000, False, 64_000),
    "claude-opus-5-5": Model(1_000_000, False, 128_000),
    "claude-fable-5": Model(1_000_000, False, 64_000),
    "claude-fable-5-1": Model(1_000_000, False, 64_000),
    "claude-fable-5-2": Model(1_000_000, False, 128_000),
    "claude-mythos-5": Model(1_000_000, False, 64_000),
    "claude-mythos-5-1": Model(1_000_000, False, 64_000),
    "claude-mythos-5-2": Model(1_000_000, False, 128_000),
}
# The registry's first-party ids that do not begin with its own id (the others are the id, or
# the id and a date): what an older session's replies name.
API_IDS = {
    "claude-sonnet-4-20250514": "claude-sonnet-4-0",
    "claude-opus-4-20250514": "claude-opus-4-0",
}
# Models 2.1.332 lists (an old session's replies name them) but no longer serves: asked for,
# it answers with another (test_window.py checks).
REPLACED = {"claude-opus-4-0": "claude-opus-5-5", "claude-opus-4-1": "claude-opus-5-5"}
# The aliases a `model` setting may use, as 2.1.332 resolves them (test_window.py checks).
ALIASES = {
    "opus": "claude-opus-5-5",
    "sonnet": "claude-sonnet-5-5",
    "haiku": "claude-haiku-5-5",
}


@dataclass(frozen=True, slots=True)
class Settings:
    """What Claude Code's settings and environment say about the window and auto-compact."""

    model: str | None = None  # `model`, else `env.ANTHROPIC_MODEL`
    compact_window: int | None = None  # `autoCompactWindow`
    env_window: int | None = None  # CLAUDE_CODE_AUTO_COMPACT_WINDOW
    percent: float | None = None  # CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, 0 < p <= 100
    auto_compact: bool = True  # False: DISABLE_AUTO_COMPACT, DISABLE_COMPACT or the setting


@dataclass(frozen=True, slots=True)
class Told:
    """What Claude Code's status line said of one session."""

    window: int
    share: float | None = None  # `used_percentage` as a share
    at: float | None = None  # when, seconds since the epoch


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything outside the session file that decides its window and trigger, and whether a
    file it read is still on disk (Claude Code reads back after a cut only those that are:
    core/aftercut.py; None: every one is taken to be)."""

    window: int | None = None  # keepd's own `--window` or `watch.window`
    settings: Settings = Settings()
    told: Told | None = None
    on_disk: Callable[[str], bool] | None = None


@dataclass(frozen=True, slots=True)
class Limits:
    """The window and the trigger, and where each came from."""

    window: int
    window_source: str  # option, status line, model, settings, default model, usage, assumed
    trigger: int | None  # None: auto-compact is off
    trigger_source: str  # settings, environment, compactions, model, window, off
    model: str | None = None  # the model the window is that of, if known


def limits(
    model: str | None, largest_usage: int, auto_compacted: int | None, setup: Setup
) -> Limits:
    """The session's window and trigger (see the module's docstring).

    >>> found = limits("claude-opus-5-5", 41_898, None, Setup())
    >>> found.window, found.window_source, found.trigger, found.trigger_source
    (1000000, 'model', 967000, 'model')
    >>> limits(None, 0, None, Setup()).window_source
    'default model'
    """
    window, source, named = _window(model, largest_usage, setup)
    trigger, trigger_source = _trigger(window, named, auto_compacted, setup.settings)
    return Limits(window, source, trigger, trigger_source, named)


def compact_words(context: dict[str, Any]) -> str:
    """Where Claude Code compacts by itself, in the words the report, the note and doctor use.

    >>> compact_words({"trigger": 967_000, "trigger_source": "model"})
    'auto-compact at 967k'
    >>> compact_words({"trigger": 200_000, "trigger_source": "window"})
    'auto-compact when full'
    >>> compact_words({"trigger": None, "trigger_source": "off"})
    'auto-compact off'
    """
    trigger = context.get("trigger")
    if not isinstance(trigger, int):
        return "auto-compact off"
    if context.get("trigger_source") == "window":
        return "auto-compact when full"
    return f"auto-compact at {trigger // 1000:,}k"


def urgent_share(context: dict[str, Any], urgent: float) -> float:
    """Where the urgent notice comes, as a share of the window: `urgent` of the way to the
    trigger (the auto-compact point), or of the window when auto-compact is off.

    >>> urgent_share({"window": 1_000_000, "trigger": 967_000}, 0.8)
    0.7736
    >>> urgent_share({"window": 200_000, "trigger": None}, 0.8)
    0.8
    """
    window, trigger = context.get("window"), context.get("trigger")
    if isinstance(window, int) and window > 0 and isinstance(trigger, int) and trigger > 0:
        return urgent * trigger / window
    return urgent


def resolve(model: str) -> tuple[str, bool]:
    """A model setting's id and whether it asks for the 1M window (`[1m]`).

    >>> resolve("sonnet[1m]"), resolve("claude-sonnet-4-5-20250929")
    (('claude-sonnet-5-5', True), ('claude-sonnet-4-5', False))
    """
    text = model.strip().lower()
    large = text.endswith("[1m]")
    text = text.removesuffix("[1m]")
    text = ALIASES.get(text, text)
    known = _known(text)
    return (REPLACED.get(known, known) if known else text), large


def _known(model: str) -> str | None:
    """The registry's id of `model` (a dated or provider-prefixed id names its base)."""
    name = model.rsplit("/", 1)[-1].split("anthropic.", 1)[-1]
    name = API_IDS.get(name, name)
    if name in MODELS:
        return name
    longest = [m for m in MODELS if name.startswith(m + "-") or name.startswith(m + "@")]
    return max(longest, key=len) if longest else None


def _window(model: str | None, largest: int, setup: Setup) -> tuple[int, str, str | None]:
    settings = setup.settings
    wanted, large = resolve(settings.model) if settings.model else (None, False)
    named = _known(model) if model else None
    if setup.window:
        return setup.window, "option", named or wanted
    if setup.told is not None:
        return setup.told.window, "status line", named or wanted
    return _model_window(model, named, wanted, large, largest)


def _model_window(
    model: str | None, named: str | None, wanted: str | None, large: bool, largest: int
) -> tuple[int, str, str | None]:
    """The window of the model the session (else the settings, else nobody) names."""
    if named is not None:
        entry = MODELS[named]
        if entry.large and largest > entry.window:  # only the 1M window holds it
            return LARGE_WINDOW, "usage", named
        asked = entry.large and large and wanted == named
        return (LARGE_WINDOW, "settings", named) if asked else (entry.window, "model", named)
    if wanted in MODELS and model is None:
        entry = MODELS[wanted]
        return (LARGE_WINDOW if entry.large and large else entry.window), "settings", wanted
    if model is None and wanted is None:
        return MODELS[DEFAULT_MODEL].window, "default model", DEFAULT_MODEL
    if largest > DEFAULT_WINDOW:
        return LARGE_WINDOW, "usage", None
    return DEFAULT_WINDOW, "assumed", None


def _trigger(
    window: int, model: str | None, compacted: int | None, settings: Settings
) -> tuple[int | None, str]:
    if not settings.auto_compact:
        return None, "off"
    room, source = window, "model"
    if settings.env_window is not None:
        room, source = min(window, settings.env_window), "environment"
    elif settings.compact_window is not None:
        room, source = min(window, settings.compact_window), "settings"
    elif model in MODELS and not MODELS[model].native:
        # No auto-compact window of its own (2.1.332's "auto" source): nothing compacts before
        # a request no longer fits, when the API refuses it.
        return _seen(compacted, window, "window")
    output = MODELS[model].output if model in MODELS else OUTPUT_ROOM
    room -= min(output, OUTPUT_ROOM)
    point = room - MARGIN
    if settings.percent is not None:
        point = min(int(room * settings.percent / 100), point)
        source = "environment" if source == "model" else source
    return _seen(compacted, max(point, 0), source)


def _seen(compacted: int | None, point: int, source: str) -> tuple[int, str]:
    """The session's own automatic compaction, where it came before the computed point."""
    return (
        (compacted, "compactions")
        if compacted is not None and compacted < point
        else (point, source)
    )
