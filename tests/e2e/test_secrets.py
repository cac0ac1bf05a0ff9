"""The configured API key never reaches disk or the terminal, even when a prompt or file has it."""

# Elsewhere: secret-looking values are redacted in summaries and ledgers
# (tests/unit/sessions/test_redact.py,
# tests/unit/agent/compaction/test_ledger.py::test_secrets_never_reach_the_ledger); session files
# are 0600 and their directories 0700
# (tests/e2e/test_sessions.py::test_files_are_private_and_hold_no_api_key). What the TUI shows
# (screenshots) is the TUI's to test; docs/FUZZING-AND-LOAD.md notes it.

from __future__ import annotations

from pathlib import Path

import pytest

from sessions.archive import ChunkArchive
from sessions.messages import Message, ToolCall
from sessions.redact import REDACTED, KnownSecrets
from tests.support.constants import TEST_MODEL
from tests.support.pleat_process import pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (a headless run that folds): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# A key shaped like no known token format, so only the known-key redaction can catch it (the
# pattern-based redaction of summaries would catch an sk-... key on its own).
KEY = "pleat-e2e-key-6f1c0a9d2b7e4c35"
# How the scripted model recognizes pleat's compression instruction.
INSTRUCTION_MARK = "[pleat: context compaction"
# Files read after the one holding the key: at ~2,000 tokens each, two fill a 6,000-token
# window past its fold threshold, so the run folds at least once.
BIG_FILES = 4


def model(reads: list[str]) -> object:
    """Reads each file in turn, then answers; asked to fold, it writes the key into its summary
    and topics (a model may echo what it saw): pleat must redact them."""
    pending = iter(reads)

    def reply(body: dict) -> Text | ToolCalls:
        if INSTRUCTION_MARK in str(body["messages"][-1]["content"]):
            return Text(
                f"<topics>keys, {KEY}</topics><continues_previous>false</continues_previous>"
                f"<summary>## Task\nThe user gave the key {KEY} and asked to read files.</summary>"
            )
        name = next(pending, None)
        return Text("done") if name is None else ToolCalls([("read_file", {"path": name})])

    return reply


def test_the_key_never_reaches_disk_or_the_terminal(workspace: Path, pleat_home: Path) -> None:
    (workspace / "settings.env").write_text(f"OPENAI_API_KEY={KEY}\nDEBUG=1\n")
    reads = ["settings.env"]
    for i in range(BIG_FILES):
        (workspace / f"big{i}.txt").write_text(f"big file {i}\n" + "some words to read\n" * 420)
        reads.append(f"big{i}.txt")
    with ScriptedServer(api_key=KEY, models={TEST_MODEL}, fallback=model(reads)) as server:
        done = pleat(
            "-p", f"my key is {KEY}; read the files",
            "--model", TEST_MODEL,
            "--api-base", server.base_url,
            "--api-key", KEY,
            "--context-window", "6000",
            "--cwd", str(workspace),
        )  # fmt: skip
        sent = [str(r.body) for r in server.requests]
    assert done.returncode == 0, done.stderr
    assert "⟳ folded" in done.stderr, done.stderr  # the run folded: chunks were written
    # The model itself saw the key (the live conversation is verbatim), so it was exercised.
    assert any(KEY in body for body in sent)
    files = [p for p in pleat_home.rglob("*") if p.is_file()]
    chunks = [p for p in files if p.name.startswith("chunk-")]
    journals = [p for p in files if p.name == "journal.jsonl"]
    assert chunks and journals
    for path in files:
        assert KEY not in path.read_bytes().decode("utf-8", "replace"), path
    assert REDACTED in journals[0].read_text() and REDACTED in chunks[0].read_text()
    assert KEY not in done.stdout and KEY not in done.stderr


def test_the_archive_redacts_known_secrets_everywhere_in_a_message(tmp_path: Path) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s")
    archive.secrets = KnownSecrets([KEY])
    call = ToolCall("c1", "grep", f'{{"pattern": "{KEY}"}}')
    archive.write_chunk(
        [
            Message(role="user", content=f"key {KEY}", id="m2", meta={"note": [KEY]}),
            Message(role="assistant", content=None, tool_calls=(call,), id="m3"),
        ],
        topics="t",
        tokens=1,
    )
    text = archive.path(1).read_text()
    assert KEY not in text and text.count(REDACTED) == 3
    folded, _ = archive.read_parts(1)
    assert folded[0].content == f"key {REDACTED}" and folded[1].tool_calls[0].id == "c1"


def test_known_secrets_are_all_replaced_and_short_ones_kept() -> None:
    secrets = KnownSecrets(["abc", KEY])  # 3 characters: too short to replace safely
    assert secrets.text(f"abc {KEY}{KEY}") == f"abc {REDACTED}{REDACTED}"
    assert secrets.value({KEY: [KEY, 1, None]}) == {REDACTED: [REDACTED, 1, None]}
    assert not KnownSecrets([]) and KnownSecrets([]).text(KEY) == KEY
