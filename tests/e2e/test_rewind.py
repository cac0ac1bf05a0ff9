"""/undo and /rewind headless (the entry point in process) against the scripted server: files come
back byte for byte (also after a fold, also what a command changed in a git workspace, without
touching the index, the stash, HEAD or branches), a file the user changed since is kept, and
the journal's rewind record is what a resumed session continues from."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.conversation.rewind_plan import GIT_BLIND_SPOTS
from agent.headless.exit_codes import EXIT_CONFIG, EXIT_KEPT, EXIT_OK
from tests.support.git_support import git
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.tui_support import is_compression, summary_reply

# Slow (pleat's headless runs, folds): left out of the fast set.
pytestmark = pytest.mark.slow

# Bytes that are not plain ASCII: Latin-1 (invalid UTF-8), a lone 0xFF, CRLF, UTF-8 and no
# final newline: a restore that decoded and re-encoded text would change them.
OLD_BYTES = b"caf\xe9 \xff\r\nna\xc3\xafve \xe2\x9c\x93\r\nno newline at the end"
# A fold that keeps only the last message: the turns before it are folded.
SMALL_TAIL = ("--compaction", "tail_messages=1")
# A fold that keeps the last exchange (a request and its answer) in the tail.
KEEP_ONE_TURN = "tail_messages=2"
OLD_EDITED = "r\u00e9sum\u00e9 \u2713\nkeep this line\n".encode()


def scripted(server: ScriptedServer, *replies: Reply) -> None:
    """The model answers with `replies` in order; compression requests get a summary."""
    queue = list(replies)

    def respond(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            return summary_reply("files", "wrote some files")
        return queue.pop(0) if queue else Text("ok")

    server.fallback = respond


def records(pleat_home: Path, kind: str | None = None) -> list[dict[str, Any]]:
    """The journal records of the one session in PLEAT_HOME (of one kind, or all)."""
    (journal,) = pleat_home.glob("sessions/*/journal.jsonl")
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    return [r for r in lines if kind is None or r["type"] == kind]


def user_ids(pleat_home: Path) -> list[str]:
    return [
        r["message"]["id"] for r in records(pleat_home, "message") if r["message"]["role"] == "user"
    ]


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == EXIT_OK, done.stderr
    return done


def test_undo_restores_written_and_edited_files_byte_for_byte(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    (workspace / "old.txt").write_bytes(OLD_BYTES)
    (workspace / "edited.txt").write_bytes(OLD_EDITED)
    scripted(
        server,
        ToolCalls(
            [
                ("write_file", {"path": "old.txt", "content": "replaced\n"}),
                ("write_file", {"path": "sub/new.txt", "content": "brand new\n"}),
                ("edit_file", {"path": "edited.txt", "old_string": "keep", "new_string": "K"}),
            ]
        ),
        Text("written"),
    )
    ok(run_pleat(workspace, server, "-p", "write the files"))
    assert (workspace / "old.txt").read_bytes() == b"replaced\n"
    assert (workspace / "sub" / "new.txt").exists()
    assert b"K this line" in (workspace / "edited.txt").read_bytes()

    done = ok(run_pleat(workspace, server, "-p", "/undo", "--continue"))
    assert (workspace / "old.txt").read_bytes() == OLD_BYTES
    assert (workspace / "edited.txt").read_bytes() == OLD_EDITED
    assert not (workspace / "sub").exists(), "the directory made for the new file stays"
    lines = done.stdout.splitlines()
    assert lines[0] == "undid turn 1: write the files"
    assert sorted(lines[1:]) == ["removed sub/new.txt", "restored edited.txt", "restored old.txt"]

    (rewind,) = records(pleat_home, "rewind")
    first_request = user_ids(pleat_home)[0]
    assert rewind["to"] == first_request and rewind["scope"] == "both"
    assert rewind["prompt"] == "write the files"
    assert [m["role"] for m in rewind["history"]] == ["system"]
    assert sorted(rewind["restored"]) == ["edited.txt", "old.txt"]
    assert rewind["removed"] == ["sub/new.txt"] and rewind["kept"] == []

    # Resumed, the session is the rewound one: the next request starts from the system prompt,
    # and its message gets an id never used before.
    ok(run_pleat(workspace, server, "-p", "something else", "--continue"))
    sent = [(m["role"], m["content"]) for m in server.requests[-1].messages]
    assert [role for role, _ in sent] == ["system", "user"] and sent[1][1] == "something else"
    ids = [int(r["message"]["id"][1:]) for r in records(pleat_home, "message")]
    assert ids[-2] > max(ids[:-2]), "a message id was used twice"
    assert len(set(ids)) == len(ids)

    refused = run_pleat(workspace, server, "-p", "/undo extra", "--continue")
    assert refused.returncode == EXIT_CONFIG and "/undo takes no argument" in refused.stderr


def test_undo_after_a_fold_rebuilds_the_conversation_from_the_journal(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    (workspace / "notes.md").write_bytes(OLD_BYTES)
    scripted(
        server,
        ToolCalls([("write_file", {"path": "notes.md", "content": "# rewritten\n"})]),
        Text("rewritten"),
    )
    ok(run_pleat(workspace, server, "-p", "rewrite the notes"))
    folded = ok(run_pleat(workspace, server, "-p", "/compact", "--continue", *SMALL_TAIL))
    assert "folded" in folded.stdout and "chunk 1" in folded.stdout
    (compaction,) = records(pleat_home, "compaction")
    request = user_ids(pleat_home)[0]
    assert request not in {m["id"] for m in compaction["history"]}, "the turn was not folded"

    done = ok(run_pleat(workspace, server, "-p", "/undo", "--continue"))
    assert done.stdout.splitlines() == ["undid turn 1: rewrite the notes", "restored notes.md"]
    assert (workspace / "notes.md").read_bytes() == OLD_BYTES
    (rewind,) = records(pleat_home, "rewind")
    assert rewind["to"] == request and [m["role"] for m in rewind["history"]] == ["system"]

    # The chunk written before the rewind stays in the archive (not set aside on resume).
    resumed = ok(run_pleat(workspace, server, "-p", "next", "--continue"))
    assert "repair" not in resumed.stderr
    chunks = list(pleat_home.glob("sessions/*/chunks/*"))
    assert [c.name for c in chunks] == ["chunk-0001.md"]
    assert [m["role"] for m in server.requests[-1].messages] == ["system", "user"]


def test_undo_of_a_turn_a_fold_kept_drops_the_summary_written_after_it(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    """A fold after the turn summarised the conversation with the turn in view: undone, the
    conversation is the one before the turn (as the journal has it), not that summary."""

    def respond(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            return summary_reply("work", "the user asked ALPHA, then BETA; beta.txt written")
        return Text("ok")

    server.fallback = respond
    ok(run_pleat(workspace, server, "-p", "ALPHA"))
    ok(run_pleat(workspace, server, "-p", "BETA", "--continue"))
    ok(
        run_pleat(
            workspace, server, "-p", "/compact", "--continue", "--compaction", "tail_messages=2"
        )
    )
    (compaction,) = records(pleat_home, "compaction")
    beta = user_ids(pleat_home)[1]
    assert beta in {m["id"] for m in compaction["history"]}, "the fold did not keep the turn"

    ok(run_pleat(workspace, server, "-p", "/undo", "--continue"))
    (rewind,) = records(pleat_home, "rewind")  # the conversation the next request starts from
    assert [(m["role"], m["content"]) for m in rewind["history"][1:]] == [
        ("user", "ALPHA"),
        ("assistant", "ok"),
    ]


def git_state(workspace: Path) -> dict[str, str]:
    """What the user's git holds besides the working files: index, HEAD, branches, stash."""
    return {
        "index": git(workspace, "diff", "--cached"),
        "index files": git(workspace, "ls-files", "--stage"),
        "HEAD": git(workspace, "rev-parse", "HEAD"),
        "branches": git(workspace, "branch", "-a", "-v"),
        "stash": git(workspace, "stash", "list"),
        "status": git(workspace, "status", "--porcelain"),
    }


def test_undo_reverts_a_commands_changes_in_git_without_touching_index_stash_or_head(
    server: ScriptedServer, workspace: Path, pleat_home: Path, no_git_above: None
) -> None:
    git(workspace, "init", "-q")
    git(workspace, "config", "user.email", "dev@example.com")
    git(workspace, "config", "user.name", "dev")
    (workspace / "tracked.py").write_bytes(b"print('caf\xc3\xa9')\r\n")
    (workspace / "gone.txt").write_bytes(b"to be deleted\n")
    (workspace / ".gitignore").write_text("build/\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-qm", "start")
    (workspace / "staged.txt").write_text("staged, not committed\n")
    git(workspace, "add", "staged.txt")  # the index differs from HEAD: it must stay so
    git(workspace, "stash", "list")
    before = git_state(workspace)
    command = (
        "printf 'changed\\n' > tracked.py; echo fresh > untracked.txt; rm gone.txt; "
        "mkdir -p build; echo out > build/artifact"
    )
    scripted(server, ToolCalls([("run_command", {"command": command})]), Text("ran it"))
    ok(run_pleat(workspace, server, "-p", "run the command"))
    assert (workspace / "tracked.py").read_bytes() == b"changed\n"

    done = ok(run_pleat(workspace, server, "-p", "/undo", "--continue"))
    assert f"pleat: note: {GIT_BLIND_SPOTS}" in done.stderr.splitlines()  # build/ stays: said
    assert sorted(done.stdout.splitlines()[1:]) == [
        "removed untracked.txt",
        "restored gone.txt",
        "restored tracked.py",
    ]
    assert (workspace / "tracked.py").read_bytes() == b"print('caf\xc3\xa9')\r\n"
    assert (workspace / "gone.txt").read_bytes() == b"to be deleted\n"
    assert not (workspace / "untracked.txt").exists()
    assert (workspace / "build" / "artifact").exists()  # ignored files are not covered
    assert git_state(workspace) == before
    refs = git(workspace, "for-each-ref", "--format=%(refname)").split()
    assert [r for r in refs if not r.startswith("refs/heads/")] == [
        f"refs/pleat/checkpoints/{records(pleat_home)[0]['id']}"
    ]


def test_a_file_changed_by_the_user_since_is_kept_headless(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    (workspace / "mine.txt").write_text("original\n")
    (workspace / "other.txt").write_text("other original\n")
    scripted(
        server,
        ToolCalls(
            [
                ("write_file", {"path": "mine.txt", "content": "pleat's\n"}),
                ("write_file", {"path": "other.txt", "content": "pleat's too\n"}),
            ]
        ),
        Text("done"),
    )
    ok(run_pleat(workspace, server, "-p", "change both"))
    (workspace / "mine.txt").write_text("the user's own edit\n")

    done = run_pleat(workspace, server, "-p", "/undo", "--continue")
    assert done.returncode == EXIT_KEPT
    assert (workspace / "mine.txt").read_text() == "the user's own edit\n"
    assert (workspace / "other.txt").read_text() == "other original\n"
    assert done.stderr.splitlines() == [
        "pleat: kept your version of mine.txt: it changed after pleat wrote it"
    ]
    assert done.stdout.splitlines() == ["undid turn 1: change both", "restored other.txt"]
    (rewind,) = records(pleat_home, "rewind")
    assert rewind["kept"] == ["mine.txt"]


def test_a_users_edit_between_two_of_pleats_changes_is_kept(
    server: ScriptedServer, workspace: Path
) -> None:
    """The user edits a file pleat wrote, then pleat edits it again: rewinding past both would
    put back the first content and lose the user's lines in between, so it asks (headless:
    keeps the file and exits 4), even though the file is as pleat last left it."""
    scripted(
        server,
        ToolCalls([("write_file", {"path": "notes.txt", "content": "pleat draft\n"})]),
        Text("drafted"),
        ToolCalls(
            [("edit_file", {"path": "notes.txt", "old_string": "pleat draft", "new_string": "v2"})]
        ),
        Text("edited"),
    )
    ok(run_pleat(workspace, server, "-p", "draft notes"))
    (workspace / "notes.txt").write_text("pleat draft\nMY HAND-WRITTEN NOTES\n")
    ok(run_pleat(workspace, server, "-p", "edit the notes", "--continue"))
    assert (workspace / "notes.txt").read_text() == "v2\nMY HAND-WRITTEN NOTES\n"

    done = run_pleat(workspace, server, "-p", "/rewind 1 files", "--continue")
    assert done.returncode == EXIT_KEPT, done.stderr
    assert (workspace / "notes.txt").read_text() == "v2\nMY HAND-WRITTEN NOTES\n"
    assert "kept your version of notes.txt" in done.stderr


def test_rewind_lists_turns_and_goes_back_to_a_folded_one(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    (workspace / "log.txt").write_text("v0\n")
    scripted(
        server,
        ToolCalls([("write_file", {"path": "log.txt", "content": "v1\n"})]),
        Text("one"),
        ToolCalls([("write_file", {"path": "log.txt", "content": "v2\n"})]),
        Text("two"),
        ToolCalls([("write_file", {"path": "three.txt", "content": "3\n"})]),
        Text("three"),
    )
    ok(run_pleat(workspace, server, "-p", "first\nwith a second line"))
    ok(run_pleat(workspace, server, "-p", "second", "--continue"))
    ok(run_pleat(workspace, server, "-p", "/compact", "--continue", *SMALL_TAIL))
    ok(run_pleat(workspace, server, "-p", "third", "--continue"))
    assert (workspace / "log.txt").read_text() == "v2\n"

    listing = ok(run_pleat(workspace, server, "-p", "/rewind", "--continue")).stdout.splitlines()
    assert [line.split("  ", 1)[1] for line in listing] == ["first", "second", "third"]
    assert [line.split(".")[0] for line in listing] == ["1", "2", "3"]

    # Files only, to before turn 2 (folded): turns 2 and 3 changed files; the conversation stays.
    done = ok(run_pleat(workspace, server, "-p", "/rewind 2 files", "--continue"))
    assert done.stdout.splitlines()[0] == "rewound the files to before turn 2: second"
    assert (workspace / "log.txt").read_text() == "v1\n"
    assert not (workspace / "three.txt").exists()
    listing = ok(run_pleat(workspace, server, "-p", "/rewind", "--continue")).stdout.splitlines()
    assert len(listing) == 3

    # The conversation, to before turn 1 (folded): rebuilt from the journal; files still v1
    # (only the conversation goes back).
    done = ok(run_pleat(workspace, server, "-p", "/rewind 1 conversation", "--continue"))
    assert done.stdout.splitlines() == ["rewound the conversation to before turn 1: first"]
    assert (workspace / "log.txt").read_text() == "v1\n"
    listing = ok(run_pleat(workspace, server, "-p", "/rewind", "--continue")).stdout
    assert listing == "no turns to rewind to yet\n"

    # What that rewind kept stays: a files rewind goes back to before a turn, in time, and the
    # new first turn came after it.
    ok(run_pleat(workspace, server, "-p", "again", "--continue"))
    done = ok(run_pleat(workspace, server, "-p", "/rewind 1 files", "--continue"))
    assert done.stdout.splitlines() == ["rewound the files to before turn 1: again"]
    assert (workspace / "log.txt").read_text() == "v1\n"

    refused = run_pleat(workspace, server, "-p", "/rewind 9", "--continue")
    assert refused.returncode == EXIT_CONFIG
    assert refused.stderr.strip() == "pleat: error: there is no turn 9: this conversation has 1"
    bad = run_pleat(workspace, server, "-p", "/rewind 1 everything", "--continue")
    assert bad.returncode == EXIT_CONFIG and "is not a rewind" in bad.stderr


def test_nothing_to_undo_is_refused(server: ScriptedServer, workspace: Path) -> None:
    done = run_pleat(workspace, server, "-p", "/undo")
    assert done.returncode == EXIT_CONFIG
    assert done.stderr.strip() == (
        "pleat: error: nothing to undo: this conversation has no request yet"
    )
    assert not server.requests
