"""Archive queries through the index: the messages that may match, found by their trigrams.

A query (sessions/archive_query.py: a regex, or words that must all appear) is not run by
SQLite: the full-text index only narrows the messages to those holding every trigram of the
strings any match must contain, and the query itself then runs on each of them, as it runs on a
journal. A query with no such string of three characters or more (`a.b`, `\\d+`) runs on every
message of the scope, read from the index in order.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from sessions.archive import ChunkArchive
from sessions.archive_query import COUNTED, Entry, Hit, Query, SearchCancelled, SearchResult, match
from sessions.bounded_regex import Deadline, PatternTooSlow
from sessions.index_sync import CHUNKS_DIR, record_message
from sessions.paths import data_home

# Trigrams ANDed in one index query: a long literal's first few already make a candidate rare,
# and each more costs a pass over its posting list.
MAX_TRIGRAMS = 24
# Candidate records read from the index per statement (SQLite's bound variables stay far
# below its limit, and a search that is stopped early has not read much past its last hit).
FETCH_BATCH = 200
# Characters that end a run of literal text in a regex (a class, a group, an anchor, any).
BREAKS = frozenset("[(.^$")
# A quantifier after a character: the character may be missing (the first set) or repeated.
OPTIONAL, REPEATED = frozenset("*?"), frozenset("+")
# A regex flag group turning on verbose mode, where blanks and # comments are not text.
VERBOSE = re.compile(r"\(\?[a-zA-Z]*x")


def _skip_class(pattern: str, at: int) -> int:
    end = at + 1
    end += pattern.startswith("^", end)
    end += pattern.startswith("]", end)
    while end < len(pattern) and pattern[end] != "]":
        end += 2 if pattern[end] == "\\" else 1
    return end + 1


def _skip_group(pattern: str, at: int) -> int:
    depth = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
            continue
        if char == "[":
            at = _skip_class(pattern, at)
            continue
        depth += (char == "(") - (char == ")")
        at += 1
        if depth == 0:
            break
    return at


def _top_level_branch(pattern: str) -> bool:
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
        elif char == "[":
            at = _skip_class(pattern, at)
        elif char == "(":
            at = _skip_group(pattern, at)
        elif char == "|":
            return True
        else:
            at += 1
    return False


def _quantifier(pattern: str, at: int) -> tuple[int, bool]:
    """(length, may be missing) of a quantifier at `at`; length 0 when there is none."""
    if at < len(pattern) and pattern[at] in OPTIONAL | REPEATED:
        length, optional = 1, pattern[at] in OPTIONAL
    elif (counted := COUNTED.match(pattern, at)) and (counted[1] or counted[2]):
        length, optional = len(counted[0]), not counted[1] or int(counted[1]) == 0
    else:
        return 0, False
    length += pattern.startswith(("?", "+"), at + length)  # lazy or possessive
    return length, optional


def required_literals(pattern: str) -> list[str]:
    """Strings every match of the regex `pattern` contains (not all of them: those easily
    seen at its top level). Empty when it has a top-level `|` or verbose mode."""
    if _top_level_branch(pattern) or VERBOSE.search(pattern):
        return []
    runs: list[str] = []
    run: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        literal: str | None = None
        if char == "\\":
            escaped = pattern[at + 1 : at + 2]
            literal = escaped if escaped and not escaped.isalnum() else None
            at += 2
        elif char == "[":
            at = _skip_class(pattern, at)
        elif char == "(":
            at = _skip_group(pattern, at)
        elif char in BREAKS or char in "*+?{|)":
            at += 1
        else:
            literal = char
            at += 1
        length, optional = _quantifier(pattern, at)
        at += length
        if literal is not None and not (length and optional):
            run.append(literal)
        if literal is None or length:
            runs.append("".join(run))
            run = []
    runs.append("".join(run))
    return [r for r in runs if r]


def _quoted(trigram: str) -> str:
    return '"' + trigram.replace('"', '""') + '"'


def match_expression(query: Query) -> str | None:
    """The full-text expression every message matching `query` satisfies, or None when the
    query has no literal text of three characters to narrow by."""
    sources = [query.pattern.pattern] if query.is_regex else [p.pattern for p in query.required]
    trigrams: list[str] = []
    for source in sources:
        for literal in required_literals(source):
            if any("\ud800" <= c <= "\udfff" for c in literal):
                continue  # a lone surrogate cannot go to SQLite
            trigrams += [literal[i : i + 3] for i in range(len(literal) - 2)]
    unique = list(dict.fromkeys(trigrams))
    if not unique:
        return None
    if len(unique) > MAX_TRIGRAMS:  # spread over the whole literal
        step = len(unique) / MAX_TRIGRAMS
        unique = [unique[int(i * step)] for i in range(MAX_TRIGRAMS)]
    return " AND ".join(_quoted(t) for t in unique)


@dataclass(frozen=True)
class Candidates:
    """The messages of a scope that may match, in the order hits are listed: (row, session)."""

    rows: list[tuple[int, str]]
    narrowed: bool  # False: every message of the scope, not narrowed by the index


def candidates(
    conn: sqlite3.Connection, query: Query, where: str, params: Sequence[object], order: str
) -> Candidates:
    """The candidate rows among entries `e` joined to their sessions `s` where `where` holds,
    in `order` (SQL over e and s)."""
    expression = match_expression(query)
    if expression is None:
        sql = f"SELECT e.id, s.id FROM entries e JOIN sessions s ON s.key = e.sid WHERE {where}"
        rows = conn.execute(f"{sql} ORDER BY {order}", tuple(params)).fetchall()
        return Candidates(rows, False)
    sql = (
        "SELECT e.id, s.id FROM texts JOIN entries e ON e.id = texts.rowid "
        f"JOIN sessions s ON s.key = e.sid WHERE texts MATCH ? AND {where}"
    )
    rows = conn.execute(f"{sql} ORDER BY {order}", (expression, *params)).fetchall()
    return Candidates(rows, True)


def read_entries(
    conn: sqlite3.Connection, rows: Sequence[tuple[int, str]]
) -> Iterator[tuple[str, Entry]]:
    """The entries of `rows` in their order, with their session's id; a record that no longer
    reads as a message is passed over."""
    for start in range(0, len(rows), FETCH_BATCH):
        batch = rows[start : start + FETCH_BATCH]
        marks = ",".join("?" * len(batch))
        found = {
            rowid: (chunk, original, record)
            for rowid, chunk, original, record in conn.execute(
                f"SELECT id, chunk, original, record FROM entries WHERE id IN ({marks})",
                [rowid for rowid, _ in batch],
            )
        }
        for rowid, session in batch:
            if rowid not in found:
                continue
            chunk, original, record = found[rowid]
            try:
                message = record_message(record)
            except ValueError:
                continue
            yield session, Entry(chunk, message, bool(original))


def indexed(archive: ChunkArchive) -> bool:
    """Whether the archive is a session's of the data directory (the one the index covers)."""
    return archive.directory == data_home() / "sessions" / archive.session_id / CHUNKS_DIR


def chunk_candidates(
    conn: sqlite3.Connection, query: Query, session_id: str, numbers: Sequence[int] | None = None
) -> Candidates:
    """The candidate messages of a session's chunks (of `numbers` only, when given), in
    archive order: by chunk, the folded ones before the shrunk originals."""
    where = "s.id = ? AND e.chunk > 0"
    params: list[object] = [session_id]
    if numbers is not None:
        where += f" AND e.chunk IN ({','.join('?' * len(numbers))})"
        params += list(numbers)
    return candidates(conn, query, where, params, "e.chunk, e.original, e.seq")


def search_chunks(
    conn: sqlite3.Connection,
    query: Query,
    session_id: str,
    numbers: Sequence[int],
    stopped: Callable[[], bool],
) -> SearchResult:
    """sessions.archive_query.search over the chunks `numbers` of a session, through the index.
    Raises SearchCancelled once `stopped()`."""
    hits: list[Hit] = []
    deadline = Deadline()
    found = chunk_candidates(conn, query, session_id, numbers)
    for _, entry in read_entries(conn, found.rows):
        if stopped():
            raise SearchCancelled
        try:
            hit = match(entry, query, deadline)
        except PatternTooSlow as exc:
            return SearchResult(hits, [], str(exc))
        if hit is not None:
            hits.append(hit)
    return SearchResult(hits, [])
