"""Inputs an attacker crafts, shared by the unit and end-to-end tests of hostile input."""

from __future__ import annotations

# Arguments that crashed whatever parsed them, each with the words its error must hold.
HOSTILE_ARGUMENTS = {
    "huge integer": ('{"path": "a.txt", "offset": 1' + "0" * 5_000 + "}", "5,001 digits"),
    "deep nesting": ('{"path": ' + "[" * 10_000 + "]" * 10_000 + "}", "nested more than 64"),
    "infinity": ('{"path": "a.txt", "limit": 1e999}', "out of range"),
    "nan": ('{"path": "a.txt", "limit": NaN}', "NaN is not a JSON value"),
    "not json": ('{"path": "a.txt", ', "Expecting"),
    "too long": ('{"path": "' + "a" * (5 * 1024 * 1024) + '"}', "characters of JSON"),
}
