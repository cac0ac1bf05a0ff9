"""Parsing JSON the model wrote (tool-call arguments), with limits checked before json's own.

Python's json raises ValueError on an integer of more than 4,300 digits, RecursionError on
10,000 levels of nesting, and turns `1e999` into infinity: none of which is a JSONDecodeError,
so each crashed whatever parsed a hostile call (the headless renderer, resume, /compact). Here
every such input is one ModelJsonError with a line that says what is wrong.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# Characters of one tool call's arguments: a write_file of a large source file is a few hundred
# KB, and a model's whole reply is bounded by its output limit (~128k tokens, ~512 KB); 4 MiB
# is far past any real call and bounds what parsing one may cost.
MAX_JSON_CHARS = 4 * 1024 * 1024
# Nesting levels: the tools' arguments are at most three deep (an object holding a list of
# objects); 64 leaves room for any schema while staying far from the interpreter's recursion
# limit (json recurses once per level).
MAX_DEPTH = 64
# Digits of an integer: the largest safe JSON integer (2**53) has 16, a 64-bit one 19; past 20
# no argument means anything, and past 4,300 Python refuses to convert it at all.
MAX_INT_DIGITS = 20

# A JSON string (skipped whole) or one bracket: what the nesting check scans for.
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class ModelJsonError(ValueError):
    """JSON from the model that cannot or must not be parsed; the message is one line."""


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest bracket nesting of `text` outside strings, counted up to `limit` + 1."""
    depth = deepest = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
        elif token in "]}":
            depth -= 1
    return deepest


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ModelJsonError(
            f"an integer of {len(digits.lstrip('-')):,} digits (at most {MAX_INT_DIGITS})"
        )
    return int(digits)


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ModelJsonError(f"the number {text[:40]} is out of range")
    return value


def _constant(name: str) -> float:
    raise ModelJsonError(f"{name} is not a JSON value")


def loads(text: str, max_chars: int = MAX_JSON_CHARS) -> Any:
    """The value of the JSON `text` (of at most `max_chars` characters: a caller reading a file
    bigger than a tool call's arguments gives its own cap). Raises ModelJsonError, and nothing
    else."""
    if len(text) > max_chars:
        raise ModelJsonError(f"{len(text):,} characters of JSON, more than {max_chars:,}")
    if nesting_depth(text) > MAX_DEPTH:
        raise ModelJsonError(f"nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, parse_int=_integer, parse_float=_number, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise ModelJsonError(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ModelJsonError:
        raise
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ModelJsonError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
