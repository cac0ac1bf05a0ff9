"""The whole archive, searchable in milliseconds: 10,000 sessions (2 GB of journals and chunks)
of one workspace, a fact planted in the oldest: `.venv/bin/python bench/archive_index.py`.

Measured: the index's first (cold) build; a project search that finds the fact, warm (the
median of REPEATS runs); the resume picker's listing of the workspace's sessions from the
index; and that deleting the index rebuilds it, says so, and loses nothing (the fact is found
again). The tree is generated once, the journals written directly in the exact format
sessions/journal.py writes (a chunk file, through the real ChunkArchive, for one session in
CHUNK_EVERY), and kept under /tmp between runs (`--fresh` makes it again; `--warm-only`
measures the warm search and listing again on the kept index, keeping the builds' numbers).
Writes bench/results/archive-index.json.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from sessions.archive import ChunkArchive  # noqa: E402
from sessions.messages import Message  # noqa: E402

# The size: a year of heavy use of one workspace.
SESSIONS = 10_000
# Bytes of journals and chunks in all, at least (the "at least 2 GB").
TOTAL_BYTES = 2_100_000_000
# One session in this many has folded once (a chunk file beside its journal).
CHUNK_EVERY = 10
# Runs of each warm measurement; the median is reported.
REPEATS = 7
# Where the generated tree is kept between runs (PLEAT_HOME of the benchmark).
CACHE = Path("/tmp/pleat-bench-archive-index")
WORKSPACE = "/work/bench-workspace"
# The planted fact, in the oldest session only, and the query that finds it.
FACT = "the staging cluster's failover token is zebra-quartz-1729"
QUERY = "zebra-quartz-1729"
# The goals (milliseconds): the "within 200 ms" for both.
SEARCH_GOAL_MS = 200.0
PICKER_GOAL_MS = 200.0
RESULT = ROOT / "bench" / "results" / "archive-index.json"
# Words the generated text is made of: code, commands and prose of a coding session.
WORDS = (
    "def class return import self value config parser token cache request response error "
    "handler session module test assert install build deploy commit branch merge rebase "
    "function variable index query result status update delete create read write file path "
    "directory server client socket thread async await lock queue worker timeout retry "
    "database table column migration schema record field string integer boolean list dict"
).split()


def _block(rng: random.Random, size: int) -> str:
    """About `size` characters of code-like text with numbers, so trigrams vary as in life."""
    lines, used = [], 0
    while used < size:
        words = rng.choices(WORDS, k=rng.randint(4, 12))
        line = (
            f"{'    ' * rng.randint(0, 3)}{'_'.join(words[:2])}({rng.randint(0, 99999)}) "
            + " ".join(words[2:])
        )
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def _journal(rng: random.Random, sid: str, number: int, size: int, blocks: list[str]) -> str:
    """A session's journal of about `size` bytes: prompts, replies, tool calls and outputs."""
    started = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(1_700_000_000 + number * 3000))
    out = [
        _line(
            {
                "type": "session",
                "v": 1,
                "time": started,
                "id": sid,
                "workspace": WORKSPACE,
                "model": "m",
            }
        )
    ]
    out.append(
        _line(
            {
                "type": "message",
                "message": {"role": "system", "content": "You are pleat.", "id": "m1"},
            }
        )
    )
    used, n = 0, 1
    while used < size:
        n += 1
        prompt = f"session {number} step {n}: fix the {rng.choice(WORDS)} {rng.choice(WORDS)}"
        if number == 0 and n == 2:
            prompt += f". Remember: {FACT}"
        records = [
            {"role": "user", "content": prompt, "id": f"m{n}", "meta": {"typed": prompt}},
            {
                "role": "assistant",
                "content": _block(rng, 300),
                "tool_calls": [
                    {
                        "id": f"c{n}",
                        "type": "function",
                        "function": {
                            "name": "read_file",
                            "arguments": json.dumps({"path": f"src/{rng.choice(WORDS)}.py"}),
                        },
                    }
                ],
                "id": f"m{n + 1}",
            },
            {
                "role": "tool",
                "content": rng.choice(blocks) + f"\n# {number}-{n}",
                "tool_call_id": f"c{n}",
                "name": "read_file",
                "id": f"m{n + 2}",
            },
        ]
        n += 2
        for record in records:
            line = _line({"type": "message", "message": record})
            used += len(line)
            out.append(line)
    return "".join(out)


def generate(home: Path) -> int:
    """The tree under `home`; returns its bytes of journals and chunks."""
    rng = random.Random(32)
    blocks = [_block(rng, rng.randint(2_000, 30_000)) for _ in range(400)]
    root = home / "sessions"
    root.mkdir(parents=True)
    each = TOTAL_BYTES // SESSIONS
    total = 0
    now = time.time()
    for number in range(SESSIONS):
        sid = f"2025{number:06d}-000000-{number:06x}"
        directory = root / sid
        directory.mkdir(mode=0o700)
        text = _journal(rng, sid, number, int(each * rng.uniform(0.5, 1.5)), blocks)
        journal = directory / "journal.jsonl"
        journal.write_text(text, encoding="utf-8")
        total += len(text.encode())
        if number % CHUNK_EVERY == 0:
            archive = ChunkArchive(directory / "chunks", sid)
            folded = [Message("user", _block(rng, 4_000), id=f"m{k}") for k in range(2, 12)]
            info = archive.write_chunk(folded, topics="generated fold", tokens=10_000)
            total += info.path.stat().st_size
        mtime = now - (SESSIONS - number) * 3000  # the oldest first, a year back
        os.utime(journal, (mtime, mtime))
    return total


def _timed(work: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = work()
    return (time.perf_counter() - start) * 1000, value


def _warm(searches: list[Any], pickers: list[Any], found: Any, listed: int) -> dict[str, Any]:
    return {
        "search_warm_ms": round(statistics.median(ms for ms, _ in searches), 1),
        "search_runs_ms": [round(ms, 1) for ms, _ in searches],
        "search_found_fact": found(searches[0][1]),
        "search_goal_ms": SEARCH_GOAL_MS,
        "picker_ms": round(statistics.median(ms for ms, _ in pickers), 1),
        "picker_runs_ms": [round(ms, 1) for ms, _ in pickers],
        "picker_sessions": listed,
        "picker_goal_ms": PICKER_GOAL_MS,
    }


def main() -> None:
    if "--fresh" in sys.argv and CACHE.exists():
        shutil.rmtree(CACHE)
    os.environ["PLEAT_HOME"] = str(CACHE)
    from sessions.archive_index import index_path, use_index
    from sessions.archive_query import compile_query
    from sessions.index_listing import indexed_sessions
    from sessions.project_archive import search_project

    if not (CACHE / "sessions").is_dir():
        print("generating the tree (once; kept in", CACHE, ")")
        seconds, size = _timed(lambda: generate(CACHE))
        (CACHE / "size.json").write_text(json.dumps({"bytes": size}))
        print(f"  {size / 1e9:.2f} GB in {seconds / 1000:.0f} s")
    size = json.loads((CACHE / "size.json").read_text())["bytes"]
    workspace = Path(WORKSPACE)
    current = ChunkArchive(CACHE / "sessions" / "current-session" / "chunks", "current-session")
    query = compile_query(QUERY)

    def search() -> Any:
        return search_project(query, workspace, current)

    def found(result: Any) -> bool:
        return any(h.session and h.session.id.startswith("2025000000") for h in result.hits)

    warm_only = "--warm-only" in sys.argv and index_path().is_file() and RESULT.is_file()
    if not warm_only:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index_path()}{suffix}").unlink(missing_ok=True)
        print("cold build ...")
        cold_ms, (_, notice) = _timed(lambda: use_index(lambda conn: None))
        print(f"  {cold_ms / 1000:.1f} s, {notice}")
    searches = [_timed(search) for _ in range(REPEATS)]
    search_ms = statistics.median(ms for ms, _ in searches)
    pickers = [_timed(lambda: indexed_sessions(workspace)) for _ in range(REPEATS)]
    picker_ms = statistics.median(ms for ms, _ in pickers)
    listed = len(pickers[0][1][0])
    print(
        f"  warm search {search_ms:.1f} ms (found: {found(searches[0][1])}), "
        f"picker {picker_ms:.1f} ms ({listed} sessions)"
    )
    if warm_only:  # the warm numbers again; the builds' numbers kept from the last full run
        result = json.loads(RESULT.read_text())
        result |= _warm(searches, pickers, found, listed)
        RESULT.write_text(json.dumps(result, indent=2) + "\n")
        print(json.dumps(result, indent=2))
        return
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index_path()}{suffix}").unlink(missing_ok=True)
    rebuild_ms, after = _timed(search)
    print(f"  after deletion: {rebuild_ms / 1000:.1f} s, {after.notice}, found: {found(after)}")
    result = {
        "sessions": SESSIONS,
        "bytes": size,
        "index_bytes": index_path().stat().st_size,
        "cold_build_s": round(cold_ms / 1000, 1),
        **_warm(searches, pickers, found, listed),
        "rebuild_s": round(rebuild_ms / 1000, 1),
        "rebuild_notice": after.notice,
        "rebuild_found_fact": found(after),
    }
    RESULT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
