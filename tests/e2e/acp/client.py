"""The editor's side in the ACP tests: the SDK's own client connection to a real `pleat acp`
process (spawn_agent_process, real pipes), recording every update and answering permission
requests and file requests as a script says."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from acp import RequestError, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import PLEAT, process_environment
from tests.support.scripted_server import ScriptedServer

# Seconds any one exchange with pleat may take before a test gives up (a hang, not a speed
# goal: import litellm alone takes about 4 s, a busy machine many times that).
EXCHANGE_TIMEOUT = 120.0


class EditorClient:
    """An editor: keeps the updates per session, answers request_permission with the next
    option id of `answers` (None: cancelled), and serves fs requests from `buffers` (its
    unsaved buffers; a write lands there, never on disk)."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permission_requests: list[Any] = []
        self.answers: list[str | None] = []
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.changed = asyncio.Event()
        self.hold: asyncio.Event | None = None  # set: permission answers wait for it

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **_: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append((tool_call, options))
        self.changed.set()
        if self.hold is not None:  # the user has not answered yet
            await self.hold.wait()
        answer = self.answers.pop(0) if self.answers else None
        if answer == "error":  # an editor that answers with an error
            raise RequestError.method_not_found("session/request_permission")
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        self.changed.set()

    async def read_text_file(self, path: str, session_id: str, **_: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        try:
            return ReadTextFileResponse(content=await asyncio.to_thread(Path(path).read_text))
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None

    async def write_text_file(
        self, content: str, path: str, session_id: str, **_: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    def of(self, session_id: str, kind: str) -> list[Any]:
        """The updates of `kind` to the session, in order."""
        return [u for s, u in self.updates if s == session_id and u.session_update == kind]

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u.session_update for s, u in self.updates if session_id in (None, s)]

    def text(self, session_id: str | None = None) -> str:
        return "".join(
            u.content.text
            for s, u in self.updates
            if session_id in (None, s) and u.session_update == "agent_message_chunk"
        )

    async def wait_for(self, done: Callable[[], bool], what: str) -> None:
        async def waiting() -> None:
            while not done():
                self.changed.clear()
                await self.changed.wait()

        try:
            await asyncio.wait_for(waiting(), EXCHANGE_TIMEOUT)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}") from None


def acp_args(server: ScriptedServer, *flags: str) -> tuple[str, ...]:
    """`pleat acp`'s arguments against the scripted server, then `flags`."""
    model = ("--model", TEST_MODEL, "--api-base", server.base_url, "--api-key", TEST_API_KEY)
    return ("acp", *model, *flags)


def acp_env(home: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    return process_environment({"PLEAT_HOME": str(home), **(env or {})})


@contextlib.asynccontextmanager
async def connected(
    client: Any, args: tuple[str, ...], env: dict[str, str], log: Path, *, fs: bool = False
) -> AsyncIterator[tuple[ClientSideConnection, Any]]:
    """`pleat ARGS` as a process with exactly `env`, its stderr appended to `log` (read by a
    failing test; a pipe nobody reads could fill up), `client` its editor, initialized (with the
    client's fs offered when `fs`)."""
    await asyncio.to_thread(log.parent.mkdir, parents=True, exist_ok=True)
    with log.open("ab") as stderr:
        async with spawn_agent_process(
            client, *PLEAT, *args, env=env, transport_kwargs={"stderr": stderr}
        ) as (conn, process):
            capabilities = ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs)
            )
            await asyncio.wait_for(
                conn.initialize(protocol_version=1, client_capabilities=capabilities),
                EXCHANGE_TIMEOUT,
            )
            yield conn, process


@contextlib.asynccontextmanager
async def pleat_acp(
    server: ScriptedServer,
    home: Path,
    *flags: str,
    client: EditorClient | None = None,
    fs: bool = False,
    env: dict[str, str] | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, EditorClient, Any]]:
    """`pleat acp` of its own against the scripted server, initialized (with the client's fs
    offered when `fs`): for a test about the process, its flags, environment or connection;
    the others share one (tests/e2e/acp/shared.py)."""
    editor = client or EditorClient()
    args = acp_args(server, *flags)
    log = home / "acp-stderr.log"
    async with connected(editor, args, acp_env(home, env), log, fs=fs) as (conn, process):
        yield conn, editor, process
