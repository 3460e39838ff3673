"""Small sessions for the tests of cuts: turns with tool calls, a parallel response, open calls."""

from __future__ import annotations

from pathlib import Path

from tests.cut_kit import age
from tests.unit.builders import Chain, assistant, tool_result, tool_use_block

PARSER = "tokenizer grammar precedence parser lexer"


def parallel(chain: Chain, msg_id: str, context: int) -> list[str]:
    """One API response of two tool calls and their results, linked as Claude Code links them."""
    first, second = f"{msg_id}-a", f"{msg_id}-b"
    calls = [
        tool_use_block(f"t-{first}", command="ls"),
        tool_use_block(f"t-{second}", command="cat"),
    ]
    usage = {"input_tokens": context, "output_tokens": 10}
    chain.add(assistant(first, chain.last, [calls[0]], msg_id=msg_id, usage_=usage))
    chain.add(assistant(second, first, [calls[1]], msg_id=msg_id, usage_=usage))
    chain.add(tool_result(f"{first}-r", first, f"t-{first}", "listing"))
    chain.add(tool_result(f"{second}-r", second, f"t-{second}", "contents"))
    return [first, second, f"{first}-r", f"{second}-r"]


def conversation(*, open_call: bool = False) -> Chain:
    """Five turns: the parser (leaned on later), weather (never again), parallel tools, more."""
    chain = Chain()
    chain.turn(f"plan the {PARSER}", f"the plan: {PARSER} in three steps", context=1000)
    chain.turn("what is the weather like in lisbon today", "sunny and warm in lisbon", context=1500)
    chain.prompt(f"write the tokenizer for the {PARSER}")
    parallel(chain, "msg_par", 2000)
    chain.reply("the tokenizer is written and its grammar checked", context=2600)
    chain.prompt("now the precedence climbing in the parser grammar")
    chain.tool_call("pytest -k precedence", "3 passed", context=3000)
    chain.reply("precedence works for the tokenizer grammar", context=3200)
    chain.turn("and the lexer errors for the tokenizer grammar", "lexer errors done", context=3500)
    if open_call:
        chain.prompt("run everything")
        chain.reply([tool_use_block("t-open", command="pytest")], context=3600)
    return chain


def write_session(folder: Path, chain: Chain, name: str = "sess-0001.jsonl") -> Path:
    path = folder / name
    path.write_bytes(chain.jsonl())
    age(path)
    return path
