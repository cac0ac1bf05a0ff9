"""Settings precedence (defaults < file < environment < flags) and clear errors naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Config, ConfigError, config_path, load_config


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text)
    return path


def test_defaults_without_any_source(pleat_home: Path) -> None:
    config = load_config({}, environ={})
    assert config == Config()
    assert config_path() == pleat_home / "config.toml"


def test_precedence_file_then_env_then_flags(pleat_home: Path) -> None:
    write_config(pleat_home, 'model = "file/m"\napi_base = "http://file:1/v1"\nmax_retries = 1\n')
    env = {"PLEAT_MODEL": "env/m", "PLEAT_MAX_RETRIES": "2"}
    config = load_config({"model": "flag/m", "api_base": None}, environ=env)
    assert config.model == "flag/m"  # flag beats env and file
    assert config.max_retries == 2  # env beats file
    assert config.api_base == "http://file:1/v1"  # a flag left unset does not erase the file


def test_unknown_key_in_file_is_named(pleat_home: Path) -> None:
    path = write_config(pleat_home, 'modle = "typo"\n')
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    assert "'modle'" in str(info.value) and str(path) in str(info.value)


def test_unknown_environment_setting_is_named() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={"PLEAT_MODLE": "x"})
    assert "PLEAT_MODLE" in str(info.value)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("max_tool_iterations = 0\n", "max_tool_iterations"),
        ('max_tool_iterations = "many"\n', "max_tool_iterations"),
        ("max_retries = 99\n", "max_retries"),
        ("command_timeout = -1\n", "command_timeout"),
        ('api_base = "localhost:8000"\n', "api_base"),
        ("model = 5\n", "model"),
        ("max_retries = true\n", "max_retries"),
    ],
)
def test_bad_values_are_named(pleat_home: Path, text: str, key: str) -> None:
    write_config(pleat_home, text)
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    assert key in str(info.value)


def test_bad_environment_value_names_the_variable() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={"PLEAT_MAX_RETRIES": "lots"})
    assert "PLEAT_MAX_RETRIES" in str(info.value)


def test_invalid_toml_is_a_clear_error(pleat_home: Path) -> None:
    path = write_config(pleat_home, "model = \n")
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    assert "not valid TOML" in str(info.value) and str(path) in str(info.value)


def test_numbers_from_environment_are_converted() -> None:
    config = load_config(
        {}, environ={"PLEAT_COMMAND_TIMEOUT": "30", "PLEAT_MAX_TOOL_ITERATIONS": "7"}
    )
    assert config.command_timeout == 30.0 and config.max_tool_iterations == 7


def test_no_model_configured_says_how_to_configure() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={}).model_settings()
    assert "--model" in str(info.value) and "PLEAT_MODEL" in str(info.value)


def test_api_key_is_never_in_repr() -> None:
    config = load_config({"api_key": "sk-secret-123", "model": "m"}, environ={})
    assert "sk-secret-123" not in repr(config)
    assert "sk-secret-123" not in repr(config.model_settings())


def test_compaction_table_from_file_env_and_flags(pleat_home: Path) -> None:
    write_config(pleat_home, "[compaction]\nthreshold = 0.7\ntail_messages = 6\n")
    env = {"PLEAT_COMPACTION_TAIL_MESSAGES": "8", "PLEAT_COMPACTION_MIN_GAIN": "0.2"}
    config = load_config({"compaction": {"context_window": "16000"}}, environ=env)
    policy = config.compaction
    assert (policy.threshold, policy.tail_messages, policy.min_gain) == (0.7, 8, 0.2)
    assert policy.context_window == 16_000


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[compaction]\nthreshhold = 0.7\n", "compaction.threshhold"),
        ("[compaction]\nthreshold = 1.5\n", "compaction.threshold"),
        ('[compaction]\ntail_messages = "six"\n', "compaction.tail_messages"),
        ("[compaction]\nsummary_min_tokens = 900\nsummary_max_tokens = 8\n", "summary_max"),
        ("compaction = 3\n", "compaction"),
    ],
)
def test_bad_compaction_settings_are_named(pleat_home: Path, text: str, needle: str) -> None:
    write_config(pleat_home, text)
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    assert needle in str(info.value)


def test_unknown_compaction_variable_is_named() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={"PLEAT_COMPACTION_TRESHOLD": "0.5"})
    assert "PLEAT_COMPACTION_TRESHOLD" in str(info.value)


def test_local_model_servers_from_file_and_environment(pleat_home: Path) -> None:
    assert Config().local_model_servers == (
        "http://localhost:11434",
        "http://localhost:1234/v1",
        "http://localhost:8000/v1",
        "http://localhost:8080/v1",
    )
    write_config(pleat_home, 'local_model_servers = ["http://gpu-box:11434", "http://x:1/v1"]\n')
    assert load_config({}, environ={}).local_model_servers == (
        "http://gpu-box:11434",
        "http://x:1/v1",
    )
    env = {"PLEAT_LOCAL_MODEL_SERVERS": " http://a:1/v1 , http://b:2 "}
    assert load_config({}, environ=env).local_model_servers == ("http://a:1/v1", "http://b:2")
    none = load_config({}, environ={"PLEAT_LOCAL_MODEL_SERVERS": ""})
    assert none.local_model_servers == ()


# -- permission mode and rules -----------------------------------------------------------------


def test_permission_mode_from_file_env_and_flag(pleat_home: Path) -> None:
    write_config(pleat_home, 'permission_mode = "plan"\n')
    assert load_config({}, environ={}).permission_mode == "plan"
    env = {"PLEAT_PERMISSION_MODE": "accept-edits"}
    assert load_config({}, environ=env).permission_mode == "accept-edits"
    assert load_config({"permission_mode": "full-auto"}, environ=env).permission_mode == (
        "full-auto"
    )


@pytest.mark.parametrize(
    ("claude", "pleat"),
    [("default", "ask"), ("acceptEdits", "accept-edits"), ("bypassPermissions", "full-auto"),
     ("dontAsk", "ask"), ("plan", "plan")],
)  # fmt: skip
def test_claude_codes_mode_names_are_taken_as_pleats(
    pleat_home: Path, claude: str, pleat: str
) -> None:
    write_config(pleat_home, f'permission_mode = "{claude}"\n')
    assert load_config({}, environ={}).permission_mode == pleat
    env = {"PLEAT_PERMISSION_MODE": claude}
    assert load_config({}, environ=env).permission_mode == pleat
    assert load_config({"permission_mode": claude}, environ={}).permission_mode == pleat


@pytest.mark.parametrize("source", ["file", "env", "flag"])
def test_an_unknown_permission_mode_is_one_line(pleat_home: Path, source: str) -> None:
    if source == "file":
        write_config(pleat_home, 'permission_mode = "yolo"\n')
    env = {"PLEAT_PERMISSION_MODE": "yolo"} if source == "env" else {}
    flags = {"permission_mode": "yolo"} if source == "flag" else {}
    with pytest.raises(ConfigError) as info:
        load_config(flags, environ=env)
    message = str(info.value)
    assert "ask, accept-edits, plan, full-auto" in message and "'yolo'" in message
    assert "acceptEdits" in message and "auto," not in message  # Claude's auto has no match
    assert "\n" not in message


def test_rules_from_every_source_add_up(pleat_home: Path) -> None:
    """Lists of rules add up (a --deny flag must not drop the file's deny rules); each rule is
    kept in its plain form."""
    write_config(
        pleat_home,
        'allow = ["run_command(pytest *)", "run_command(git   status)"]\n'
        'deny = ["run_command(rm *)"]\n',
    )
    env = {"PLEAT_DENY": '["run_command(git push *)"]', "PLEAT_ALLOW": "[]"}
    config = load_config({"deny": ["write_file(.env)"], "allow": None}, environ=env)
    assert config.allow == ("run_command(pytest *)", "run_command(git status)")
    assert config.deny == ("run_command(rm *)", "run_command(git push *)", "write_file(.env)")


def test_added_directories_from_every_source_add_up(pleat_home: Path) -> None:
    """config.toml's, then PLEAT_ADD_DIRS's (separated as PATH is: a name may hold a comma),
    then the flags'; checked later, at start (agent/permissions/added_dirs.py)."""
    write_config(pleat_home, 'add_dirs = ["~/notes", "../shared"]\n')
    env = {"PLEAT_ADD_DIRS": "/srv/a,b:/srv/c"}
    config = load_config({"add_dirs": ["/flag/d"]}, environ=env)
    assert config.add_dirs == ("~/notes", "../shared", "/srv/a,b", "/srv/c", "/flag/d")
    with pytest.raises(ConfigError, match="add_dirs must be a list of strings"):
        write_config(pleat_home, "add_dirs = 3\n")
        load_config({}, environ={})


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('local_model_servers = "localhost:11434"\n', "http(s) URLs"),
        ("local_model_servers = [1, 2]\n", "a list of strings"),
        ("local_model_servers = 5\n", "a list of strings"),
    ],
)
def test_bad_local_model_servers_are_named(pleat_home: Path, text: str, needle: str) -> None:
    write_config(pleat_home, text)
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    assert "local_model_servers" in str(info.value) and needle in str(info.value)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('allow = "run_command(pytest *)"\n', "must be a list of rules"),
        ("allow = [1]\n", "must be a list of rules"),
        ('deny = ["run_command()"]\n', "deny[0] 'run_command()' is not a rule: empty pattern"),
        ('deny = ["ok", "run_command(rm *"]\n', "deny[1] 'run_command(rm *' is not a rule"),
        ('allow = ["(pytest)"]\n', "allow[0] '(pytest)' is not a rule"),
    ],
)
def test_bad_rules_in_the_file_are_one_line(pleat_home: Path, text: str, needle: str) -> None:
    path = write_config(pleat_home, text)
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    message = str(info.value)
    assert needle in message and str(path) in message and "\n" not in message


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("run_command(pytest *)", "PLEAT_ALLOW must be a TOML array of rules"),
        ('["run_command(pytest *)"', "PLEAT_ALLOW must be a TOML array of rules"),
        ("[1, 2]", "PLEAT_ALLOW must be a list of rules"),
        ('["run_command()"]', "PLEAT_ALLOW[0] 'run_command()' is not a rule"),
    ],
)
def test_bad_rules_in_the_environment_are_one_line(value: str, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={"PLEAT_ALLOW": value})
    assert needle in str(info.value) and "\n" not in str(info.value)
