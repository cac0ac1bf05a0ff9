"""The ACP tests' shared `pleat acp` (tests/e2e/acp/shared.py): one per pytest worker, on the
worker's session-wide event loop; a test takes it with the `acp` fixture and
`pytest.mark.asyncio(loop_scope="session")`."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.e2e.acp.shared import AcpLease, SharedAcp
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_acp(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedAcp]:
    """The process, its scripted server and its PLEAT_HOME, for the whole worker."""
    home = tmp_path_factory.mktemp("acp-shared") / "pleat-home"
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}) as server:
        shared = SharedAcp(server, home, tmp_path_factory.getbasetemp())
        try:
            yield shared
        finally:
            await shared.close()


@pytest_asyncio.fixture(loop_scope="session")
async def acp(shared_acp: SharedAcp) -> AsyncIterator[AcpLease]:
    """This test's share of the shared process: a fresh editor, its own sessions; at its end
    its prompts are stopped and its scripted replies must all have been used."""
    lease = await shared_acp.lease()
    yield lease
    await shared_acp.release(lease)
