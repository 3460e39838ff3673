"""`keepd doctor` on a session the installed Claude Code wrote: the version it reads is the
client's, and it calls it tested exactly when it lies within keepd's tested range."""

from __future__ import annotations

import json

from keepd.login.checks import TESTED_VERSIONS
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_doctor_knows_the_client_version(world: World, fake_api: FakeApi) -> None:
    fake_api.queue(Reply(text="hello"))
    world.print_turn("a first prompt")
    done = world.keepd("doctor", "--json", check=False)
    [found] = [c for c in json.loads(done.stdout)["checks"] if c["name"] == "session format"]
    assert found["data"]["version"] == world.claude.version
    low, high = (_numbers(v) for v in TESTED_VERSIONS)
    tested = low <= _numbers(world.claude.version) <= high
    assert found["status"] == ("ok" if tested else "warn"), found
