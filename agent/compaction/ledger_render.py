"""The ledger as Markdown for the summary message: files, commands, the last error, and the
user's requests verbatim within their budget."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.compaction.ledger import CUT_NOTE, MIN_REQUEST_PREVIEW, Ledger


def _inline_code(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _file_line(label: str, files: Sequence[str], dropped: int) -> str | None:
    if not files:
        return None
    line = f"{label}: {', '.join(files)}"
    return line + (f" (and {dropped} earlier, not listed)" if dropped else "")


def _quoted_request(message_id: str, text: str) -> str:
    body = "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))
    return f"{message_id}:\n{body}"


def _render_requests(ledger: Ledger, budget: int) -> list[str]:
    """Newest requests that fit the budget, oldest of them first, the others counted."""
    kept: list[str] = []
    used = 0
    for message_id, text in reversed(ledger.requests):
        block = _quoted_request(message_id, text)
        if used + len(block) > budget:
            if not kept:  # the newest request always shows, cut to the budget
                room = budget - len(_quoted_request(message_id, CUT_NOTE))
                cut = text[: max(room, MIN_REQUEST_PREVIEW)].rstrip() + CUT_NOTE
                kept.append(_quoted_request(message_id, cut))
            break
        kept.append(block)
        used += len(block) + 1
    earlier = len(ledger.requests) - len(kept) + ledger.requests_dropped
    lines = []
    if earlier:
        noun = "request is" if earlier == 1 else "requests are"
        lines.append(f"({earlier} earlier {noun} in the archive)")
    return lines + list(reversed(kept))


def render_ledger(ledger: Ledger, *, request_budget_chars: int) -> str:
    """Markdown for the summary message; sections with nothing to say are left out."""
    parts = [
        _file_line("Files read", ledger.files_read, ledger.files_read_dropped),
        _file_line("Files written", ledger.files_written, ledger.files_written_dropped),
        _file_line("Files edited", ledger.files_edited, ledger.files_edited_dropped),
    ]
    if ledger.commands:
        lines = ["Commands (exit code):"]
        if ledger.commands_dropped:
            lines.append(f"- ({ledger.commands_dropped} earlier commands not listed)")
        for text, code in ledger.commands:
            lines.append(f"- {_inline_code(text)} ({'?' if code is None else code})")
        parts.append("\n".join(lines))
    if ledger.last_error:
        parts.append(f"Last error: {ledger.last_error}")
    if ledger.requests or ledger.requests_dropped:
        requests = _render_requests(ledger, max(request_budget_chars, 0))
        parts.append("Your requests, verbatim:\n" + "\n".join(requests))
    return "\n".join(p for p in parts if p)
