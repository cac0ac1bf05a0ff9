"""Searching and paging the chunk archive: one set of rules for read_archive and /chunks."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sessions.archive import ChunkArchive
from sessions.bounded_regex import Deadline, Pattern, PatternTooSlow, compile_pattern
from sessions.messages import Message, ToolCall
from sessions.model_json import ModelJsonError, loads

# Characters of archived text per page, for both readers. The model: ~10k tokens, a big read
# that still fits comfortably in a large window next to the live conversation (a smaller
# window's tool-output budget makes its pages smaller). The person in /chunks: Markdown takes
# about 10 ms per 1,000 characters to lay out (measured), so a page shows within half a second
# while a fold of a long session, megabytes, is read page by page.
PAGE_CHARS = 40_000
# Hits the model is shown per search (~250 characters each, ~2k tokens in all): enough to choose
# what to read; past that the query should be narrower, and the rest are only counted.
MAX_HITS = 30
# Matches counted per searched text: enough to say "many"; counting further would only cost time.
MAX_COUNTED_MATCHES = 1_000
# Characters of a query: far more than any phrase or pattern worth typing, and it bounds what a
# pattern can cost to compile and run; a longer one is refused with a hint.
MAX_QUERY_CHARS = 1_000
# Characters shown on each side of a match in a hit's snippet (~200 characters per snippet).
SNIPPET_CONTEXT = 100
# Characters of one match shown inside »«; a longer match (e.g. from `.*`) is cut with "…".
MAX_MATCH_SHOWN = 80
# Marks a match in a snippet; rare characters, so they stand out from code and logs.
MARK_OPEN, MARK_CLOSE = "»", "«"
# A run of whitespace, collapsed to one space in one-line snippets.
WHITESPACE = re.compile(r"\s+")
# A counted repetition `{m}`, `{m,}`, `{,n}`, `{m,n}`; any other brace is a literal character.
COUNTED = re.compile(r"\{(\d*)(,?)(\d*)\}")


class QueryError(ValueError):
    """A query that cannot be searched for (empty, or too long)."""


class SearchCancelled(Exception):
    """The caller asked the search to stop (a newer query, or the tool call was cancelled)."""


def flat(text: str) -> str:
    """Text on one line: every run of whitespace (newlines included) becomes one space."""
    return WHITESPACE.sub(" ", text)


# -- the query ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """How a search query matches."""

    # Finds the spans to mark (and count) in a message's text.
    pattern: Pattern
    # Words mode only: each must appear somewhere in the message.
    required: tuple[Pattern, ...]
    # How the query was understood, for the reader to show: "/x+/ (regex, ignoring case)".
    described: str

    @property
    def is_regex(self) -> bool:
        return not self.required


def _quantifier(pattern: str, at: int) -> tuple[int, bool, bool]:
    """(length, unbounded, backtracks) of a quantifier at `at`; length 0 when there is none."""
    if pattern.startswith(("*", "+"), at):
        length, unbounded = 1, True
    elif pattern.startswith("?", at):
        length, unbounded = 1, False
    elif (counted := COUNTED.match(pattern, at)) and (counted[1] or counted[2]):
        length, unbounded = len(counted[0]), bool(counted[2]) and not counted[3]
    else:
        return 0, False, False
    possessive = pattern.startswith("+", at + length)  # `a*+`: never gives characters back
    if possessive or pattern.startswith("?", at + length):
        length += 1
    return length, unbounded, not possessive


def class_end(pattern: str, at: int) -> int:
    """The index past the character class `[...]` opening at `at`."""
    end = at + 1
    end += pattern.startswith("^", end)
    end += pattern.startswith("]", end)  # a `]` first is a literal
    while end < len(pattern) and pattern[end] != "]":
        end += 2 if pattern[end] == "\\" else 1
    return end + 1


def nested_repetition(pattern: str) -> str | None:
    """The first group repeated without bound that itself holds an unbounded repetition, like
    `(a+)+` or `(\\w+\\s?)*`: on text that almost matches, the regex engine tries every way to
    split the text between the two repetitions, which takes exponential time. None if none.
    Atomic groups `(?>...)` and possessive quantifiers `a++` never backtrack, so they pass."""
    stack: list[tuple[int, bool, bool]] = []  # (group start, outer level's flag, atomic)
    inner = False  # the current level holds an unbounded repetition that backtracks
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
        elif char == "[":
            at = class_end(pattern, at)
        elif char == "(":
            stack.append((at, inner, pattern.startswith("(?>", at)))
            inner = False
            at += 3 if pattern.startswith("(?", at) else 1  # `(?:` `(?P` `(?=`: no quantifier
        elif char == ")" and stack:
            start, outer, atomic = stack.pop()
            length, unbounded, backtracks = _quantifier(pattern, at + 1)
            if inner and unbounded and backtracks and not atomic:
                return pattern[start : at + 1 + length]
            inner = outer or (inner and not atomic) or (unbounded and backtracks)
            at += 1 + length
        else:
            length, unbounded, backtracks = _quantifier(pattern, at)
            inner = inner or (unbounded and backtracks)
            at += max(1, length)
    return None


def compile_query(text: str, case_sensitive: bool = False) -> Query:
    """A regex when the query compiles as one and is safe to run; otherwise its words, all of
    which must appear. Case is ignored unless asked; spaces around the query are dropped."""
    query = text.strip()
    if not query:
        raise QueryError("a search needs a non-empty query (a regex or words)")
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(
            f"the query is {len(query)} characters long, more than {MAX_QUERY_CHARS}: search "
            "for a short, distinctive part of it"
        )
    ignore_case = not case_sensitive
    case = "case-sensitive" if case_sensitive else "ignoring case"
    nested = nested_repetition(query)
    if nested is not None:
        reason = (
            f"the query is not run as a regex: the nested repetition {nested} can take "
            "exponential time (make the inner part atomic, (?>...), or possessive, a++)"
        )
    else:
        try:
            pattern = compile_pattern(query, ignore_case=ignore_case)
            return Query(pattern, (), f"/{query}/ (regex, {case})")
        except ValueError as exc:
            reason = f"the query is not a valid regex: {flat(str(exc))}"
    words = list(dict.fromkeys(query.split()))
    # Longest first, so a word that contains another is marked whole.
    alternatives = sorted(words, key=len, reverse=True)
    pattern = compile_pattern("|".join(re.escape(w) for w in alternatives), ignore_case=ignore_case)
    required = tuple(compile_pattern(re.escape(w), ignore_case=ignore_case) for w in words)
    described = f"the words {' '.join(words)} (all must appear, {case}; {reason})"
    return Query(pattern, required, described)


def find_spans(
    pattern: Pattern, text: str, deadline: Deadline, limit: int = MAX_COUNTED_MATCHES
) -> list[tuple[int, int]]:
    """The one place a query's pattern runs: its non-empty matches in `text`, at most `limit`
    (an empty match marks nothing, so `x*` does not match everywhere), within the search's
    time budget (raises PatternTooSlow past it)."""
    spans: list[tuple[int, int]] = []
    for match in deadline.finditer(pattern, text):
        if match.end() > match.start():
            spans.append(match.span())
            if len(spans) >= limit:
                break
    return spans


# -- what is searched ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One archived message and where it sits."""

    chunk: int
    message: Message
    # The full original of a tool output the live conversation holds only as a stub.
    original: bool


def chunk_entries(archive: ChunkArchive, number: int) -> list[Entry]:
    """Every message of a chunk in archive order: the folded ones, then the shrunk originals.
    Raises OSError or ChunkFormatError (a ValueError)."""
    folded, shrunk = archive.read_parts(number)
    return [
        *(Entry(number, message, False) for message in folded),
        *(Entry(number, message, True) for message in shrunk),
    ]


def unreadable_reason(exc: BaseException) -> str:
    """One line on why a chunk could not be read, without the file's full path."""
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return flat(str(exc)) or type(exc).__name__


def call_text(call: ToolCall) -> str:
    """A call's arguments as searched: JSON strings decoded (so quotes and newlines in a command
    or a written file match as typed), one `key: value` per line; raw text if not an object."""
    try:
        parsed = loads(call.arguments or "{}")
    except ModelJsonError:
        return call.arguments
    if not isinstance(parsed, dict):
        return call.arguments
    return "\n".join(
        f"{key}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
        for key, value in parsed.items()
    )


def message_fields(message: Message) -> list[tuple[str, str]]:
    """(label, text) of everything searched in a message: its content, then each tool call.
    Never the chunk file's markup, so `user` or `session` do not match every chunk."""
    fields = [("", message.content)] if message.content else []
    fields += [(f"call {call.name}", call_text(call)) for call in message.tool_calls]
    return fields


# -- hits ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """A message that matches: where its first match is, and how many matches it holds."""

    entry: Entry
    label: str  # the field of the first match: "" for the content, "call NAME" for arguments
    text: str  # that field's text
    spans: tuple[tuple[int, int], ...]  # the matches in that field
    count: int  # matches in the whole message (each field counted up to MAX_COUNTED_MATCHES)

    @property
    def first_match(self) -> str:
        start, end = self.spans[0]
        return self.text[start:end]

    def snippet(self) -> str:
        """One line around the first match, every whole match in view marked »like this«."""
        text = self.text
        first_start, first_end = self.spans[0]
        begin = max(0, first_start - SNIPPET_CONTEXT)
        end = min(len(text), first_end + SNIPPET_CONTEXT)
        pieces = ["…"] if begin > 0 else []
        pos = begin
        for start, stop in self.spans:
            if stop > end:
                break
            pieces.append(flat(text[pos:start]))
            shown = text[start:stop]
            if len(shown) > MAX_MATCH_SHOWN:
                shown = shown[:MAX_MATCH_SHOWN] + "…"
            pieces.append(f"{MARK_OPEN}{flat(shown)}{MARK_CLOSE}")
            pos = stop
        pieces.append(flat(text[pos:end]))
        if end < len(text):
            pieces.append("…")
        return "".join(pieces).strip()


def match(entry: Entry, query: Query, deadline: Deadline) -> Hit | None:
    """The message's hit, or None when it does not match the query."""
    fields = message_fields(entry.message)
    if query.required:
        combined = "\n".join(text for _, text in fields)
        if not all(find_spans(word, combined, deadline, limit=1) for word in query.required):
            return None
    first: tuple[str, str, list[tuple[int, int]]] | None = None
    count = 0
    for label, text in fields:
        spans = find_spans(query.pattern, text, deadline)
        if spans and first is None:
            first = (label, text, spans)
        count += len(spans)
    if first is None:
        return None
    label, text, spans = first
    return Hit(entry, label, text, tuple(spans), count)


@dataclass(frozen=True)
class SearchResult:
    """Every hit in chronological order (oldest chunk first, archive order within a chunk),
    and the chunks that could not be read, with why."""

    hits: list[Hit]
    skipped: list[tuple[int, str]]
    # Why the search stopped before the end (the pattern ran out of time), or None.
    stopped_early: str | None = None


def search(
    query: Query,
    numbers: Sequence[int],
    load: Callable[[int], Sequence[Entry]],
    stopped: Callable[[], bool] = lambda: False,
) -> SearchResult:
    """Runs the query over the messages of the chunks `numbers`, as `load` gives them (e.g.
    chunk_entries, or a cache of it). Raises SearchCancelled as soon as `stopped()` is true."""
    hits: list[Hit] = []
    skipped: list[tuple[int, str]] = []
    deadline = Deadline()
    for number in numbers:
        try:
            entries = load(number)
        except (OSError, ValueError) as exc:
            skipped.append((number, unreadable_reason(exc)))
            continue
        for entry in entries:
            if stopped():
                raise SearchCancelled
            try:
                hit = match(entry, query, deadline)
            except PatternTooSlow as exc:
                return SearchResult(hits, skipped, str(exc))
            if hit is not None:
                hits.append(hit)
    return SearchResult(hits, skipped)


# -- pages --------------------------------------------------------------------------------------


def split_pages(text: str, size: int, boundary: str = "\n", lookback: int = 0) -> list[str]:
    """The text in pieces of at most `size` characters, together exactly the text. A piece is
    cut right after the newline that starts the last `boundary` (which begins with "\\n") in
    its final `lookback` characters (a quarter of `size` when 0); without one, at the limit."""
    window = lookback or size // 4
    pieces: list[str] = []
    start = 0
    while len(text) - start > size:
        end = start + size
        cut = text.rfind(boundary, end - window, end)
        if cut > start:
            end = cut + 1
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return pieces


def pack_pages(blocks: Sequence[tuple[str, bool]], size: int, separator: str) -> list[list[str]]:
    """Blocks packed in order into pages of at most `size` characters, separators counted; a
    block larger than a page gets a page of its own, and a block flagged True ends its page."""
    pages: list[list[str]] = [[]]
    used = 0
    force_break = False
    for text, break_after in blocks:
        cost = len(text) + (len(separator) if pages[-1] else 0)
        if pages[-1] and (force_break or used + cost > size):
            pages.append([])
            used, cost = 0, len(text)
        pages[-1].append(text)
        used += cost
        force_break = break_after
    return pages
