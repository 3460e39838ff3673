"""What one reader question costs: each request file (from `keepd ask --print` or
`python -m evaluation.reader --requests DIR`) sent through the real Claude Code (tests/claude's
pinned client) with keepd's own arguments to the fake Messages API, which counts what it gets.

    .venv/bin/python scripts/reader_cost.py REQUEST.txt ...

Prints, per request: its bytes, the bytes of the API request Claude Code made of it, the input
tokens the fake API counted (bytes / 4: a stand-in for the real tokenizer), and the cost Claude
Code's own price table puts on that (`total_cost_usd`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from keepd.core.reader import SYSTEM
from keepd.system.claude_ask import command
from tests.claude.client import World, install
from tests.claude.fake_api import FakeApi, Reply


def main(names: list[str]) -> int:
    api = FakeApi().start()
    api.responder = lambda request: Reply(text='{"starts": [], "newest": 1}')
    try:
        with tempfile.TemporaryDirectory() as root:
            world = World(Path(root), api.url, install())
            for name in names:
                request = Path(name).read_text(encoding="utf-8")
                api.requests.clear()
                done = subprocess.run(
                    command(str(world.claude.binary), "haiku", SYSTEM),
                    input=request, cwd=world.root, env=world.env(),
                    capture_output=True, text=True, timeout=120, check=False,
                )
                posts = [r for r in api.messages_posts() if SYSTEM in r.joined()]
                body = len(json.dumps(posts[0].body).encode()) if posts else 0
                result = json.loads(done.stdout)
                print(
                    f"{Path(name).name}: request {len(request.encode())} B, API body {body} B, "
                    f"input tokens {result['usage']['input_tokens']}, "
                    f"total_cost_usd {result['total_cost_usd']:.6f}"
                )
    finally:
        api.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
