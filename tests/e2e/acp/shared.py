"""One `pleat acp` process shared by the ACP tests that need none of their own, one per pytest
worker (tests/e2e/acp/conftest.py): litellm's import is paid once, not per test. Each test opens
its own sessions (session/new in its own workspace) on the shared connection, with an editor of
its own, and leaves nothing behind: its running prompts are cancelled and waited for, and the
scripted replies it pushed must all have been asked for."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from acp.client.connection import ClientSideConnection

from tests.e2e.acp.client import EXCHANGE_TIMEOUT, EditorClient, acp_args, connected
from tests.support.pleat_process import process_environment
from tests.support.scripted_server import ReceivedRequest, ScriptedServer


class EditorRouter:
    """The shared connection's editor: hands every call to the editor of the test running now.
    A question about a session that test did not open (none should come: a test's prompts end
    with it) is answered "cancelled" and takes none of its answers."""

    def __init__(self) -> None:
        self.current = EditorClient()
        self.sessions: set[str] = set()  # the sessions the current test opened or prompted

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        editor = self.current if session_id in self.sessions else EditorClient()
        return await editor.request_permission(options, session_id, tool_call, **kwargs)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        await self.current.session_update(session_id, update, **kwargs)

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        return await self.current.read_text_file(path, session_id, **kwargs)

    async def write_text_file(self, content: str, path: str, session_id: str, **kwargs: Any) -> Any:
        return await self.current.write_text_file(content, path, session_id, **kwargs)


class ScopedConnection:
    """The shared connection as one test uses it (every method of the SDK's connection): the
    sessions it opens or prompts are its own, and its prompts run on, shielded from the test's
    timeouts, until `stop` ends them."""

    def __init__(self, conn: ClientSideConnection, sessions: set[str]) -> None:
        self._conn = conn
        self.sessions = sessions
        self.prompts: list[asyncio.Future[Any]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    async def new_session(self, **kwargs: Any) -> Any:
        session = await self._conn.new_session(**kwargs)
        self.sessions.add(session.session_id)
        return session

    async def load_session(self, **kwargs: Any) -> Any:
        self.sessions.add(kwargs["session_id"])  # its replay comes before the answer
        return await self._conn.load_session(**kwargs)

    async def prompt(self, **kwargs: Any) -> Any:
        self.sessions.add(kwargs["session_id"])
        running = asyncio.ensure_future(self._conn.prompt(**kwargs))
        self.prompts.append(running)
        return await asyncio.shield(running)

    async def stop(self) -> None:
        """The test ended: its prompts still running are cancelled (session/cancel), and waited
        for until pleat answers them (their turns over: nothing more asks the server)."""
        running = [p for p in self.prompts if not p.done()]
        if running:
            for session_id in self.sessions:
                await self._conn.cancel(session_id=session_id)
            await asyncio.wait(running, timeout=EXCHANGE_TIMEOUT)
        for prompt in self.prompts:  # retrieved: a failed one was the test's to report
            if prompt.done() and not prompt.cancelled():
                prompt.exception()


class AcpLease:
    """One test's share of the shared process: its connection, its editor, the scripted server
    and the requests the server got during this test."""

    def __init__(self, conn: ScopedConnection, editor: EditorClient, server: ScriptedServer):
        self.conn = conn
        self.editor = editor
        self.server = server
        self.first_request = len(server.requests)

    @property
    def requests(self) -> list[ReceivedRequest]:
        return self.server.requests[self.first_request :]


class SharedAcp:
    """`pleat acp` against `server`, its home `home`, started on first use and again if it has
    died (a test that broke it fails alone, not every test after it)."""

    def __init__(self, server: ScriptedServer, home: Path, ceiling: Path) -> None:
        self.server = server
        self.home = home
        self.router = EditorRouter()
        self.env = shared_environment(home, ceiling)
        self._stack: contextlib.AsyncExitStack | None = None
        self._conn: ClientSideConnection | None = None
        self._process: Any = None

    async def connection(self) -> ClientSideConnection:
        """The connection, initialized; a new process when there is none alive."""
        if self._conn is not None and self._process.returncode is None:
            return self._conn
        await self.close()
        log = self.home / "acp-stderr.log"
        async with contextlib.AsyncExitStack() as stack:  # a failed start leaves no process
            conn, self._process = await stack.enter_async_context(
                connected(self.router, acp_args(self.server), self.env, log)
            )
            self._stack = stack.pop_all()
        self._conn = conn
        return conn

    async def lease(self) -> AcpLease:
        """A test's share: a fresh editor (no answers, no updates), its own sessions."""
        conn = await self.connection()
        self.router.current = EditorClient()
        self.router.sessions = set()
        scoped = ScopedConnection(conn, self.router.sessions)
        return AcpLease(scoped, self.router.current, self.server)

    async def release(self, lease: AcpLease) -> None:
        """The test ended: its prompts stopped, and the replies it pushed all asked for (one left
        over would answer the next test's request)."""
        if lease.editor.hold is not None:
            lease.editor.hold.set()  # an answer held back: given now (no answer: cancelled)
        await lease.conn.stop()
        self.router.current, self.router.sessions = EditorClient(), set()
        left = list(self.server.script)
        self.server.script.clear()
        assert not left, f"the test left {len(left)} scripted replies nobody asked for: {left}"

    async def close(self) -> None:
        stack, self._stack, self._conn, self._process = self._stack, None, None, None
        if stack is not None:
            await stack.aclose()


def shared_environment(home: Path, ceiling: Path) -> dict[str, str]:
    """The shared process's environment, what tests/conftest.py's pleat_home gives a test's own
    process: no PLEAT_* settings or provider keys from the developer's shell, its own PLEAT_HOME
    and Claude Code settings, no model discovery; and git finds no repository above the tests'
    temporary directory (a test's workspace decides it alone)."""
    own = {
        "PLEAT_HOME": str(home),
        "PLEAT_LOCAL_MODEL_SERVERS": "",
        "CLAUDE_CONFIG_DIR": str(home.parent / "claude-home"),
        "GIT_CEILING_DIRECTORIES": str(ceiling),
    }
    inherited = process_environment().items()
    return {k: v for k, v in inherited if not k.startswith("PLEAT_")} | own
