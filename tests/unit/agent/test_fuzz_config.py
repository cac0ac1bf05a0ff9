"""Fuzzing load_config: any TOML file, any bytes, any environment give a Config or a ConfigError."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent.compaction.policy import CompactionPolicy
from agent.config import COMPACTION, ENV_PREFIX, Config, ConfigError, load_config

# Examples per property: a load takes ~0.2 ms plus a file write, so 300 cost well under a
# second each and reach every key with every kind of value many times.
EXAMPLES = 300
# Fixed seeds, no example database: the same inputs on every run and every machine.
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# Slow (hypothesis fuzzing): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Every setting's key, and every key of the [compaction] table.
SETTINGS = [f.name for f in dataclasses.fields(Config) if f.name != COMPACTION]
POLICY_KEYS = CompactionPolicy.keys()
# Names that are no setting (typos, other tools' keys), so unknown keys are exercised too.
UNKNOWN_KEYS = ["modle", "Model", "api-key", "", " ", "ünïcode", "compaction.threshold"]

# Any unicode text that can be encoded (TOML files are UTF-8), short.
TEXT = st.text(st.characters(codec="utf-8"), max_size=20)
# Values as a person would write them and as a fuzzer would: numbers at and past every
# bound, nan/inf, the wrong types, nested structures, dates.
SCALARS = st.one_of(
    TEXT,
    st.sampled_from(["http://localhost:8000/v1", "https://x", "openai/gpt-4o", "0.5", "true"]),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-3, 300_000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(0, 1),
    st.booleans(),
    st.dates(),
)


def plausible(kind: type) -> st.SearchStrategy[Any]:
    """Values of a key's own type in its usual range, so that many documents load and the
    checks on good values run too (half the draws), not only the refusals."""
    if kind is int:
        return st.integers(0, 300_000)
    if kind is float:
        return st.floats(0, 1) | st.floats(0, 1_000)
    return st.sampled_from(["openai/gpt-4o", "http://localhost:8000/v1", "sk-x"])


def field_types(schema: type) -> dict[str, type]:
    """Each field's type: int, float or (for the optional strings) str."""
    kinds = {"int": int, "float": float}
    return {f.name: kinds.get(str(f.type), str) for f in dataclasses.fields(schema)}


SETTING_TYPES = {k: v for k, v in field_types(Config).items() if k != COMPACTION}
POLICY_TYPES = field_types(CompactionPolicy)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(POLICY_KEYS), inner)
    ),
    max_leaves=5,
)


def toml_value(value: Any) -> str:
    """A value in TOML syntax (enough of TOML for these documents)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        # JSON escapes are TOML escapes, except that TOML wants DEL escaped too.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_key(key: str) -> str:
    return toml_value(key)


def toml_document(doc: Mapping[str, Any], table: Mapping[str, Any] | None) -> str:
    lines = [f"{toml_key(k)} = {toml_value(v)}" for k, v in doc.items()]
    if table is not None:
        lines += [
            f"[{COMPACTION}]",
            *(f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()),
        ]
    return "\n".join(lines) + "\n"


@contextmanager
def config_file(data: bytes) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as home:
        path = Path(home) / "config.toml"
        path.write_bytes(data)
        yield path


def assert_sound(config: Config) -> None:
    """A Config that came back holds only values its checks allow."""
    assert config.model is None or isinstance(config.model, str)
    assert config.api_base is None or config.api_base.startswith(("http://", "https://"))
    assert type(config.max_tool_iterations) is int and config.max_tool_iterations >= 1
    assert type(config.max_retries) is int and 0 <= config.max_retries <= 10
    assert 0 < config.command_timeout <= 600
    assert config.request_timeout > 0
    assert isinstance(config.compaction, CompactionPolicy)
    CompactionPolicy(**dataclasses.asdict(config.compaction))  # still passes its own checks


def load(**kwargs: Any) -> Config | None:
    """load_config, with ConfigError as None; anything else propagates and fails the test."""
    try:
        config = load_config(**kwargs)
    except ConfigError as error:
        assert str(error), "a ConfigError always says what is wrong"
        event("ConfigError")
        return None
    assert_sound(config)
    event("Config")
    return config


@st.composite
def entries(draw: st.DrawFn, types: dict[str, type]) -> dict[str, Any]:
    """Some keys (known and unknown), each with a plausible value or any value at all."""
    keys = draw(st.lists(st.sampled_from([*types, *UNKNOWN_KEYS]), unique=True, max_size=5))
    return {k: draw(plausible(types.get(k, str)) | VALUES) for k in keys}


@FUZZ
@given(doc=entries(SETTING_TYPES), table=st.none() | entries(POLICY_TYPES))
def test_any_toml_document_gives_a_config_or_a_config_error(
    doc: dict[str, Any], table: dict[str, Any] | None
) -> None:
    text = toml_document(doc, table)
    parsed = tomllib.loads(text)  # the generator writes valid TOML
    assert set(parsed) == set(doc) | ({COMPACTION} if table is not None else set())
    with config_file(text.encode()) as path:
        load(flags={}, environ={}, path=path)


@FUZZ
@given(st.one_of(st.binary(max_size=200), TEXT.map(str.encode)))
def test_any_bytes_as_the_config_file_give_a_config_or_a_config_error(data: bytes) -> None:
    with config_file(data) as path:
        load(flags={}, environ={}, path=path)


ENV_NAMES = st.one_of(
    st.sampled_from(SETTINGS + UNKNOWN_KEYS).map(lambda k: ENV_PREFIX + k.upper()),
    st.sampled_from(POLICY_KEYS + UNKNOWN_KEYS).map(
        lambda k: f"{ENV_PREFIX}{COMPACTION.upper()}_{k.upper()}"
    ),
    st.sampled_from([f"{ENV_PREFIX}{COMPACTION.upper()}", "PLEAT_HOME", "PATH", ENV_PREFIX]),
    TEXT.map(lambda t: ENV_PREFIX + t),
)
ENV_VALUES = st.one_of(
    TEXT,
    SCALARS.map(str),
    plausible(int).map(str),
    plausible(float).map(str),
    st.sampled_from(["", " 3 ", "1e400", "0x10", "yes", "1_000"]),
)


@FUZZ
@given(environ=st.dictionaries(ENV_NAMES, ENV_VALUES, max_size=6))
def test_any_environment_gives_a_config_or_a_config_error(environ: dict[str, str]) -> None:
    with config_file(b"") as path:
        load(flags={}, environ=environ, path=path)


@FUZZ
@given(
    flags=st.dictionaries(
        st.sampled_from([*SETTINGS, COMPACTION]),
        st.one_of(st.none(), TEXT, st.integers(-5, 10**6), st.dictionaries(TEXT, TEXT)),
        max_size=4,
    )
)
def test_any_command_line_flags_give_a_config_or_a_config_error(flags: dict[str, Any]) -> None:
    with config_file(b"") as path:
        load(flags=flags, environ={}, path=path)


def test_an_unreadable_config_file_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A config file that cannot be read used to escape as a raw OSError."""

    def refuse(*args: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied")

    with config_file(b'model = "m"\n') as path:
        monkeypatch.setattr(Path, "read_text", refuse)
        with pytest.raises(ConfigError, match="cannot read: Permission denied"):
            load_config({}, environ={}, path=path)


def test_the_compaction_variable_next_to_its_keys_is_a_config_error() -> None:
    """PLEAT_COMPACTION beside PLEAT_COMPACTION_<KEY> used to raise TypeError (found here)."""
    for environ in (
        {"PLEAT_COMPACTION": "x", "PLEAT_COMPACTION_THRESHOLD": "0.5"},
        {"PLEAT_COMPACTION_THRESHOLD": "0.5", "PLEAT_COMPACTION": "x"},
    ):
        with pytest.raises(ConfigError, match="PLEAT_COMPACTION must be a table"):
            load_config({}, environ=environ, path=Path("/nonexistent/config.toml"))
