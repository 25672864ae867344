"""Credentials in commits about to be pushed: a secret of the run's refuses the push, a
string shaped like a credential is flagged; findings name files, never values."""

from __future__ import annotations

import base64
import random
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amelia.git import (
    Leak,
    credential_kinds,
    mask_credentials,
    mask_secrets,
    scan_unpushed,
    secret_spellings,
)
from amelia.redaction.credentials import CREDENTIAL_SHAPES, NEEDLE_BYTES, absent_needle_bytes
from tests.git_helpers import IDENTITY, git, init_repo

SECRET = "ghs_" + "RunTokenOfThisJob0123456789abcdefghij"
MODEL_KEY = "sk-ant-api03-" + "ModelKeyOfThisRun0123456789abcdefgh"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    seed = init_repo(tmp_path / "seed", {"README.md": f"# demo\n{MODEL_KEY}\n"})
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "-b", "amelia/issue-1")
    return clone


def _commit(repo: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    git(repo, "add", "--all")
    git(repo, *IDENTITY, "commit", "-qm", "change")


def test_secret_values_in_any_spelling_are_found_in_every_unpushed_commit(repo: Path) -> None:
    basic = base64.b64encode(f"x-access-token:{SECRET}".encode()).decode()
    _commit(repo, {"raw.txt": f"token = {SECRET}\n".encode()})
    _commit(repo, {"header.py": f'HEADER = "AUTHORIZATION: basic {basic}"\n'.encode()})
    _commit(repo, {"hex.txt": SECRET.encode().hex().encode(), "data.bin": b"\0\1" + basic.encode()})
    # Removed again later: still in the history that would be pushed.
    (repo / "raw.txt").unlink()
    _commit(repo, {"clean.py": b"ok = 1\n"})

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET, "short"])

    assert sorted(leak.path for leak in report.secrets) == [
        "data.bin",
        "header.py",
        "hex.txt",
        "raw.txt",
    ]
    assert all(SECRET not in leak.kind for leak in report.secrets)


def test_token_shaped_strings_are_flagged_and_pushed_history_is_not_searched(
    repo: Path,
) -> None:
    # README.md on main holds MODEL_KEY already: it is pushed, not this run's change.
    _commit(
        repo,
        {"config.py": b'KEY = "ghp_' + b"A" * 36 + b'"\n', "keys/k.txt": b"AKIAABCDEFGHIJKLMNOP"},
    )

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET])

    assert report.secrets == ()
    assert sorted(report.tokens, key=lambda leak: leak.path) == [
        Leak("config.py", "GitHub token"),
        Leak("keys/k.txt", "AWS access key id"),
    ]


def test_masking_removes_every_spelling() -> None:
    basic = base64.b64encode(f"x-access-token:{SECRET}".encode())
    data = b"a " + SECRET.encode() + b" b " + basic + b" c " + SECRET.encode().hex().encode()

    masked = mask_secrets(data, [SECRET])

    assert not any(spelling in masked for spelling in secret_spellings(SECRET))
    assert masked.startswith(b"a *** b ")


def test_a_commit_hidden_behind_a_remote_tracking_ref_or_a_replacement_is_still_searched(
    repo: Path,
) -> None:
    """What an agent can write in `.git/`: a remote-tracking ref naming its commit (so it
    looks pushed already) and a `refs/replace/` entry showing other contents for the blob
    (which a push ignores). amelia's search, given the commits it knew were on the
    server, still finds the secret."""
    published = [git(repo, "rev-parse", "HEAD").strip()]
    _commit(repo, {"leak.txt": f"token = {SECRET}\n".encode()})
    secret_blob = git(repo, "rev-parse", "HEAD:leak.txt").strip()
    (repo / "clean.txt").write_text("token = nothing\n")
    clean_blob = git(repo, "hash-object", "-w", "clean.txt").strip()
    (repo / "clean.txt").unlink()
    git(repo, "replace", secret_blob, clean_blob)
    git(repo, "update-ref", "refs/remotes/origin/looks-pushed", "HEAD")
    _commit(repo, {"clean.py": b"ok = 1\n"})

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET], published=published)

    assert [leak.path for leak in report.secrets] == ["leak.txt"]


def _alnum(count: int, *, seed: str = "Qx7") -> str:
    """`count` characters of a made-up token body (letters and digits, never a real key)."""
    return (seed + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z" * 8)[:count]


def _hex(count: int) -> str:
    return ("0a1b2c3d4e5f6789" * 8)[:count]


# Made-up values in each provider's published shape, spelled in pieces so that this file
# holds none of them whole.
CREDENTIAL_SAMPLES: dict[str, str] = {
    "Stripe API key": "sk_" + "live_51H8x" + _alnum(90),
    "Stripe API key (restricted)": "rk_" + "live_51H8x" + _alnum(90),
    "Stripe API key (test)": "sk_" + "test_4eC39" + _alnum(24),
    "Stripe webhook secret": "whsec_" + _alnum(32),
    "GitLab token": "glpat-" + "xY7z" + _alnum(16),
    "GitLab token (deploy)": "gldt-" + _alnum(20),
    "Slack token": "xoxb-" + "1234567890-1234567890123-" + _alnum(24),
    "Slack token (user)": "xoxp-" + "1234567890-1234567890-1234567890123-" + _hex(32),
    "Slack webhook": "https://hooks.slack.com/services/" + "T0AAAAAAA/B0BBBBBBB/" + _alnum(24),
    "Twilio account or API key id": "AC" + _hex(32),
    "Twilio account or API key id (API key)": "SK" + _hex(32),
    "SendGrid API key": "SG." + _alnum(22) + "." + _alnum(43, seed="Zz"),
    "npm token": "npm_" + _alnum(36),
    "PyPI token": "pypi-" + "AgEIcHlwaS5vcmc" + _alnum(60),
    "Azure storage or service key in a connection string": (
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        + _alnum(86)
        + "==;EndpointSuffix=core.windows.net"
    ),
    "Azure storage or service key in a connection string (service bus)": (
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;"
        "SharedAccessKey=" + _alnum(43) + "="
    ),
    "Azure identifiable key": _alnum(76) + "+AS" + "t" + _alnum(5) + "A==",
    "Azure Entra ID client secret": "abc" + "8Q~" + _alnum(34),
    "private key": "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
    "private key (PGP)": "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\n",
    "OpenAI API key": "sk-" + _alnum(20) + "T3Blbk" + "FJ" + _alnum(20),
    "Hugging Face token": "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "DigitalOcean token": "dop_v1_" + _hex(64),
    "Databricks token": "dapi" + _hex(32),
    "Shopify token": "shpat_" + _hex(32),
    "Docker access token": "dckr_pat_" + _alnum(27),
    "Google OAuth client secret": "GOCSPX-" + _alnum(28),
    "HashiCorp Vault token": "hvs." + _alnum(95),
    "GitHub secret scanning sample token": (
        "secret_scanning_" + "ab85fc6f8d7638cf1c11da812da308d43_" + _alnum(5)
    ),
}


@pytest.mark.parametrize("label", sorted(CREDENTIAL_SAMPLES))
def test_credential_formats_push_protection_blocks_are_flagged_by_kind(
    repo: Path, label: str
) -> None:
    value = CREDENTIAL_SAMPLES[label]
    _commit(repo, {".github/workflows/deploy.yml": f"env:\n  KEY: {value}\n".encode()})

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET])

    kind = label.split(" (")[0]
    assert report.tokens == (Leak(".github/workflows/deploy.yml", kind),)
    assert all(value not in leak.kind for leak in report.tokens)


@pytest.mark.parametrize("label", sorted(CREDENTIAL_SAMPLES))
def test_a_credential_assigned_in_an_env_file_is_flagged_and_masked(repo: Path, label: str) -> None:
    value = CREDENTIAL_SAMPLES[label]
    data = f"export KEY={value}\nOTHER='{value}'\n".encode()
    _commit(repo, {".env.example": data})

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET])

    assert report.tokens == (Leak(".env.example", label.split(" (")[0]),)
    assert value.encode() not in mask_credentials(data, [])


def test_ordinary_content_is_not_flagged(repo: Path) -> None:
    """What repositories are full of: lockfile hashes, UUIDs, commit ids, base64 data, long
    identifiers, and docs that name a key's prefix. None of it is a credential."""
    rng = random.Random(7)
    lock = "".join(
        f'"integrity": "sha512-{base64.b64encode(rng.randbytes(64)).decode()}",\n'
        for _ in range(200)
    )
    hashes = "".join(f"sha256:{rng.randbytes(32).hex()}\n" for _ in range(200))
    ids = "".join(
        f"{uuid.UUID(int=rng.getrandbits(128))} {rng.randbytes(20).hex()}\n" for _ in range(200)
    )
    blob = base64.b64encode(rng.randbytes(20_000))
    text = (
        "Search your code for `sk_live_` and `rk_live_`, `glpat-` and `xoxb-` prefixes.\n"
        "ACCOUNT_KEY_SETTING_NAME = 'AccountKey'\nkey-value store, SKU SK-1234\n"
        "def acknowledge_the_request_and_continue_processing_the_queue(): ...\n"
        "export PGPASSWORD=$PGPASSWORD  # postgres://user:${PASSWORD}@db/app\n"
    )
    _commit(
        repo,
        {
            "package-lock.json": lock.encode(),
            "uv.lock": hashes.encode(),
            "ids.txt": ids.encode(),
            "image.b64": blob,
            "README.md": text.encode(),
        },
    )

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET])

    assert report.tokens == ()


def test_mask_credentials_masks_secrets_and_every_credential_shape() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    google = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"
    data = f"a={token}\nb={google}\nc={SECRET}\n{key}\nkept\n".encode()

    masked = mask_credentials(data, [SECRET])

    assert masked == b"a=***\nb=***\nc=***\n***\nkept\n"
    # A private key cut off before its last line is masked to the end.
    assert mask_credentials(b"x\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE", []) == b"x\n***"


def _every_shape_everywhere(data: bytes) -> bytes:
    """What masking did before a shape's pattern ran only on data holding its needles."""
    from amelia.git.leaks import _MASKED

    for _shape, pattern in _MASKED:
        data = pattern.sub(b"***", data)
    return data


_SHAPE_PIECES = st.sampled_from(
    [
        *(needle.encode() for shape in CREDENTIAL_SHAPES for needle in shape.needles),
        b"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", b"0f" * 16, b"q" * 20, b"\0", b"\xff",
        b"\n", b" ", b"-", b"_", b".", b"/", b"=", b"-----END RSA PRIVATE KEY-----",
        b"MTA1NzI4NTMxNjQ0OTk0NTYwMA", b".GhIjKl.", b"abcdefghijklmnopqrstuvwxyz0",
    ]
)  # fmt: skip


@settings(max_examples=400)
@given(st.lists(_SHAPE_PIECES | st.binary(max_size=4), max_size=14).map(b"".join))
def test_looking_for_needles_first_masks_what_every_shape_would(data: bytes) -> None:
    assert mask_credentials(data, []) == _every_shape_everywhere(data)
    expected = [shape.kind for shape in CREDENTIAL_SHAPES if shape.data.search(data)]
    assert list(credential_kinds(data)) == expected


def test_a_credential_at_the_end_of_a_large_binary_file_is_found_and_masked() -> None:
    # Files over 100 MiB take the same path (tests/modes/test_push_refusals.py).
    token = b"ghp_" + b"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    data = bytes(8 * 1024 * 1024) + b"\n" + token + b"\n"

    assert credential_kinds(data) == ("GitHub token",)
    masked = mask_credentials(data, [SECRET])
    assert masked.endswith(b"\n***\n") and len(masked) == len(data) - len(token) + 3


@pytest.mark.parametrize(
    "filler",
    [b"\0", b"12.5,3,0.001\n", b"def f(x):\n    return x + 1\n"],
    ids=["zeros", "numbers", "code"],
)
def test_a_large_file_passes_over_only_the_needles_holding_a_byte_it_lacks(filler: bytes) -> None:
    data = filler * (2**20 // len(filler) + 1)
    assert absent_needle_bytes(data) == NEEDLE_BYTES - set(filler)
    for shape in CREDENTIAL_SHAPES:
        for needle in shape.needles:
            planted = data + b" " + needle.encode() + b" "
            absent = absent_needle_bytes(planted)
            assert not absent & set(needle.encode())
            assert shape.may_be_in(planted, absent=absent) == shape.may_be_in(planted)
    # Below 1 MiB every needle is searched.
    assert absent_needle_bytes(filler * 1000) == frozenset()
