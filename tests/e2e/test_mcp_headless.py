"""MCP servers in `pleat -p`: a real stdio server written with the `mcp` package, called by the
scripted model through pleat's headless runs (in process); a broken one beside it; /mcp; rules;
.mcp.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.mcp.project_file import approve, read_project_servers
from tests.support.mcp_support import (
    BROKEN_TABLE,
    echo_entry,
    echo_table,
    http_mcp_server,
    write_config,
    write_project_file,
)
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

pytestmark = pytest.mark.slow


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def tool_names(server: ScriptedServer, request: int) -> list[str]:
    return [tool["function"]["name"] for tool in server.requests[request].body.get("tools", [])]


def test_the_model_calls_an_mcp_tool_and_a_broken_server_is_reported(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table() + BROKEN_TABLE)
    server.push(ToolCalls([("mcp__echo__echo", {"text": "hello"})]), Text("it said hello"))
    done = run_pleat(workspace, server, "-p", "use the echo tool")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "it said hello"
    assert tool_results(server, 1) == ["echo: hello"]
    names = tool_names(server, 0)
    assert [n for n in names if n.startswith("mcp__")] == [
        "mcp__echo__big",
        "mcp__echo__boom",
        "mcp__echo__echo",
        "mcp__echo__grow",
        "mcp__echo__nap",
        "mcp__echo__quit",
        "mcp__echo__shot",
    ]
    assert names.index("mcp__echo__big") > names.index("read_file")  # after pleat's own
    assert tool_names(server, 1) == names  # the same list on every request: the cache holds
    echo = next(
        t for t in server.requests[0].body["tools"] if t["function"]["name"].endswith("echo")
    )
    assert echo["function"]["parameters"]["properties"]["text"]["type"] == "string"
    assert echo["function"]["description"] == "Say the text back."
    failed = [line for line in done.stderr.splitlines() if "broken" in line]
    assert failed == [
        "pleat: MCP server broken failed: exited during start-up "
        "(stderr: broken: cannot start, no database)"
    ], done.stderr
    assert "this line goes to stderr" not in done.stderr  # the server's stderr is captured


def test_slash_mcp_lists_both_servers(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table() + BROKEN_TABLE)
    done = run_pleat(workspace, server, "-p", "/mcp")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "MCP servers (2):" in out
    assert "broken · failed: exited during start-up" in out
    assert "echo · running · echo" in out
    assert "tools (7): mcp__echo__big, mcp__echo__boom, mcp__echo__echo, mcp__echo__grow" in out
    assert "broken: cannot start, no database" in out  # its stderr, kept for /mcp
    assert not server.requests  # no model call


def test_a_tool_error_and_a_big_result_come_back_bounded(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table())
    server.push(
        ToolCalls([("mcp__echo__boom", {}), ("mcp__echo__big", {"lines": 40_000})]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "go", "--compaction", "context_window=16000")
    assert done.returncode == 0, done.stderr
    boom, big = tool_results(server, 1)
    assert "the boom tool always fails" in boom
    assert len(big) < 20_000  # cut to its share of a 16k-token window (1.2 MB were sent)
    assert big.startswith("line 000001 of the big result")
    assert "read_archive" in big  # the whole result is kept and can be paged


def test_a_permission_rule_allows_an_mcp_tool_and_others_are_refused(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table())
    server.push(
        ToolCalls([("mcp__echo__echo", {"text": "ok"}), ("mcp__echo__boom", {})]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "go", "--allow", "mcp__echo__echo", yes=False)
    assert done.returncode == 0, done.stderr
    echo, boom = tool_results(server, 1)
    assert echo == "echo: ok"
    assert boom.startswith("refused: the user did not approve mcp__echo__boom")


def test_a_server_rule_allows_every_tool_of_the_server(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table())
    server.push(
        ToolCalls([("mcp__echo__echo", {"text": "ok"}), ("mcp__echo__boom", {})]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "go", "--allow", "mcp__echo", "--deny",
                     "mcp__echo__boom", yes=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    echo, boom = tool_results(server, 1)
    assert echo == "echo: ok"
    assert boom.startswith('refused: mcp__echo__boom is denied by the rule "mcp__echo__boom"')


def test_a_project_mcp_json_is_skipped_headless_without_yes(
    server: ScriptedServer, workspace: Path
) -> None:
    write_project_file(workspace, {"proj": echo_entry()})
    server.push(Text("no tools"))
    done = run_pleat(workspace, server, "-p", "hi", yes=False)
    assert done.returncode == 0, done.stderr
    assert not [n for n in tool_names(server, 0) if n.startswith("mcp__")]
    assert (
        "pleat: .mcp.json in this workspace names MCP servers (proj), not started: approve the "
        "file in pleat's terminal UI (it asks at start), or pass --yes"
    ) in done.stderr.splitlines()


def test_a_project_mcp_json_is_used_with_yes(server: ScriptedServer, workspace: Path) -> None:
    write_project_file(workspace, {"proj": echo_entry()})
    server.push(ToolCalls([("mcp__proj__echo", {"text": "from the project"})]), Text("done"))
    done = run_pleat(workspace, server, "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert tool_results(server, 1) == ["echo: from the project"]


def test_an_image_result_is_attached_for_the_model(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, "vision = true\n" + echo_table())
    server.push(ToolCalls([("mcp__echo__shot", {})]), Text("a tiny picture"))
    done = run_pleat(workspace, server, "-p", "look")
    assert done.returncode == 0, done.stderr
    (text,) = tool_results(server, 1)
    assert "PNG 4×3, attached" in text
    after = server.requests[1].messages[-1]
    assert after["role"] == "user"
    parts = [p for p in after["content"] if p.get("type") == "image_url"]
    assert parts and parts[0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_a_call_past_its_time_limit_is_the_tools_error(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table(tool_timeout_sec="1"))
    server.push(ToolCalls([("mcp__echo__nap", {"seconds": 30})]), Text("gave up"))
    done = run_pleat(workspace, server, "-p", "wait")
    assert done.returncode == 0, done.stderr
    (text,) = tool_results(server, 1)
    assert text == (
        "the MCP server echo did not answer within 1 s (its tool_timeout_sec); "
        "the call was cancelled"
    )


def test_a_server_that_dies_mid_call_is_an_error_result_and_reported(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table())
    server.push(
        ToolCalls([("mcp__echo__quit", {})]),
        ToolCalls([("mcp__echo__echo", {"text": "still there?"})]),
        Text("it died"),
    )
    done = run_pleat(workspace, server, "-p", "quit it")
    assert done.returncode == 0, done.stderr
    (died,) = tool_results(server, 1)
    assert died == (
        "the MCP server echo went away during the call (its process exited, or the connection "
        "dropped); /mcp shows its state"
    )
    assert tool_results(server, 2)[-1] == (
        "the MCP server echo failed: exited (stderr: echo server: starting (this line goes to "
        "stderr)); its tools cannot be called (/mcp shows its state)"
    )
    assert "pleat: MCP server echo failed: exited" in done.stderr


def test_json_output_lists_the_mcp_tools(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table())
    server.push(Text("hi"))
    done = run_pleat(workspace, server, "-p", "hi", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert "mcp__echo__echo" in init["tools"]


def test_a_streamable_http_server_gets_its_headers(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    with http_mcp_server() as url:
        write_config(
            pleat_home,
            f'[mcp_servers.web]\nurl = "{url}"\nheaders = {{ X-Team = "${{TEAM_NAME}}" }}\n',
        )
        server.push(ToolCalls([("mcp__web__whoami", {})]), Text("blue it is"))
        done = run_pleat(workspace, server, "-p", "who", env={"TEAM_NAME": "blue"})
    assert done.returncode == 0, done.stderr
    assert tool_results(server, 1) == ["team: blue"]


def test_a_project_mcp_json_approved_in_the_tui_is_used_headless(
    server: ScriptedServer, workspace: Path
) -> None:
    write_project_file(workspace, {"proj": echo_entry()})
    project = read_project_servers(workspace)
    assert project is not None
    approve(workspace, project)  # what the TUI's question does on "Use them"
    server.push(ToolCalls([("mcp__proj__echo", {"text": "approved"})]), Text("done"))
    done = run_pleat(workspace, server, "-p", "hi", "--allow", "mcp__proj", yes=False)
    assert done.returncode == 0, done.stderr
    assert tool_results(server, 1) == ["echo: approved"]
    assert "not started" not in done.stderr


def test_a_project_mcp_json_never_gets_a_secret_from_the_environment_config_toml_does(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    token = "team-token-0123456789"
    with http_mcp_server() as url:
        write_config(
            pleat_home,
            f'[mcp_servers.mine]\nurl = "{url}"\nheaders = {{ X-Team = "${{TEAM_TOKEN}}" }}\n',
        )
        write_project_file(
            workspace,
            {
                "proj": {"type": "http", "url": url, "headers": {"X-Team": "${TEAM_TOKEN:-none}"}},
                "strict": {"type": "http", "url": url, "headers": {"X-Team": "${TEAM_TOKEN}"}},
            },
        )
        server.push(ToolCalls([("mcp__mine__whoami", {}), ("mcp__proj__whoami", {})]), Text("done"))
        done = run_pleat(workspace, server, "-p", "who", env={"TEAM_TOKEN": token})
        listing = run_pleat(workspace, server, "-p", "/mcp", env={"TEAM_TOKEN": token})
    assert done.returncode == 0, done.stderr
    assert tool_results(server, 1) == [f"team: {token}", "team: none"]
    why = (
        "not taken from your environment: a project's .mcp.json may not read variables that "
        "name or hold secrets (configure the server in config.toml to pass them)"
    )
    lines = done.stderr.splitlines()
    assert f"pleat: note: MCP server proj: ${{TEAM_TOKEN}} {why}" in lines
    assert f"pleat: note: MCP server strict: ${{TEAM_TOKEN}} {why}" in lines
    assert (
        f"pleat: MCP server strict failed: MCP server 'strict' uses ${{TEAM_TOKEN}}, {why}" in lines
    )
    assert token not in done.stderr + done.stdout
    shown = listing.stdout.split("\nproj · ")[1].splitlines()
    assert shown[1:3] == [
        "  from .mcp.json; runs over HTTP (nothing runs here)",
        f"  ${{TEAM_TOKEN}} {why}",
    ]


def test_a_project_server_inherits_no_variable_the_project_rule_calls_a_secret(
    server: ScriptedServer, workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    # In the workspace: both servers run in the sandbox (the default), which writes nowhere else.
    seen = {name: workspace / f"{name}.json" for name in ("mine", "proj")}
    write_config(pleat_home, echo_table("mine", env=f'{{ ECHO_ENV_FILE = "{seen["mine"]}" }}'))
    write_project_file(
        workspace, {"proj": {**echo_entry(), "env": {"ECHO_ENV_FILE": str(seen["proj"])}}}
    )
    secrets = {
        "DB_PASS": "hunter2hunter2",  # PASS, AUTH, COOKIE: not what commands lose, but a
        "BASIC_AUTH": "user:s3cretpassw0rd",  # project's file may not read them
        "SESSION_COOKIE": "sid=abcdef123456",
        "DB_URL": "postgres://u:hunter2hunter2@db/x",  # holds one under another name
    }
    server.push(Text("done"))
    done = run_pleat(workspace, server, "-p", "hi", env={**secrets, "PLAIN": "kept"})
    assert done.returncode == 0, done.stderr
    project = json.loads(seen["proj"].read_text())
    assert not set(secrets) & set(project)
    assert project["PLAIN"] == "kept" and "PATH" in project
    mine = json.loads(seen["mine"].read_text())  # a server the user configured: as commands get
    assert {name: mine.get(name) for name in secrets} == secrets


def test_an_agent_definition_naming_mcp_tools_gives_them_to_its_subagent(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, echo_table() + echo_table("docs"))
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "searcher.md").write_text(
        "---\ndescription: searches with echo\ntools: Read, mcp__echo__echo, mcp__docs\n---\n"
        "You search.\n"
    )
    task = {"description": "search", "prompt": "find it", "subagent_type": "searcher"}
    server.push(
        ToolCalls([("task", task)]),
        ToolCalls([("mcp__echo__echo", {"text": "from the sub-agent"})]),
        Text("the sub-agent found it"),
        Text("parent done"),
    )
    done = run_pleat(workspace, server, "-p", "go")
    assert done.returncode == 0, done.stderr
    assert "no tool named" not in done.stderr  # no note: every tool it names is known
    sub_tools = tool_names(server, 1)
    mcp = [name for name in sub_tools if name.startswith("mcp__")]
    assert mcp == [
        "mcp__docs__big",
        "mcp__docs__boom",
        "mcp__docs__echo",
        "mcp__docs__grow",
        "mcp__docs__nap",
        "mcp__docs__quit",
        "mcp__docs__shot",
        "mcp__echo__echo",
    ]
    assert set(sub_tools) - set(mcp) == {"read_file"}
    assert tool_results(server, 2) == ["echo: from the sub-agent"]
    assert done.stdout.strip() == "parent done"
