"""Crash endurance: pleat -p killed with SIGKILL at random moments of a long run, again and
again; after every kill the session must resume with nothing completed lost. Prints counts."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.test_sessions_kill import (  # noqa: E402
    FILES,
    INSTRUCTION_MARK,
    SUMMARY,
    journaled_ids,
    pleat_args,
)
from tests.support.invariants import assert_history_valid  # noqa: E402
from tests.support.scripted_server import (  # noqa: E402
    ScriptedServer,
    Text,
    ToolCalls,
)

RESULTS = ROOT / "bench" / "results" / "kill_loop.json"
# Seconds after a run's first request at which it is killed.
KILL_WINDOW = (0.0, 3.0)


def endless_reader():
    """A model that reads the files round and round and never finishes: every kill lands
    in the middle of work (streaming, a tool, a compaction)."""
    count = iter(range(10**9))

    def model(body: dict) -> Text | ToolCalls:
        if INSTRUCTION_MARK in str(body["messages"][-1]["content"]):
            return Text(SUMMARY)
        time.sleep(0.05)
        return ToolCalls([("read_file", {"path": f"f{next(count) % FILES:02d}.txt"})])

    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="pleat-kill-"))
    os.environ["PLEAT_HOME"] = str(home / "home")
    from sessions.paths import session_dir
    from sessions.store import Session, list_sessions

    workspace = home / "ws"
    workspace.mkdir()
    for i in range(FILES):
        (workspace / f"f{i:02d}.txt").write_text(f"file {i}\n" + f"line of file {i}\n" * 120)
    rng = random.Random(options.seed)
    resumed = lost = 0
    with ScriptedServer() as server:
        server.fallback = endless_reader()
        session_id = None
        for _ in range(options.rounds):
            extra = ["--continue"] if session_id else []
            process = subprocess.Popen(
                pleat_args(server, workspace, "-p", "read every file", *extra),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            before = len(server.requests)
            while len(server.requests) == before and process.poll() is None:
                time.sleep(0.01)
            time.sleep(rng.uniform(*KILL_WINDOW))
            process.send_signal(signal.SIGKILL)
            process.wait()
            session_id = list_sessions(workspace)[0].id
            completed = journaled_ids(session_dir(session_id))
            session, history, _ = Session.resume(session_id)
            assert_history_valid(history)
            archive = session.archive
            stored = {
                m.id for c in archive.chunks() for p in archive.read_parts(c.number) for m in p
            }
            lost += len(completed - {m.id for m in history} - stored)
            session.close()
            resumed += 1
        chunks = len(list((session_dir(session_id) / "chunks").glob("chunk-*.md")))
    result = {"rounds": options.rounds, "resumed": resumed, "messages_lost": lost, "chunks": chunks}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2))
    print(
        f"{options.rounds} SIGKILLs, {resumed} clean resumes, "
        f"{lost} completed messages lost, {chunks} chunks"
    )


if __name__ == "__main__":
    main()
