"""redact(): every kind of secret is replaced, ordinary code is left exactly as it was."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessions.redact import REDACTED, redact

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAx3Y5mJ0eQ8n2b7Lk1q9nO0Rk5pYt9Zp3vQ\n"
    "k1q9nO0Rk5pYt9Zp3vQMIIEowIBAAKCAQEAx3Y5mJ0eQ8n2b7L\n"
    "-----END RSA PRIVATE KEY-----"
)

# (text, the secret in it, what must remain)
SECRETS = [
    (
        "key sk-abcdefghij0123456789ABCDEFGH here",
        "sk-abcdefghij0123456789ABCDEFGH",
        "key [REDACTED] here",
    ),
    ("sk-ant-api03-AbCdEf0123456789_xyz-QRS", "sk-ant-api03-AbCdEf0123456789_xyz-QRS", ""),
    ("sk-proj-AbCdEf1234567890GhIjKlMn", "sk-proj-AbCdEf1234567890GhIjKlMn", ""),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", ""),
    ("gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", ""),
    (
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzAB",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzAB",
        "",
    ),
    ("id=AKIAIOSFODNN7EXAMPLE;", "AKIAIOSFODNN7EXAMPLE", "id=[REDACTED];"),
    ("xoxb-1234567890-abcdefghijKLMN", "xoxb-1234567890-abcdefghijKLMN", ""),
    ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "AIzaSyA-1234567890abcdefghijklmnopqrstu", ""),
    (
        "jwt: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9P",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        "jwt: ",
    ),
    ("curl -H 'Authorization: Bearer abc123def456ghi789'", "abc123def456ghi789", "Bearer "),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "Basic "),
    ("got bearer 9f8e7d6c5b4a3210 back", "9f8e7d6c5b4a3210", "bearer "),
    (f"before\n{PEM}\nafter", "MIIEowIBAAKCAQEAx3Y5mJ0eQ8n2b7Lk1q9nO0Rk5pYt9Zp3vQ", "before\n"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAA", "b3BlbnNzaC1rZXktdjEAAA", ""),
    ("password=hunter2hunter2x9", "hunter2hunter2x9", "password="),
    ('password = "correct horse battery"', "correct horse battery", 'password = "'),
    ("api_key: abcdef1234567890", "abcdef1234567890", "api_key: "),
    ('{"api_key": "abcdef123456", "name": "x"}', "abcdef123456", '"name": "x"'),
    ("secret = 's3cr3t-value'", "s3cr3t-value", "secret = '"),
    ("token=abcDEF123456ghi", "abcDEF123456ghi", "token="),
    (
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS_SECRET_ACCESS_KEY=",
    ),
    ("  db_password: 'p@ss!w0rd#2024'", "p@ss!w0rd#2024", "  db_password: '"),
    ("export GITHUB_TOKEN=abcdef0123456789xyz", "abcdef0123456789xyz", "export GITHUB_TOKEN="),
    ('SECRET_KEY = "django-insecure-abc123"', "django-insecure-abc123", 'SECRET_KEY = "'),
    ("postgres://admin:s3cretpw@db:5432/app", "s3cretpw", "postgres://admin:"),
    ('password: Optional[str] = "hunter2hunter2"', "hunter2hunter2", "password: Optional[str] ="),
]

ORDINARY = [
    "def get_token(self):",
    "    return self._token",
    "password_field = forms.CharField()",
    "token_count = 5",
    "max_tokens: 4096",
    "tokenizer = 'bert-base-uncased'",
    "password = os.environ['DB_PASSWORD']",
    "secret = settings.SECRET_KEY",
    "if password == 'hunter2hunter2':",
    "token = self.tokenizer.encode(text2)",
    "api_key = None",
    "password: str",
    "password = getpass.getpass()",
    "    token = request.headers.get('X-Token')",
    "secret_key = config['secret_key']",
    "PASSWORD=${DB_PASSWORD}",
    "Bearer authentication is described in RFC 6750",
    "pip install scikit-learn  # sk-learn",
    "headers = {'Authorization': f'Bearer {token}'}",
    "for key, secret in pairs:",
    "git commit -m 'fix token refresh' && pytest tests/test_auth.py -k token",
    "https://example.com/path?page=2",
    "self.assertEqual(response.status_code, 401)",
    "AKIA is the prefix of AWS access key ids",
    "",
]


@pytest.mark.parametrize(("text", "secret", "kept"), SECRETS)
def test_secrets_are_redacted(text: str, secret: str, kept: str) -> None:
    out = redact(text)
    assert secret not in out
    assert REDACTED in out
    assert kept in out


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_code_is_untouched(text: str) -> None:
    assert redact(text) == text


def test_a_source_file_is_untouched() -> None:
    source = '''
class Settings:
    """Holds the token budget and the password policy."""

    max_tokens: int = 8192
    password_min_length = 12

    def refresh_token(self, token: str) -> str:
        secret_name = self.name + "_secret"
        return hashlib.sha256(token.encode()).hexdigest()
'''
    assert redact(source) == source


def test_known_secrets() -> None:
    assert redact("key=plainkey!! and plainkey!!", ["plainkey!!"]) == (
        f"key={REDACTED} and {REDACTED}"
    )
    assert redact("short abc1234 stays", ["abc1234"]) == "short abc1234 stays"
    # The longer of two overlapping secrets is replaced whole.
    assert redact("x longsecret-123-extra y", ["longsecret-123", "longsecret-123-extra"]) == (
        f"x {REDACTED} y"
    )
    # A "secret" that is part of the marker itself cannot make redaction loop or grow.
    assert redact("[REDACTED] REDACTED", ["REDACTED"]) == "[REDACTED] REDACTED"


def test_redaction_keeps_surrounding_text() -> None:
    text = "run: OPENAI_API_KEY=sk-abcdefghij0123456789ABCD python app.py --port 8080"
    assert redact(text) == f"run: OPENAI_API_KEY={REDACTED} python app.py --port 8080"


FRAGMENTS = [
    "sk-",
    "sk-ant-",
    "ghp_",
    "github_pat_",
    "AKIA",
    "xoxb-",
    "AIza",
    "eyJ",
    ".",
    "Bearer ",
    "Authorization: ",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "password",
    "api_key",
    "SECRET",
    "token",
    "=",
    ": ",
    '"',
    "'",
    "\n",
    " ",
    "://",
    "@",
    "[REDACTED]",
    "REDACTED",
    "abcdefgh",
    "0123456789",
    "ABCDEFGHIJKLMNOP",
    "\\",
]
secretish_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=25
).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=secretish_text, known=st.lists(st.text(min_size=0, max_size=12), max_size=3))
def test_redact_is_idempotent_and_never_raises(text: str, known: list[str]) -> None:
    once = redact(text, known)
    assert redact(once, known) == once
    for secret in known:
        if len(secret) >= 8 and secret not in REDACTED:
            assert secret not in once


def test_long_inputs_stay_fast() -> None:
    # Shapes that make naive patterns backtrack; the test finishing at all is the check.
    for text in (
        "password:" + " " * 50_000,
        "a" * 100_000,
        "sk-" * 30_000,
        '"password"' * 10_000,
        "bearer " * 20_000,
        "x://a:" * 20_000,
    ):
        redact(text)
