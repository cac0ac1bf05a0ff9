"""Images end to end, headless, against the scripted server: `@shot.png` and read_file send the
image as an OpenAI `image_url` part with the file's exact base64; a model without vision gets a
note instead; a fold archives the image as a file the chunk links to and stops sending it; the
session's own copy outlives the original."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.conversation.fork import fork_session
from agent.events import CompactionDone, TurnDone
from agent.images.prompt import attach_images
from agent.permissions.policy import approve_all
from sessions.store import Session
from tests.support import images
from tests.support.anthropic_server import AnthropicServer
from tests.support.anthropic_server import Reply as AnthropicReply
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (pleat's headless runs, folds): left out of the fast set.
pytestmark = pytest.mark.slow

# A model litellm knows accepts images, and one it knows does not (both served by the scripted
# server under their bare names, as litellm sends them).
VISION_MODEL, PLAIN_MODEL = "gpt-4o-mini", "gpt-3.5-turbo"
SHOT = images.png(80, 60, seed=7)
# The image part pleat must send for SHOT.
SHOT_PART = {
    "type": "image_url",
    "image_url": {"url": "data:image/png;base64," + base64.b64encode(SHOT).decode()},
}
COMPRESSION_MARK = "[pleat: context compaction"
SUMMARY = Text("<topics>a screenshot</topics><summary>The user showed a red square.</summary>")


def pleat(
    workspace: Path, server: ScriptedServer, *args: str, model: str = VISION_MODEL
) -> subprocess.CompletedProcess[str]:
    done = run_pleat(workspace, server, *args, model=f"openai/{model}")
    assert done.returncode == 0, done.stderr
    return done


def image_parts(request: Any) -> list[dict[str, Any]]:
    """Every image part of a request's messages."""
    return [
        part
        for message in request.messages
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


def texts(request: Any) -> str:
    return json.dumps(request.messages)


def session_dir(pleat_home: Path) -> Path:
    (directory,) = (pleat_home / "sessions").iterdir()
    return directory


def test_an_at_image_reaches_the_model_as_an_image_url_part(
    workspace: Path, pleat_home: Path
) -> None:
    (workspace / "shot.png").write_bytes(SHOT)
    with ScriptedServer(api_key=TEST_API_KEY, models={VISION_MODEL}) as server:
        server.push(Text("a red square"))
        done = pleat(workspace, server, "-p", "what is in @shot.png?")
    assert done.stdout == "a red square\n"
    assert "pleat: attached image: shot.png 80×60\n" in done.stderr
    (request,) = server.requests
    assert request.messages[-1]["content"] == [
        {"type": "text", "text": "what is in @shot.png?"},
        {"type": "text", "text": "[image shot.png 80×60]"},
        SHOT_PART,
    ]
    session = session_dir(pleat_home)
    (copy,) = (session / "images").iterdir()
    assert copy.read_bytes() == SHOT and (copy.stat().st_mode & 0o777) == 0o600
    journal = (session / "journal.jsonl").read_text()
    assert base64.b64encode(SHOT).decode()[:64] not in journal  # a reference, never the bytes
    assert copy.name in journal


def test_read_file_on_an_image_puts_it_in_the_next_request(workspace: Path) -> None:
    (workspace / "chart.png").write_bytes(SHOT)
    with ScriptedServer(api_key=TEST_API_KEY, models={VISION_MODEL}) as server:
        server.push(ToolCalls([("read_file", {"path": "chart.png"})]), Text("a chart"))
        done = pleat(workspace, server, "-p", "look at chart.png")
    assert done.stdout.strip().endswith("a chart")
    first, second = server.requests
    assert image_parts(first) == []
    *_, call, result, carrier = second.messages
    assert call["tool_calls"][0]["function"]["name"] == "read_file"
    assert result["role"] == "tool"
    assert result["content"].startswith("chart.png is a PNG image (80×60, ")
    assert "attached for you to see" in result["content"]
    assert carrier["role"] == "user"
    assert carrier["content"] == [
        {"type": "text", "text": "[pleat: the images read by the tool calls above]"},
        {"type": "text", "text": "[image chart.png 80×60]"},
        SHOT_PART,
    ]


def test_a_model_without_vision_gets_a_note_and_no_image(workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(SHOT)
    with ScriptedServer(api_key=TEST_API_KEY, models={PLAIN_MODEL}) as server:
        server.push(ToolCalls([("read_file", {"path": "shot.png"})]), Text("no idea"))
        done = pleat(workspace, server, "-p", "what is in @shot.png?", model=PLAIN_MODEL)
    assert (
        "pleat: note: the model will not see the images: openai/gpt-3.5-turbo does not accept "
        "images, per litellm's model facts (vision = true overrides)\n"
    ) in done.stderr
    for request in server.requests:
        assert image_parts(request) == []
    first, second = server.requests
    assert first.messages[-1]["content"][-1] == {
        "type": "text",
        "text": "[image shot.png 80×60 (PNG): not shown: openai/gpt-3.5-turbo does not accept "
        "images, per litellm's model facts (vision = true overrides)]",
    }
    assert second.messages[-1]["role"] == "tool"
    assert second.messages[-1]["content"].startswith("shot.png is a PNG image (80×60, ")
    assert (
        "; not shown: openai/gpt-3.5-turbo does not accept images"
        in (second.messages[-1]["content"])
    )


def test_a_model_litellm_does_not_know_needs_the_vision_key(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workspace / "shot.png").write_bytes(SHOT)
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}) as server:
        server.push(Text("unknown"), Text("seen"))
        unknown = run_pleat(workspace, server, "-p", "@shot.png")
        monkeypatch.setenv("PLEAT_VISION", "true")
        told = run_pleat(workspace, server, "-p", "@shot.png")
    assert unknown.returncode == 0 and told.returncode == 0, unknown.stderr + told.stderr
    assert f"litellm does not know whether {TEST_MODEL} accepts images" in unknown.stderr
    assert image_parts(server.requests[0]) == []
    assert image_parts(server.requests[1]) == [SHOT_PART]
    assert "will not see" not in told.stderr


def test_a_folded_image_is_archived_as_a_file_and_not_sent_again(
    workspace: Path, pleat_home: Path
) -> None:
    (workspace / "shot.png").write_bytes(SHOT)

    def model(body: dict[str, Any]) -> Text:
        content = body["messages"][-1].get("content")
        return SUMMARY if COMPRESSION_MARK in json.dumps(content) else Text("noted")

    with ScriptedServer(api_key=TEST_API_KEY, models={VISION_MODEL}, fallback=model) as server:
        pleat(workspace, server, "-p", "what is in @shot.png?")
        pleat(workspace, server, "-p", "and what colour is it?", "--continue")
        folded = pleat(workspace, server, "-p", "/compact", "--continue")
        compression = server.requests[-1]
        pleat(workspace, server, "-p", "what did I show you?", "--continue")
        after = server.requests[-1]
    assert folded.stdout.startswith("folded 1 message into chunk 1")  # the prompt with the image
    # The compression call is the last request plus the instruction: the image is still in it
    # (a cache hit), and the summary carries what it showed.
    assert image_parts(compression) == [SHOT_PART]
    assert image_parts(after) == []
    assert "The user showed a red square." in texts(after)
    chunks = session_dir(pleat_home) / "chunks"
    chunk = (chunks / "chunk-0001.md").read_text()
    (link,) = re.findall(r"!\[shot\.png 80×60\]\((images/[0-9a-f]{64}\.png)\)", chunk)
    assert (chunks / link).read_bytes() == SHOT
    assert "what is in @shot.png?" in chunk


def test_continue_after_the_original_is_deleted(workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(SHOT)
    with ScriptedServer(api_key=TEST_API_KEY, models={VISION_MODEL}) as server:
        server.push(Text("a red square"), Text("still a red square"))
        pleat(workspace, server, "-p", "what is in @shot.png?")
        os.remove(workspace / "shot.png")
        done = pleat(workspace, server, "-p", "look again", "--continue")
    assert done.stdout == "still a red square\n"
    assert image_parts(server.requests[1]) == [SHOT_PART]


async def test_claude_gets_an_image_block_with_its_cache_breakpoint(workspace: Path) -> None:
    """Through litellm to Anthropic's Messages API: the image part becomes a base64 image block,
    and the breakpoint on the last message sits on its last block (litellm ignores one on a
    message whose content is a list)."""
    (workspace / "shot.png").write_bytes(SHOT)
    key = "sk-ant-test-0123456789"
    with AnthropicServer(key, lambda body: AnthropicReply(text="a red square")) as server:
        config = Config(model="claude-sonnet-4-5", api_base=server.base_url, api_key=key)
        session = Session.create(workspace, model=config.model or "")
        agent = build_agent(config, workspace, approve_all, session=session)
        attached = await attach_images("what is in @shot.png?", workspace, agent.attachments)
        events = [event async for event in agent.run_turn("what is in @shot.png?", attached.images)]
        session.close()
    assert attached.notes == ()
    assert isinstance(events[-1], TurnDone) and events[-1].text == "a red square"
    (request,) = server.requests
    (message,) = request.body["messages"]
    assert message["content"] == [
        {"type": "text", "text": "what is in @shot.png?"},
        {"type": "text", "text": "[image shot.png 80×60]"},
        {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": base64.b64encode(SHOT).decode(),
            },
            "cache_control": {"type": "ephemeral"},
        },
    ]


async def test_images_too_big_for_the_window_are_shrunk_and_the_turn_goes_on(
    server: ScriptedServer, workspace: Path
) -> None:
    """Four 1000×1000 images read in one reply need about 5,300 tokens: more than an 8k window
    leaves after the system prompt, the tools and the reply's reserve. Nothing older can fold,
    so the last rung stubs some (their images archived with the chunk) and the turn goes on."""
    pictures = [images.png(1000, 1000, seed=n) for n in range(4)]
    for n, data in enumerate(pictures):
        (workspace / f"p{n}.png").write_bytes(data)

    def model(body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if COMPRESSION_MARK in json.dumps(last.get("content")):
            return SUMMARY
        if last["role"] == "user" and last["content"] == "compare the four pictures":
            return ToolCalls([("read_file", {"path": f"p{n}.png"}) for n in range(4)])
        return Text("they differ in colour")

    server.fallback = model
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=0,
        vision="true",
        compaction=CompactionPolicy(context_window=8_000),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session)
    events = [event async for event in agent.run_turn("compare the four pictures")]
    session.close()
    assert isinstance(events[-1], TurnDone) and events[-1].text == "they differ in colour"
    shrinks = [e for e in events if isinstance(e, CompactionDone) and e.method == "shrink"]
    assert len(shrinks) == 1 and shrinks[0].shrunk_messages >= 1
    # What the last request sent (all but the final reply) fits by pleat's own count (the
    # scripted server counts base64 characters, not pixels as providers do).
    assert agent.compactor is not None
    sent = agent.compactor.tokens.local_estimate(agent.history[:-1])
    assert sent <= agent.compactor.budget.usable
    last = server.requests[-1]
    assert len(image_parts(last)) == 4 - shrinks[0].shrunk_messages
    assert texts(last).count("[pleat: this read_file output") == shrinks[0].shrunk_messages
    assert texts(last).count("[pleat: the image attached here (p") == shrinks[0].shrunk_messages
    originals = session.archive.read_parts(shrinks[0].chunk)[1]
    assert [len(m.images) for m in originals] == [1] * shrinks[0].shrunk_messages
    for message in originals:
        copy = session.archive.directory / "images" / message.images[0].file
        assert copy.read_bytes() in pictures


async def test_a_fork_takes_the_images_along(server: ScriptedServer, workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(SHOT)

    def model(body: dict[str, Any]) -> Text:
        last = json.dumps(body["messages"][-1].get("content"))
        return SUMMARY if COMPRESSION_MARK in last else Text("noted")

    server.fallback = model
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, vision="true")
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session)
    attached = await attach_images("@shot.png what is it?", workspace, agent.attachments)
    (image,) = attached.images
    _ = [e async for e in agent.run_turn("@shot.png what is it?", attached.images)]
    _ = [e async for e in agent.run_turn("and its colour?")]
    child, _, note = await fork_session(agent, session)
    session.close()
    child.close()
    assert note.startswith("forked after folding 1 messages into chunk 1")
    assert child.images.read(image) == SHOT  # the session's copy, for a tail that cites it
    assert (child.archive.directory / "images" / image.file).read_bytes() == SHOT
    assert child.archive.read_messages(1)[0].images == (image,)
