"""web_search with the provider's own search: a Claude session against the scripted Anthropic
server (real litellm, real socket) asks before searching, sends one search call with Anthropic's
server tool, gets back its `web_search_tool_result` blocks and cited text as bounded, cited
results, and stops at the session's cap."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agent.assemble import build_agent
from agent.config import Config
from agent.events import ToolCallFinished
from agent.permissions.policy import ApprovalRequest, Decision
from sessions.store import Session
from tests.support.anthropic_server import AnthropicServer, Reply
from tools.web_search_settings import WebSearchSettings

KEY = "sk-ant-test-0123456789"
MODEL = "claude-sonnet-4-5"  # bare: litellm resolves it to Anthropic
RELEASE = "https://docs.example.com/release"
CITED = "Pleat 2.0 was released on April 1."
# Anthropic's reply to a search call: its server tool's use and result, then text citing a page.
SEARCH = Reply(
    blocks=[
        {
            "type": "server_tool_use",
            "id": "srvtoolu_01",
            "name": "web_search",
            "input": {"query": "pleat release"},
        },
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srvtoolu_01",
            "content": [
                {
                    "type": "web_search_result",
                    "title": "Pleat 2.0 released",
                    "url": RELEASE,
                    "encrypted_content": "EqoB...",
                    "page_age": "April 1, 2025",
                },
                {
                    "type": "web_search_result",
                    "title": "Evil\x1b]0;pwned\x07",
                    "url": "javascript:alert(1)",
                    "encrypted_content": "x",
                },
                {
                    "type": "web_search_result",
                    "title": "Changelog",
                    "url": "https://example.org/changelog",
                    "encrypted_content": "y",
                },
            ],
        },
        {
            "type": "text",
            "text": "Pleat 2.0 came out in April.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "url": RELEASE,
                    "title": "Pleat 2.0 released",
                    "encrypted_index": "Eo8B...",
                    "cited_text": CITED,
                }
            ],
        },
    ]
)


async def test_a_claude_session_searches_with_anthropics_server_tool_asked_cited_and_capped(
    workspace: Path,
) -> None:
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision(True)

    script = [
        Reply(tool_uses=[("web_search", {"query": "pleat release"})]),
        SEARCH,
        Reply(tool_uses=[("web_search", {"query": "pleat 2.1"})]),
        Reply(text="Pleat 2.0 came out in April ([release](https://docs.example.com/release))."),
    ]
    with AnthropicServer(KEY, lambda body: Reply(text="unexpected")) as server:
        server.script.extend(script)
        settings = Config(
            model=MODEL,
            api_base=server.base_url,
            api_key=KEY,
            max_retries=0,
            web_search=WebSearchSettings(per_session_cap=1),
        )
        session = Session.create(workspace, model=MODEL)
        agent = build_agent(settings, workspace, approve, session=session)
        agent.llm.settings = dataclasses.replace(agent.llm.settings, retry_base_delay=0.001)
        events = [event async for event in agent.run_turn("When did pleat 2.0 come out?")]
        session.close()
    assert agent.usage.calls == 4  # three of the turn's, and the search's: the cap counts it

    # Asked in ask mode, each time, naming Anthropic's search and the query.
    assert [request.tool for request in asked] == ["web_search", "web_search"]
    assert "send the query 'pleat release' to Anthropic's web search" in asked[0].preview
    # One search call: not streamed, Anthropic's server tool with one use, the query in it.
    search = server.requests[1].body
    assert not search.get("stream")
    assert {"type": "web_search_20250305", "name": "web_search", "max_uses": 1} in search["tools"]
    assert "pleat release" in search["messages"][0]["content"][0]["text"]
    assert len(server.requests) == 4  # the capped second search never reached the server
    results = [event for event in events if isinstance(event, ToolCallFinished)]
    found, capped = results
    assert not found.is_error
    assert f"1. Pleat 2.0 released\n   {RELEASE}\n   {CITED}" in found.text
    assert "2. Changelog\n   https://example.org/changelog" in found.text
    assert "Pleat 2.0 came out in April." in found.text  # the provider's answer
    assert "Cite the URLs" in found.text and "javascript" not in found.text
    assert "\x1b" not in found.text and "Evil" not in found.text
    assert capped.is_error and "cap of 1 searches" in capped.text
    final = server.requests[3].body["messages"]
    assert any(RELEASE in str(message["content"]) for message in final)
