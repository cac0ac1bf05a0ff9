"""[compaction] instructions and instructions_file: read once when the configuration loads (a
regular file, bounded, never blocking), joined, carried by every compression instruction; every
bad one is a one-line error naming the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.compaction.instruction import compression_instruction
from agent.compaction.policy import MAX_INSTRUCTIONS_CHARS, MAX_INSTRUCTIONS_FILE_BYTES
from agent.config import ConfigError, load_config


def configured(home: Path, table: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(f"[compaction]\n{table}\n")
    return path


def load_error(home: Path, table: str) -> str:
    configured(home, table)
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    message = str(info.value)
    assert "\n" not in message
    return message


def test_the_text_and_the_file_join_every_compression_instruction(pleat_home: Path) -> None:
    configured(pleat_home, 'instructions = "Keep port numbers."\ninstructions_file = "c.md"')
    (pleat_home / "c.md").write_text("Keep migration ids.\n")  # relative to config.toml's folder
    policy = load_config({}, environ={}).compaction
    assert policy.instructions == "Keep port numbers.\n\nKeep migration ids."
    text = compression_instruction(target_tokens=500, instructions=policy.instructions)
    assert "The user's instructions for every summary:\nKeep port numbers." in text
    assert "instructions" not in compression_instruction(target_tokens=500)


def test_a_bad_instructions_file_is_one_line_naming_it(pleat_home: Path) -> None:
    missing = load_error(pleat_home, 'instructions_file = "nowhere.md"')
    assert "compaction.instructions_file" in missing and "nowhere.md: cannot read" in missing
    os.mkfifo(pleat_home / "pipe")  # opened without blocking, refused without a read
    assert "pipe: not a regular file" in load_error(pleat_home, 'instructions_file = "pipe"')
    (pleat_home / "big.md").write_bytes(b"x" * (MAX_INSTRUCTIONS_FILE_BYTES + 1))
    assert "larger than" in load_error(pleat_home, 'instructions_file = "big.md"')
    (pleat_home / "bytes.md").write_bytes(b"\xff\xfe keep")
    assert "not UTF-8 text" in load_error(pleat_home, 'instructions_file = "bytes.md"')
    (pleat_home / "long.md").write_text("y" * MAX_INSTRUCTIONS_CHARS)
    joined = load_error(pleat_home, 'instructions = "z"\ninstructions_file = "long.md"')
    assert f"at most {MAX_INSTRUCTIONS_CHARS:,}" in joined
