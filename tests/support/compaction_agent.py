"""The real agent on the scripted server, for the compaction engine's end-to-end tests: one
built with a small window, a long earlier session put into its history, a turn run to its end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import Event
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.messages import Message, ToolCall
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer

# The window make_agent gives the agent unless told otherwise.
WINDOW = 16_000
# How the compression instruction pleat appends starts: what marks a fold's request.
INSTRUCTION_MARK = "[pleat: context compaction"
GOOD_SUMMARY = (
    "<topics>reading files</topics><continues_previous>true</continues_previous>"
    "<summary>\n## Task\nRead every file.\n## Done\nRead some files.\n</summary>"
)


def is_compression(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]
    return last["role"] == "user" and INSTRUCTION_MARK in str(last["content"])


def make_agent(server: ScriptedServer, workspace: Path, **policy: Any) -> Agent:
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=1,
        compaction=CompactionPolicy(**{"context_window": WINDOW, **policy}),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session)
    agent.llm.settings = dataclasses.replace(agent.llm.settings, retry_base_delay=0.001)
    return agent


async def run(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run_turn(prompt)]


# Prose that the local tokenizer counts at about the scripted server's four characters a token
# ("x" * n counts at eight): where pleat infers sizes from the server's numbers, the two agree.
PROSE = "the quick brown fox jumps over the lazy dog. "


def fill_history(agent: Agent, turns: int, chars: int, filler: str = "x") -> None:
    """A long earlier session: user requests, tool calls with big results (`filler` repeated
    to `chars` characters), answers."""
    for t in range(turns):
        agent.add(Message(role="user", content=f"request {t}: look at part {t}"))
        call = agent.add(
            Message(
                role="assistant",
                content=None,
                tool_calls=(_call(f"call_fill_{t}", t),),
            )
        )
        agent.add(
            Message(
                role="tool",
                content=f"part {t} " + (filler * (chars // len(filler) + 1))[:chars],
                tool_call_id=call.tool_calls[0].id,
                name="read_file",
            )
        )
        agent.add(Message(role="assistant", content=f"part {t} is fine"))


def _call(call_id: str, t: int) -> Any:
    return ToolCall(call_id, "read_file", json.dumps({"path": f"part{t}.txt"}))
