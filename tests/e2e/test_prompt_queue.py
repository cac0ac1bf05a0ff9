"""Prompts queued while a turn runs, in the core: delivered at the turn's next model call (after
the tool results), journaled; what the last call did not read stays queued for the next turn."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from agent.events import (
    Event,
    PromptDelivered,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    UsageReported,
)
from agent.headless.json_report import StreamJsonReport
from agent.headless.text_report import TextReport
from agent.turn.loop import Agent
from agent.turn.prompt_queue import joined
from sessions.store import Session
from tests.support.faults_harness import open_agent
from tests.support.images import png
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls


async def run_queueing(agent: Agent, prompt: str, when: type, *queued: str) -> list[Event]:
    """Run a turn; at its first event of type `when`, queue `queued` (as a front end does while
    the turn runs)."""
    events: list[Event] = []
    async for event in agent.run_turn(prompt):
        if isinstance(event, when) and not any(isinstance(e, when) for e in events):
            for text in queued:
                agent.queued.put(text)
        events.append(event)
    return events


async def test_a_prompt_sent_during_a_tool_step_is_read_by_the_next_call(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    server.push(ToolCalls([("read_file", {"path": "a.txt"})]), Text("read it; b.txt too"))
    session, agent = open_agent(server, workspace)
    events = await run_queueing(agent, "read a.txt", ToolCallStarted, "and b.txt, please")
    kinds = [type(e) for e in events if not isinstance(e, TextDelta)]
    assert kinds == [
        UsageReported,
        ToolCallStarted,
        ToolCallFinished,
        PromptDelivered,  # after the tool's result, before the call that reads it
        UsageReported,
        TurnDone,
    ]
    second = server.requests[1].messages
    assert second[-2]["role"] == "tool" and "alpha" in second[-2]["content"]
    assert second[-1] == {"role": "user", "content": "and b.txt, please"}
    delivered = next(e for e in events if isinstance(e, PromptDelivered))
    message = next(m for m in agent.history if m.id == delivered.message_id)
    assert message.role == "user" and message.meta == {"queued": True}
    assert len(agent.queued) == 0
    live = [m.to_record() for m in agent.history]
    session.close()
    _, resumed, _ = Session.resume(session.id)  # journaled like any message
    assert [m.to_record() for m in resumed] == live


async def test_prompts_sent_together_arrive_as_one_message(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(ToolCalls([("list_dir", {})]), Text("ok"))
    _, agent = open_agent(server, workspace)
    await run_queueing(agent, "look", ToolCallStarted, "first thing", "second thing")
    assert server.requests[1].messages[-1] == {
        "role": "user",
        "content": joined(["first thing", "second thing"]),
    }
    assert [m.role for m in agent.history].count("user") == 2


async def test_a_prompt_sent_during_the_last_call_waits_for_the_next_turn(
    server: ScriptedServer, workspace: Path
) -> None:
    """The model answered without tools: no call of this turn is left to read the prompt, so
    it stays queued (the front end sends it as the next turn)."""
    server.push(Text("the answer"))
    _, agent = open_agent(server, workspace)
    events = await run_queueing(agent, "question", TextDelta, "follow-up")
    assert not any(isinstance(e, PromptDelivered) for e in events)
    assert agent.queued.prompts == ("follow-up",)
    assert all("follow-up" not in str(m.content) for m in agent.history)
    assert len(server.requests) == 1


async def test_a_prompt_queued_before_the_turn_is_not_read_by_its_first_call(
    server: ScriptedServer, workspace: Path
) -> None:
    """The turn's own prompt is what its first call answers; a waiting prompt joins at the
    second call (a front end sends waiting prompts with the new one instead)."""
    server.push(ToolCalls([("list_dir", {})]), Text("ok"))
    _, agent = open_agent(server, workspace)
    agent.queued.put("waiting")
    [e async for e in agent.run_turn("go")]
    assert server.requests[0].messages[-1] == {"role": "user", "content": "go"}
    assert server.requests[1].messages[-1] == {"role": "user", "content": "waiting"}


async def test_the_headless_renderers_take_the_new_event(
    server: ScriptedServer, workspace: Path
) -> None:
    """The text and the JSON renderers see a PromptDelivered and go on (no queue headless
    today, but the event stream is one)."""
    server.push(ToolCalls([("list_dir", {})]), Text("done"))
    _, agent = open_agent(server, workspace)
    out, err, stream = io.StringIO(), io.StringIO(), io.StringIO()
    text = TextReport(out, err)
    report = StreamJsonReport(agent, "session", stream, io.StringIO())
    report.start()
    events = await run_queueing(agent, "go", ToolCallStarted, "meanwhile")
    assert any(isinstance(e, PromptDelivered) for e in events)
    for event in events:
        text.event(event)
        report.event(event)
    report.finish(events[-1] if isinstance(events[-1], TurnDone) else None, None)
    assert out.getvalue() == "done"
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "done"


async def test_a_prompt_queued_mid_turn_carries_the_images_it_names(
    server: ScriptedServer, workspace: Path
) -> None:
    """Review finding 7: `@shot.png` in a prompt read between tool steps reaches the model as an
    image, as it does in a prompt sent alone."""
    shot = png(4, 3)
    (workspace / "shot.png").write_bytes(shot)
    server.push(ToolCalls([("list_dir", {})]), Text("I see it"))
    _, agent = open_agent(server, workspace, vision="true")
    events = await run_queueing(agent, "look around", ToolCallStarted, "and look at @shot.png")
    delivered = next(e for e in events if isinstance(e, PromptDelivered))
    assert delivered.images == ("shot.png 4×3",)
    parts = server.requests[1].messages[-1]["content"]
    assert parts[0] == {"type": "text", "text": "and look at @shot.png"}
    (image,) = [part for part in parts if part["type"] == "image_url"]
    url = image["image_url"]["url"]
    assert url == "data:image/png;base64," + base64.b64encode(shot).decode()
