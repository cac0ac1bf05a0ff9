"""The compaction policy: when to fold, what to keep, how big a summary; validated values."""

from __future__ import annotations

import dataclasses
import os
import stat
from dataclasses import dataclass, fields
from pathlib import Path

from sessions.lone_surrogates import has_lone_surrogate
from tools.output_limits import DEFAULT_OUTPUT_TOKENS, MIN_OUTPUT_TOKENS

# Characters of the user's instructions for every summary (`instructions` with the text of
# `instructions_file`): a page of guidance (about 1,000 tokens), since every compression call
# carries it and a small window must still fit the call.
MAX_INSTRUCTIONS_CHARS = 4_000
# Bytes read of `instructions_file` at most: MAX_INSTRUCTIONS_CHARS of the widest UTF-8 (four
# bytes a character); a bigger file is refused without being read whole.
MAX_INSTRUCTIONS_FILE_BYTES = 4 * MAX_INSTRUCTIONS_CHARS


class PolicyError(ValueError):
    """A policy value out of range; the message names the key."""


@dataclass(frozen=True)
class CompactionPolicy:
    """Every knob of compaction. Field names are the keys of the [compaction] config table."""

    # Fold when the context reaches this share of the usable window (window - reserved output).
    # 0.8 leaves room for one more large tool result before the provider would refuse.
    threshold: float = 0.8
    # Start the fold in the background when the context reaches this share of the threshold: the
    # compression call runs while the turn goes on, so at the threshold its summary is ready and
    # nobody waits for it. 0.8 starts it a few tool steps early in a typical session (a step
    # adds a few percent of the window); 1 starts it at the threshold (no background fold).
    early_fold_at: float = 0.8
    # Tokens kept free for the model's reply; capped at a quarter of the window so that small
    # windows (16k) keep most of their room for context.
    reserved_output_tokens: int = 8_192
    # The model's window in tokens; 0 = ask litellm (FALLBACK_CONTEXT_WINDOW if it does not know).
    context_window: int = 0
    # Fold also when the history has this many messages, however small: long histories make
    # every request slower to build and harder for the model to attend to. 0 = no cap.
    max_messages: int = 2_000
    # The recent tail kept verbatim: at most this many messages ...
    tail_messages: int = 12
    # ... and at most this many tokens (also capped at a quarter of the usable window).
    tail_tokens: int = 8_000
    # Summary length asked of the model: this share of the folded tokens, within [min, max]
    # (and never more than a tenth of the usable window, so a summary cannot refill it).
    summary_ratio: float = 0.2
    summary_min_tokens: int = 600
    summary_max_tokens: int = 6_000
    # Tool results in the kept tail larger than this many characters, and not among the newest
    # `fresh_tool_results`, are shrunk to a stub citing their archived copy (cheap tier).
    stale_tool_output_chars: int = 4_000
    fresh_tool_results: int = 2
    # A compaction that frees less than this share of the context suspends automatic
    # compaction until the context has grown by as much again: no fold-loops.
    min_gain: float = 0.15
    # Requests kept verbatim in the summary message, newest first, within this many characters.
    request_budget_chars: int = 4_000
    # Every tool result is cut to this share of the usable window (the model pages for the rest,
    # or reads the full text kept on disk): 0.2 lets five results sit side by side, and in
    # windows up to 40k keeps a result within the kept tail's quarter of the window (larger
    # results are pulled back whole through a fold, never folded unread); a 16k window still
    # shows about 150 lines of code per read.
    tool_output_share: float = 0.2
    # ... and never more than this many tokens, whatever the window: Claude Code's cap on one
    # file read; past it a single result costs more attention than it gives.
    tool_output_max_tokens: int = DEFAULT_OUTPUT_TOKENS
    # The user's own instructions, joined to every compression instruction (Codex's
    # compact_prompt): what every summary must keep or how to write it ...
    instructions: str = ""
    # ... and a file holding more of them (~ expanded; relative to config.toml's directory),
    # read when the configuration loads (agent/config.py), its text joined to `instructions`.
    instructions_file: str = ""

    def __post_init__(self) -> None:
        checks = {
            "threshold": 0.1 <= self.threshold <= 0.95,
            "early_fold_at": 0.3 <= self.early_fold_at <= 1.0,
            "reserved_output_tokens": 0 <= self.reserved_output_tokens <= 200_000,
            "context_window": self.context_window == 0 or self.context_window >= 2_048,
            "max_messages": self.max_messages == 0 or self.max_messages >= 10,
            "tail_messages": 1 <= self.tail_messages <= 1_000,
            "tail_tokens": 100 <= self.tail_tokens <= 1_000_000,
            "summary_ratio": 0.01 <= self.summary_ratio <= 0.9,
            "summary_min_tokens": 50 <= self.summary_min_tokens,
            "summary_max_tokens": self.summary_min_tokens <= self.summary_max_tokens,
            "stale_tool_output_chars": 200 <= self.stale_tool_output_chars,
            "fresh_tool_results": 0 <= self.fresh_tool_results <= 100,
            "min_gain": 0.0 <= self.min_gain < 1.0,
            "request_budget_chars": 0 <= self.request_budget_chars,
            "tool_output_share": 0.02 <= self.tool_output_share <= 0.5,
            "tool_output_max_tokens": MIN_OUTPUT_TOKENS <= self.tool_output_max_tokens,
        }
        for key, ok in checks.items():
            if not ok:
                raise PolicyError(f"compaction.{key} is out of range: {getattr(self, key)!r}")
        if len(self.instructions) > MAX_INSTRUCTIONS_CHARS:
            raise PolicyError(
                f"compaction.instructions (with instructions_file's text) is "
                f"{len(self.instructions):,} characters; at most {MAX_INSTRUCTIONS_CHARS:,}"
            )
        if has_lone_surrogate(self.instructions):
            raise PolicyError(
                "compaction.instructions holds an invalid character (a lone surrogate)"
            )

    @classmethod
    def keys(cls) -> list[str]:
        return [f.name for f in fields(cls)]


def with_instructions_file(policy: CompactionPolicy, base: Path) -> CompactionPolicy:
    """The policy with `instructions_file`'s text joined to its `instructions` (a relative
    path is taken from `base`, config.toml's directory). Raises PolicyError, one line."""
    if not policy.instructions_file:
        return policy
    path = Path(policy.instructions_file).expanduser()
    text = read_instructions_file(path if path.is_absolute() else base / path)
    joined = "\n\n".join(part for part in (policy.instructions.strip(), text) if part)
    return dataclasses.replace(policy, instructions=joined)


def read_instructions_file(path: Path) -> str:
    """A regular file's UTF-8 text, at most MAX_INSTRUCTIONS_FILE_BYTES read (a FIFO or a device
    is refused without blocking). Raises PolicyError naming the file."""
    where = f"compaction.instructions_file {path}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        why = getattr(error, "strerror", None) or error
        raise PolicyError(f"{where}: cannot read: {why}") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PolicyError(f"{where}: not a regular file")
        try:
            data = file.read(MAX_INSTRUCTIONS_FILE_BYTES + 1)
        except OSError as error:
            raise PolicyError(f"{where}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_INSTRUCTIONS_FILE_BYTES:
        raise PolicyError(f"{where}: larger than {MAX_INSTRUCTIONS_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise PolicyError(f"{where}: not UTF-8 text") from None


@dataclass(frozen=True)
class Budget:
    """The policy applied to one model's window: the token numbers the engine works with."""

    window: int
    usable: int  # window minus reserved output
    trigger_tokens: int
    early_tokens: int  # a background fold starts here (trigger_tokens: none)
    tail_tokens: int
    summary_cap: int
    tool_output_tokens: int  # the most one tool result may take

    @classmethod
    def of(
        cls,
        policy: CompactionPolicy,
        window: int,
        *,
        reserved_at_least: int = 0,
        reserved_at_most: int | None = None,
    ) -> Budget:
        """The numbers for `window`. The reply's reserve is the policy's (at most a quarter of
        the window), raised to `reserved_at_least` (a thinking budget and its answer, or the
        max_tokens a provider said it counts), lowered to `reserved_at_most` (the model's own
        output limit), and never more than half the window."""
        reserved = max(min(policy.reserved_output_tokens, window // 4), reserved_at_least)
        if reserved_at_most:
            reserved = min(reserved, reserved_at_most)
        reserved = min(reserved, window // 2)
        usable = window - reserved
        return cls(
            window=window,
            usable=usable,
            trigger_tokens=int(policy.threshold * usable),
            early_tokens=int(policy.early_fold_at * policy.threshold * usable),
            tail_tokens=min(policy.tail_tokens, usable // 4),
            summary_cap=max(
                policy.summary_min_tokens // 2, min(policy.summary_max_tokens, usable // 10)
            ),
            tool_output_tokens=max(
                MIN_OUTPUT_TOKENS,
                min(policy.tool_output_max_tokens, int(policy.tool_output_share * usable)),
            ),
        )

    @property
    def reserved(self) -> int:
        """Tokens kept free for the reply (the max_tokens sent where a provider needs one)."""
        return self.window - self.usable

    def summary_target(self, policy: CompactionPolicy, folded_tokens: int) -> int:
        wanted = int(folded_tokens * policy.summary_ratio)
        return max(min(policy.summary_min_tokens, self.summary_cap), min(wanted, self.summary_cap))
