"""Fault matrix, tool rows: huge command output, an unreadable file, a file that vanishes."""

from __future__ import annotations

import asyncio
import ctypes
import os
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from agent.events import ToolCallFinished, TurnDone
from tests.support.faults_harness import assert_survives, open_agent, turn
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# The output of the huge-output row: 5 MB, a hundred times what the tool keeps.
HUGE_BYTES = 5_000_000
# Linux capabilities (linux/capability.h): the API version of capget/capset with two 32-bit
# words per set, and the two that let root ignore file modes when reading.
LINUX_CAPABILITY_VERSION_3 = 0x20080522
CAP_DAC_OVERRIDE = 1
CAP_DAC_READ_SEARCH = 2
# Seconds the thread of the permission row may take (it normally needs well under one).
THREAD_JOIN_SECONDS = 60


@pytest.mark.slow  # seconds of output or retries: the whole suite runs it
async def test_huge_command_output_is_capped_with_its_exit_code(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = open_agent(server, workspace)
    command = f"head -c {HUGE_BYTES} /dev/zero | tr '\\0' x; exit 3"
    server.push(ToolCalls([("run_command", {"command": command})]), Text("it failed with 3"))
    events = await turn(agent, "run it")
    result = next(e for e in events if isinstance(e, ToolCallFinished))
    assert result.is_error and result.meta["exit_code"] == 3
    assert result.meta["output_bytes"] == HUGE_BYTES
    assert result.text.endswith("exit code: 3")
    assert "were cut to fit the context" in result.text
    assert agent.tool_context().budget.fits(result.text)
    # The whole output is kept for paging: nothing was lost.
    assert session.outputs.read(result.meta["kept_output"]) == "x" * HUGE_BYTES + "\nexit code: 3"
    assert server.requests[1].messages[-1]["content"] == result.text  # what the model read
    assert isinstance(events[-1], TurnDone) and events[-1].text == "it failed with 3"
    await assert_survives(server, session, agent)


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


def drop_file_mode_override() -> None:
    """Make this thread (and the threads it starts) obey file modes even as root: clear
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from its effective set. Capabilities are per
    thread on Linux, so the rest of the test process keeps them."""
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)  # pid 0: the calling thread
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    data[0].effective &= ~((1 << CAP_DAC_OVERRIDE) | (1 << CAP_DAC_READ_SEARCH))
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def run_without_file_mode_override(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run an async scenario on its own event loop in a thread that truly cannot read a file
    whose mode forbids it (tests here run as root, and root reads mode-000 files)."""
    failure: list[BaseException] = []

    def body() -> None:
        try:
            if os.geteuid() == 0:
                drop_file_mode_override()
            asyncio.run(scenario())
        except BaseException as error:
            failure.append(error)

    thread = threading.Thread(target=body, name="no-dac-override")
    thread.start()
    thread.join(THREAD_JOIN_SECONDS)
    assert not thread.is_alive(), "the scenario hung"
    if failure and isinstance(failure[0], OSError) and "capset" in str(failure[0]):
        pytest.skip(f"cannot drop capabilities here: {failure[0]}")
    if failure:
        raise failure[0]


def test_unreadable_file_is_a_clear_tool_error(server: ScriptedServer, workspace: Path) -> None:
    secret = workspace / "secret.txt"
    secret.write_text("you may not read this\n")
    secret.chmod(0o000)

    async def scenario() -> None:
        with pytest.raises(PermissionError):
            secret.open().close()  # the premise: this thread really cannot read it
        session, agent = open_agent(server, workspace)
        server.push(ToolCalls([("read_file", {"path": "secret.txt"})]), Text("it is locked"))
        events = await turn(agent, "read secret.txt")
        result = next(e for e in events if isinstance(e, ToolCallFinished))
        assert result.is_error and result.text == "cannot read secret.txt: permission denied"
        assert isinstance(events[-1], TurnDone) and events[-1].text == "it is locked"
        await assert_survives(server, session, agent)

    run_without_file_mode_override(scenario)


async def test_file_deleted_between_listing_and_reading(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "soon-gone.txt").write_text("here for now\n")
    session, agent = open_agent(server, workspace)

    def delete_then_read(body: dict[str, Any]) -> ToolCalls:
        assert "soon-gone.txt" in body["messages"][-1]["content"]  # the listing showed it
        (workspace / "soon-gone.txt").unlink()  # another process removes it meanwhile
        return ToolCalls([("read_file", {"path": "soon-gone.txt"})])

    server.push(
        ToolCalls([("list_dir", {"path": "."})]), delete_then_read, Text("it is gone already")
    )
    events = await turn(agent, "read what is there")
    results = [e for e in events if isinstance(e, ToolCallFinished)]
    assert results[1].is_error and results[1].text == "file not found: soon-gone.txt"
    assert isinstance(events[-1], TurnDone) and events[-1].text == "it is gone already"
    await assert_survives(server, session, agent)
