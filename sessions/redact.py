"""Replace secret-looking values (API keys, tokens, passwords, private keys) with [REDACTED]."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from sessions.messages import Message
from sessions.secret_names import MIN_KNOWN_SECRET_CHARS

REDACTED = "[REDACTED]"
# A replacement can expose a neighbour to a pattern (a token now preceded by "]" instead of a
# letter); passes repeat until nothing changes. Two passes settle any real text; the cap only
# guards against a pathological input ever looping.
MAX_PASSES = 4
# Quoted assignment values shorter than this are kept: "", "none", "changeme" placeholders
# and short labels are common in code; real secrets are longer.
MIN_QUOTED_SECRET_CHARS = 8
# Unquoted assignment values must be at least this long (and mix letters and digits) to count
# as secrets, so `token_count = 5` or `password = None` stay as they are.
MIN_UNQUOTED_SECRET_CHARS = 12
# Longest type annotation between a name and its `=` (`password: Optional[str] =`): real ones
# are short, and the bound keeps the pattern linear on long lines of spaces.
MAX_ANNOTATION_CHARS = 60

# PEM private key blocks, whole; an unterminated block (output cut short) is redacted to the
# end of the text, since everything after BEGIN is key material.
_PEM = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----"
    r"(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|.*\Z)",
    re.DOTALL,
)

# Well-known token formats, matched on their own wherever they appear. Each is bounded on both
# sides by a character that cannot be part of the token, so a longer word is never cut.
_TOKEN_PATTERNS = (
    # OpenAI / Anthropic / OpenRouter style: sk-..., sk-ant-..., sk-proj-...; at least one
    # digit, so prose like "sk-learn-compatible-models" survives.
    r"sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}",
    # GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens.
    r"gh[pousr]_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    # AWS access key ids (long-term AKIA, temporary ASIA): 4 letters + 16 upper/digits.
    r"(?:AKIA|ASIA)[A-Z0-9]{16}",
    # Slack bot, app, user, refresh and legacy tokens.
    r"xox[abprs]-[A-Za-z0-9-]{10,}",
    # Google API keys: AIza + 35 characters.
    r"AIza[A-Za-z0-9_-]{35}",
    # JSON web tokens: base64url header and payload (both JSON objects, so "eyJ"), signature.
    r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
)
_TOKENS = re.compile(r"(?<![A-Za-z0-9_-])(?:" + "|".join(_TOKEN_PATTERNS) + r")(?![A-Za-z0-9_-])")

# An Authorization header's credentials, whatever the scheme (Bearer, Basic, Token).
_AUTH_HEADER = re.compile(
    r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)\s+)[^\s\"',;]+"
)
# "Bearer <token>" elsewhere (curl -H, logs): the token must hold a digit, so prose such as
# "Bearer authentication" is kept.
_BEARER = re.compile(r"(?i)(\bbearer\s+)(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}")

# Passwords inside URLs: scheme://user:password@host.
_URL_PASSWORD = re.compile(r"(://[^:/\s@]+:)[^@\s/]+(@)")

# Names that hold secrets: the sensitive word may be prefixed (DB_PASSWORD, self.api_key,
# AWS_SECRET_ACCESS_KEY) and followed only by a short suffix (_key, _value), so names that
# merely contain the word (tokenizer, password_field, token_count, get_token) do not count.
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]*?"
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth[_-]?key|credentials?)"
    r"(?:[_-]?(?:key|value|id|string))?"
)
# A type annotation between the name and `=` (`password: Optional[str] = ...`).
_ANNOTATION = rf"\s*:\s*[A-Za-z_][\w.\[\]|, ]{{0,{MAX_ANNOTATION_CHARS}}}?\s*=(?!=)"
# The separator: =, :, := or =>, never == (a comparison).
_SEPARATOR = r"\s*(?::=|=>|[:=])(?!=)"
# A quoted value (double or single quotes, backslash escapes inside) or a bare run that ends
# where a value ends in code, env files, YAML and JSON.
_VALUE = (
    r"\"(?P<dq>(?:[^\"\\\n]|\\.)*)\"|'(?P<sq>(?:[^'\\\n]|\\.)*)'"
    r"|(?P<bare>[^\s\"'`,;(){}\[\]<>]+)(?=[\s\"'`,;)}\]>]|\Z)"
)
# name (optionally quoted, as JSON and YAML keys are), annotation or separator, then the value,
# which _assignment() classifies; only the value is ever replaced.
_ASSIGNMENT = re.compile(
    r"(?i)(?<![A-Za-z0-9_.-])"
    rf"(?P<lead>(?P<q>[\"']?){_SECRET_NAME}(?P=q)(?:{_ANNOTATION}|{_SEPARATOR})[ \t]*)"
    rf"(?:{_VALUE})"
)
# An unquoted value that is a dotted name (os.environ.get, settings.SECRET_KEY2) is code.
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\Z")


def _assignment(match: re.Match[str]) -> str:
    quoted, quote = match.group("dq"), '"'
    if quoted is None:
        quoted, quote = match.group("sq"), "'"
    if quoted is not None:
        if len(quoted) < MIN_QUOTED_SECRET_CHARS or quoted.isdigit():
            return match.group(0)
        return f"{match.group('lead')}{quote}{REDACTED}{quote}"
    bare = match.group("bare")
    looks_secret = (
        len(bare) >= MIN_UNQUOTED_SECRET_CHARS
        and any(c.isalpha() for c in bare)
        and any(c.isdigit() for c in bare)
        and not _DOTTED_NAME.match(bare)
    )
    return match.group("lead") + REDACTED if looks_secret else match.group(0)


def _known_pattern(known_secrets: Iterable[str]) -> re.Pattern[str] | None:
    # Longest first, so a secret that contains another is replaced whole. A "secret" that is
    # part of the marker itself would make redaction grow the text forever: skipped.
    secrets = sorted(
        {s for s in known_secrets if len(s) >= MIN_KNOWN_SECRET_CHARS and s not in REDACTED},
        key=len,
        reverse=True,
    )
    if not secrets:
        return None
    return re.compile("|".join(re.escape(s) for s in secrets))


def _one_pass(text: str, known: re.Pattern[str] | None) -> str:
    if known is not None:
        text = known.sub(REDACTED, text)
    text = _PEM.sub(REDACTED, text)
    text = _TOKENS.sub(REDACTED, text)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + m.group(2), text)
    return _ASSIGNMENT.sub(_assignment, text)


def redact(text: str, known_secrets: Iterable[str] = ()) -> str:
    """The text with every secret-looking value replaced by [REDACTED]; names are kept
    (`API_KEY=[REDACTED]`) so the reader still knows what was there."""
    known = _known_pattern(known_secrets)
    for _ in range(MAX_PASSES):
        redacted = _one_pass(text, known)
        if redacted == text:
            break
        text = redacted
    return text


class KnownSecrets:
    """Exact values to keep off disk (the configured API key): replaced by [REDACTED] in what
    the journal and the archive write, while every other character stays verbatim."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._pattern = _known_pattern(secrets)
        # The same secrets as UTF-8 bytes, to look for them in files (checkpoints).
        self._bytes = None if self._pattern is None else re.compile(self._pattern.pattern.encode())

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """The text with every known secret replaced (repeated: a replacement can make a new
        occurrence out of the marker and its neighbours, for a secret built that way)."""
        if self._pattern is None:
            return text
        for _ in range(MAX_PASSES):
            redacted = self._pattern.sub(REDACTED, text)
            if redacted == text:
                break
            text = redacted
        return text

    def found_in(self, data: bytes) -> bool:
        """Whether `data` holds one of the secrets (in UTF-8)."""
        return self._bytes is not None and self._bytes.search(data) is not None

    def value(self, value: Any) -> Any:
        """A JSON-like value (a journal record) with every string in it redacted."""
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.value(k): self.value(v) for k, v in value.items()}
        return value

    def message(self, message: Message) -> Message:
        """A message with its text, tool-call arguments, metadata and image paths redacted."""
        if self._pattern is None:
            return message
        calls = tuple(
            dataclasses.replace(call, arguments=self.text(call.arguments))
            for call in message.tool_calls
        )
        reasoning = message.reasoning_content
        return dataclasses.replace(
            message,
            content=None if message.content is None else self.text(message.content),
            tool_calls=calls,
            meta=self.value(message.meta),
            thinking_blocks=tuple(self.value(dict(b)) for b in message.thinking_blocks),
            reasoning_content=None if reasoning is None else self.text(reasoning),
            images=tuple(
                dataclasses.replace(image, source=self.text(image.source))
                for image in message.images
            ),
        )
