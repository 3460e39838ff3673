"""The configuration file: defaults, and an error naming the key for every bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from keepd.config import Config, documented_keys, load_config, parse_config
from keepd.errors import ConfigError
from keepd.paths import config_file


def test_no_file_means_the_defaults() -> None:
    assert load_config() == Config()


def test_the_user_file_is_read(private_home: Path) -> None:
    config_file().parent.mkdir(parents=True)
    config_file().write_text("[notify]\nthreshold = 0.5\nurgent = 0.9\n[watch]\nwindow = 1000000\n")
    config = load_config()
    assert (config.notify.threshold, config.notify.urgent) == (0.5, 0.9)
    assert config.watch.window == 1_000_000


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[notify]\nthreshold = 'high'\n", "notify.threshold must be a number"),
        ("[notify]\nenabled = 1\n", "notify.enabled must be true or false"),
        ("[notify]\nthreshold = true\n", "notify.threshold must be a number"),
        ("[notify]\nthreshold = 1.5\n", "notify.threshold must be at most 1.0"),
        ("[socket]\nrequest_bytes = 2.5\n", "socket.request_bytes must be an integer"),
        ("[socket]\nmax_clients = 0\n", "socket.max_clients must be at least 1"),
        ("[watch]\nactive_minuts = 3\n", "unknown key watch.active_minuts"),
        ("[daemon]\nx = 1\n", "unknown section [daemon]"),
        ("notify = 3\n", "notify must be a table"),
        ("[notify]\nthreshold = 0.9\nurgent = 0.8\n", "notify.urgent must not be below"),
        ("[log]\nlevel = 'loud'\n", "log.level must be one of"),
        ("[notify\n", "not valid TOML"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value) and str(path) in str(caught.value)
    assert caught.value.exit_code == 78


def test_an_explicit_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.toml")


def test_integers_are_accepted_for_numbers() -> None:
    assert parse_config({"notify": {"debounce_seconds": 2}}, "x").notify.debounce_seconds == 2.0


def test_every_key_is_documented_with_its_default() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    for key, default, _ in documented_keys():
        shown = str(default).lower() if isinstance(default, bool) else repr(default)
        shown = shown.replace("'", '"')
        assert f"| `{key}` | `{shown}` |" in readme, key
