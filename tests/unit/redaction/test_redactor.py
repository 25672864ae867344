from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from amelia.core.state import ToolResult
from amelia.git import mask_credentials
from amelia.github.comments import render_tool_errors
from amelia.redaction import MASK, NeedleMemory, Redactor, secret_values
from amelia.redaction.credentials import CREDENTIAL_SHAPES, CredentialShape
from tests.unit.git.test_leaks import CREDENTIAL_SAMPLES

SECRET = st.text(alphabet=st.characters(codec="utf-8"), min_size=6, max_size=30)


def test_known_token_formats_are_masked() -> None:
    samples = [
        "ghp_" + "a" * 36,
        "gho_" + "B1" * 18,
        "ghs_" + "c" * 36,
        "ghu_" + "d" * 36,
        "ghr_" + "e" * 36,
        "github_pat_11ABCDEFG0_" + "x" * 59,
        "sk-ant-api03-" + "Z" * 40,
        "sk-" + "q" * 48,
        "sk-proj-" + "w" * 40,
        "sk-or-v1-" + "0f" * 32,
        "AKIAIOSFODNN7EXAMPLE",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
    ]
    redactor = Redactor()
    for token in samples:
        assert redactor.redact(f"token={token} end") == "token=*** end", token


@pytest.mark.parametrize("label", sorted(CREDENTIAL_SAMPLES))
def test_every_credential_shape_a_push_flags_is_masked_in_what_is_posted(label: str) -> None:
    """What amelia posts (a comment of failed tool calls) masks what it saves does."""
    value = CREDENTIAL_SAMPLES[label]
    text = f"$ cat config/settings.yml\nKEY: {value}\nexit 1"
    assert value not in mask_credentials(text.encode(), []).decode()
    assert value not in Redactor(secrets=["the-run-secret"]).redact(text)
    assigned = f"$ cat .env\nKEY={value}\nexit 1"
    assert value not in Redactor(secrets=["the-run-secret"]).redact(assigned)
    failed = ToolResult(
        agent="developer",
        tool_name="Bash",
        tool_input={"command": f"echo {value} && false"},
        output=text,
        is_error=True,
    )
    body = render_tool_errors([failed], Redactor(secrets=["the-run-secret"]))
    assert body is not None and MASK in body and value not in body


def test_ordinary_text_keeps_its_words() -> None:
    """What tool output is full of, and docs that name a key's prefix: nothing is masked."""
    text = (
        "Search your code for `sk_live_` and `rk_live_`, `glpat-` and `xoxb-` prefixes.\n"
        "ACCOUNT_KEY_SETTING_NAME = 'AccountKey'\nkey-value store, SKU SK-1234\n"
        "def acknowledge_the_request_and_continue_processing_the_queue(): ...\n"
        "commit 0a1b2c3d4e5f67890a1b2c3d4e5f67890a1b2c3d\n"
        "uuid 9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b\n"
        "FAILED tests/test_api.py::TestClient::test_fetch_users_returns_the_list - KeyError\n"
        "https://hooks.slack.com/services/ docs, dapi docs, npm_config_cache, hf_hub_download\n"
    )
    assert Redactor(secrets=["the-run-secret"]).redact(text) == text


@pytest.mark.parametrize("shape", CREDENTIAL_SHAPES, ids=lambda shape: shape.kind)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_match_of_a_shape_holds_one_of_its_needles(
    shape: CredentialShape, data: st.DataObject
) -> None:
    """The redactor skips a shape on a text without its needles: no match may lack one."""
    match = data.draw(st.from_regex(shape.text, fullmatch=True))
    assert any(needle in match for needle in shape.needles), match


@pytest.mark.parametrize(
    "shape", [shape for shape in CREDENTIAL_SHAPES if shape.gates], ids=lambda shape: shape.kind
)
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_every_match_of_a_gated_shape_opens_one_of_its_gates(
    shape: CredentialShape, data: st.DataObject
) -> None:
    """The redactor and the git layer skip a shape whose gates a text does not open."""
    match = data.draw(st.from_regex(shape.text, fullmatch=True))
    assert any(gate.search(match) for gate in shape.gates), match
    assert any(gate.search(match.encode()) for gate in shape.data_gates), match


def test_a_discord_token_is_masked_and_dotted_prose_is_passed_over() -> None:
    token = "MTA1NzI4NTMxNjQ0OTk0NTYwMA.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456"
    webhook = "https://discord.com/api/webhooks/123456/" + "a" * 64
    prose = "Version 1.2.3 of the tool. See docs/a.b.c and example.com for more."
    redactor = Redactor()
    assert redactor.redact(f"bot {token} end") == "bot *** end"
    assert redactor.redact(f"post to {webhook}") == "post to ***"
    assert redactor.redact(prose) == prose


def test_pem_bearer_authorization_and_url_credentials() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----"
    redactor = Redactor()
    assert redactor.redact(f"key:\n{pem}\nafter") == "key:\n***\nafter"
    assert redactor.redact("Authorization: Bearer abc.def-123456") == "Authorization: Bearer ***"
    assert redactor.redact("Authorization: token 0123456789abcdef") == "Authorization: token ***"
    assert (
        redactor.redact("git push https://x-access-token:s3cr3tv4lue@github.com/o/r")
        == "git push https://***@github.com/o/r"
    )


def test_exact_values_from_the_environment_are_masked() -> None:
    env = {
        "INPUT_OPENAI_API_KEY": "hunter2-value",
        "PATH": "/usr/bin",
        "MY_API_KEY": "opaque-42x",
        "INPUT_PLAN_DIR": "docs/plans",
    }
    redactor = Redactor(secrets=secret_values(env))
    assert redactor.redact("a hunter2-value b opaque-42x /usr/bin docs/plans") == (
        "a *** b *** /usr/bin docs/plans"
    )


def test_short_values_are_not_treated_as_secrets() -> None:
    assert Redactor(secrets=["abc"]).redact("abc abc") == "abc abc"


@settings(max_examples=300)
@given(st.lists(SECRET, min_size=1, max_size=4), st.lists(st.text(max_size=10), max_size=5))
def test_no_planted_secret_survives(secrets: list[str], filler: list[str]) -> None:
    text = "".join(f + s for f, s in zip(filler + [""] * len(secrets), secrets, strict=False))
    text += "".join(secrets)  # adjacent secrets
    redacted = Redactor(secrets=secrets).redact(text)
    for secret in secrets:
        assert secret not in redacted


@given(st.lists(SECRET, min_size=1, max_size=3), st.text(max_size=40))
def test_redaction_is_stable(secrets: list[str], text: str) -> None:
    redactor = Redactor(secrets=secrets)
    once = redactor.redact(text + secrets[0])
    assert redactor.redact(once) == once


def test_a_secret_learnt_at_run_time_is_masked_from_then_on() -> None:
    redactor = Redactor(secrets=["first-secret"])
    assert redactor.redact("late-token-value") == "late-token-value"
    redactor.add_secrets(["late-token-value", "short"])
    assert redactor.redact("first-secret late-token-value short") == "*** *** short"
    assert redactor.redact('{"k": "late-token-value"}') == '{"k": "***"}'


_TOKEN_PIECES = st.sampled_from(
    [
        "ghp_", "gho_", "ghs_", "github_pat_", "sk-", "sk-ant-", "sk-proj-", "AKIA", "ASIA",
        "eyJ", ".eyJ", "Bearer ", "BEARER\t", "authorization: token ", "AuthorIzation: Basic ",
        "authorızation: token ", "://", "user:pw@", "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----", "İ", "ı", "ſ", "\u212a", "Σ", "_", "-", " ", "\n",
        "0123456789abcdefXYZ", "q" * 20, "sk_live_", "glpat-", "xoxb-", "AIza", "npm_", "SG.",
        "hf_", "SK", "AC", "dckr_pat_", "dapi", "dop_v1_", "-us", "key-", "8Q~", "0f" * 16,
        "https://hooks.slack.com/services/", "MTA1NzI4NTMxNjQ0OTk0NTYwMA", ".GhIjKl.",
        "abcdefghijklmnopqrstuvwxyz0", "discord",
    ]
)  # fmt: skip


def _every_pattern_everywhere(text: str) -> str:
    """What masking did before the patterns were tried only on texts holding their needles."""
    from amelia.redaction.redactor import _TOKEN_PATTERNS

    while True:
        cleaned = text
        for token in _TOKEN_PATTERNS:
            cleaned = token.pattern.sub(token.replacement, cleaned)
        if cleaned == text:
            return cleaned
        text = cleaned


@settings(max_examples=400)
@example("Authorızation: token " + "q" * 20)
@example("x BEARER\t" + "q" * 20)
@example("ghs_" + "q" * 20 + "İ")
@given(st.lists(_TOKEN_PIECES | st.text(max_size=4), max_size=12).map("".join))
def test_looking_for_needles_first_masks_what_every_pattern_would(text: str) -> None:
    assert Redactor().redact(text) == _every_pattern_everywhere(text)


_PIECE_SECRETS = st.sampled_from(["run-secret-01", "sec},{ret-02", 'tok"en},03', "ghp_" + "k" * 36])


@settings(max_examples=400)
@example([["-----BEGIN RSA PRIVATE KEY-----", "},", "-----END RSA PRIVATE KEY-----"]], [])
@example([["x Bearer ", "q" * 20], ["https://user", "},", "pw@host"]], [])
@example([["sec", "},{", "ret-02"], ["tok", '"en},03']], ["sec},{ret-02", 'tok"en},03'])
@given(
    st.lists(
        st.lists(_TOKEN_PIECES | _PIECE_SECRETS | st.sampled_from(["},", "},{"]), max_size=6),
        max_size=6,
    ),
    st.lists(_PIECE_SECRETS, max_size=2),
)
def test_remembering_pieces_masks_what_searching_the_whole_text_does(
    messages: list[list[str]], secrets: list[str]
) -> None:
    """A conversation resent whole with each request, cut apart at `},` between its
    messages and inside them (a token or a secret may span the cut): the requests masked
    with the pieces of the earlier ones remembered are masked as each on its own."""
    redactor = Redactor(secrets=secrets)
    needles = NeedleMemory()
    history: list[str] = []
    for message in messages:
        history.append('"role":"user","content":"' + "".join(message) + '"')
        text = '{"messages":[{' + "},{".join(history) + '}],"tools":[]}'
        assert redactor.redact(text, needles=needles) == redactor.redact(text)


def test_a_secret_split_across_remembered_pieces_is_masked_as_a_whole() -> None:
    """The first request holds a private key's first line only, the next the rest of it
    in a later message: each is masked to the key's end, as without remembering."""
    needles = NeedleMemory()
    redactor = Redactor()
    first = '{"messages":[{"role":"tool","content":"-----BEGIN RSA PRIVATE KEY-----\\nMIIEow"}]}'
    second = first[:-2] + ',{"role":"tool","content":"abc\\n-----END RSA PRIVATE KEY-----"}]}'
    assert redactor.redact(first, needles=needles) == '{"messages":[{"role":"tool","content":"***'
    masked = redactor.redact(second, needles=needles)
    assert masked == '{"messages":[{"role":"tool","content":"***"}]}'
    assert "MIIEow" not in masked and "abc" not in masked
