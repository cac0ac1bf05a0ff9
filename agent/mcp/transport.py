"""How pleat reaches one MCP server: a program on its stdin and stdout, or a streamable HTTP URL."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from agent.mcp.settings import ServerSettings
from agent.mcp.stderr_tail import StderrTail
from tools.sandbox.policy import Sandbox
from tools.shell import command_environment


def server_environment(settings: ServerSettings) -> dict[str, str]:
    """What a stdio server runs with: the user's environment without secrets, as commands get
    it (tools/shell.py), for a project's server without anything the wider project rule calls a
    secret either (ServerSettings.inherited: a `.mcp.json` reads none, not even by inheriting
    it), plus the variables its settings name, which may be keys meant for it."""
    return settings.inherited(command_environment()) | dict(settings.env)


def confining(settings: ServerSettings, sandbox: Sandbox | None) -> Sandbox | None:
    """The sandbox a stdio server runs in: the run's, when it is active and the server's settings
    opt in (`sandbox = true`); None: it runs as the user."""
    if sandbox is None or not sandbox.active or not settings.sandboxed:
        return None
    return sandbox


async def open_transport(
    stack: AsyncExitStack,
    settings: ServerSettings,
    workspace: Path,
    stderr: StderrTail,
    sandbox: Sandbox | None = None,
) -> Any:
    """The SDK's (read, write) streams to the server (already `${VAR}`-expanded settings),
    entered on `stack`, which closes them: a program started in `cwd` (relative to the
    workspace, which is the default), in `sandbox` (confining()), with its stderr going to
    `stderr`, or an HTTP connection sending the settings' headers. Raises OSError when the
    program cannot be started."""
    if settings.command is not None:
        from mcp import StdioServerParameters, stdio_client

        argv, env = [settings.command, *settings.args], server_environment(settings)
        confined = confining(settings, sandbox)
        if confined is not None:  # confined before the server's program runs
            argv, env = confined.argv(argv, ends_with_it=False), confined.environment(env)
        parameters = StdioServerParameters(
            command=argv[0],
            args=argv[1:],
            env=env,
            cwd=workspace / settings.cwd if settings.cwd else workspace,
        )
        errlog = await stderr.open()
        try:
            return await stack.enter_async_context(stdio_client(parameters, errlog=errlog))
        finally:
            errlog.close()  # the process has its own copy of the pipe's write end
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    assert settings.url is not None
    http = await stack.enter_async_context(create_mcp_http_client(dict(settings.headers)))
    return await stack.enter_async_context(streamable_http_client(settings.url, http_client=http))
