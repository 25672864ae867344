"""Credentials in commits that are about to be pushed.

Before amelia pushes, every file the unpushed commits add or change is read from git (as
bytes, text or not) and searched for two things:

- the value of a secret this run was given (the job's token, a model key), spelled as it
  is, in base64 (at any alignment, so also inside a longer encoded string such as a basic
  auth header) or in hex: such a push is refused;
- a string shaped like a credential of a well-known kind (`TOKEN_KINDS`, the formats
  GitHub's push protection blocks that have a reliable shape): such a push goes ahead,
  flagged, so that a person decides; what amelia posts itself (a held-back or unpushed
  patch) is not shown when it holds one.

Findings name the file and the kind, never the value. `mask_credentials` takes both out of
what amelia saves for an upload step (an artifact of a public repository's run can be
downloaded by anyone signed in to GitHub).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from amelia.git.runner import run_git, run_git_bytes, split_paths
from amelia.git.value import Repo

__all__ = [
    "TOKEN_KINDS",
    "Leak",
    "LeakReport",
    "mask_credentials",
    "mask_secrets",
    "remote_tracking_commits",
    "scan_unpushed",
    "secret_spellings",
]

MIN_SECRET_LENGTH = 8
"""Shorter values would match ordinary text."""


def _kind(name: str, pattern: bytes) -> tuple[str, re.Pattern[bytes]]:
    return name, re.compile(pattern)


TOKEN_KINDS: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    # GitHub
    _kind("GitHub token", rb"\bgh[pousr]_[A-Za-z0-9]{36,}"),
    _kind("GitHub fine-grained token", rb"\bgithub_pat_[A-Za-z0-9_]{60,}"),
    _kind(
        "GitHub secret scanning sample token",
        rb"\bsecret_scanning_ab85fc6f8d7638cf1c11da812da308d43_[0-9A-Za-z]{5}\b",
    ),
    # Model providers
    _kind("Anthropic API key", rb"\bsk-ant-[a-z0-9]+-[A-Za-z0-9_-]{20,}"),
    _kind(
        "OpenAI API key",
        rb"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"
        rb"|[A-Za-z0-9_-]{0,120}T3BlbkFJ[A-Za-z0-9_-]{10,})",
    ),
    _kind("OpenRouter API key", rb"\bsk-or-v1-[a-f0-9]{40,}"),
    _kind("Groq API key", rb"\bgsk_[A-Za-z0-9]{52}\b"),
    _kind("xAI API key", rb"\bxai-[A-Za-z0-9]{80}\b"),
    _kind("Replicate API token", rb"\br8_[A-Za-z0-9]{37}\b"),
    _kind("Hugging Face token", rb"\b(?:hf|api_org)_[A-Za-z]{34}\b"),
    # Clouds
    _kind("AWS access key id", rb"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    _kind("Google API key", rb"\bAIza[0-9A-Za-z_-]{35}\b"),
    _kind("Google OAuth client secret", rb"\bGOCSPX-[A-Za-z0-9_-]{28}\b"),
    _kind("Google OAuth token", rb"\bya29\.[0-9A-Za-z_-]{30,}|\b1//0[0-9A-Za-z_-]{40,}"),
    _kind(
        "Azure storage or service key in a connection string",
        rb"\bAccountKey=[A-Za-z0-9+/]{86}==|\bSharedAccessKey=[A-Za-z0-9+/]{42,43}=",
    ),
    _kind(
        # Microsoft's identifiable keys: a fixed signature at a fixed place in the key.
        "Azure identifiable key",
        rb"(?<![A-Za-z0-9+/=_-])(?:"
        rb"[A-Za-z0-9+/]{76}(?:\+ASt|ACDb|\+ABa|\+AMC|APIM)[A-Za-z0-9+/]{5}[AQgw]=="
        rb"|[A-Za-z0-9+/]{33}(?:\+ASb|\+AEh|\+ARm|AIoT|AzCa|AZEG)[A-P][A-Za-z0-9+/]{5}="
        rb"|[A-Za-z0-9+/]{42}\+ACR[A-D][A-Za-z0-9+/]{5}"
        rb"|[A-Za-z0-9_-]{44}AzFu[A-Za-z0-9_-]{5}[AQgw]=="
        rb"|[A-Za-z0-9]{42}AzSe[A-D][A-Za-z0-9]{5}"
        rb"|[A-Za-z0-9]{52}JQQJ9[9DH][A-Za-z0-9][A-L][A-Za-z0-9]{16}[A-Za-z][A-Za-z0-9]{7}"
        rb")(?![A-Za-z0-9+/=_-])",
    ),
    _kind(
        "Azure Entra ID client secret",
        rb"(?<![A-Za-z0-9_~.+/=-])[A-Za-z0-9_~.-]{3}[78]Q~[A-Za-z0-9_~.-]{31,34}"
        rb"(?![A-Za-z0-9_~.+/=-])",
    ),
    _kind("DigitalOcean token", rb"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    _kind("Databricks token", rb"\bdapi[0-9a-f]{32}(?:-\d)?\b"),
    _kind("HashiCorp Vault token", rb"\bhv[sb]\.[A-Za-z0-9_-]{90,}"),
    _kind("Terraform Cloud token", rb"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    _kind("Pulumi access token", rb"\bpul-[a-f0-9]{40}\b"),
    _kind("Doppler token", rb"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{40,}"),
    # Code hosting, CI and package registries
    _kind(
        "GitLab token",
        rb"\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|ffct|wt)-[0-9A-Za-z_.-]{20,}"
        rb"|\bGR1348941[0-9A-Za-z_-]{20,}",
    ),
    _kind("Atlassian API token", rb"\bATATT3[A-Za-z0-9_=-]{150,}"),
    _kind("Docker access token", rb"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}"),
    _kind("npm token", rb"\bnpm_[A-Za-z0-9]{36}\b"),
    _kind("PyPI token", rb"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    _kind("RubyGems API key", rb"\brubygems_[a-f0-9]{48}\b"),
    _kind(
        "NuGet API key",
        rb"\boy2[a-p][0-9a-z]{15}[aq][0-9a-z]{11}[eu][bdfhjlnprtvxz357][a-p][0-9a-z]{11}"
        rb"[aeimquy4]\b",
    ),
    _kind("crates.io token", rb"\bcio[A-Za-z0-9]{32}\b"),
    _kind("Postman API key", rb"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    _kind("Grafana token", rb"\bglc_[A-Za-z0-9+/]{32,}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b"),
    _kind("Sentry token", rb"\bsntry[su]_[A-Za-z0-9+/=_-]{40,}"),
    _kind("Linear API key", rb"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b"),
    _kind("Figma token", rb"\bfigd_[A-Za-z0-9_-]{40,}"),
    _kind("Notion token", rb"\bntn_[0-9]{11}[A-Za-z0-9]{35}\b"),
    # Payments, messaging, mail
    _kind("Stripe API key", rb"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}"),
    _kind("Stripe webhook secret", rb"\bwhsec_[A-Za-z0-9+/=]{32,}"),
    _kind("Shopify token", rb"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    _kind(
        "Slack token",
        rb"\bxox(?:[abposr]|e(?:\.xox[bp])?)-[0-9A-Za-z-]{10,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]+",
    ),
    _kind(
        "Slack webhook",
        rb"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
    ),
    _kind(
        "Discord token or webhook",
        rb"\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b"
        rb"|https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{60,}",
    ),
    _kind("Twilio account or API key id", rb"\b(?:AC|SK)[0-9a-f]{32}\b"),
    _kind("SendGrid API key", rb"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
    _kind("Brevo (Sendinblue) key", rb"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b"),
    _kind("Mailgun API key", rb"\bkey-[0-9a-f]{32}\b"),
    _kind("Mailchimp API key", rb"\b[0-9a-f]{32}-us[0-9]{1,2}\b"),
    # Keys
    _kind("private key", rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----"),
    _kind("PuTTY private key", rb"PuTTY-User-Key-File-\d+: "),
)
"""Credential formats with a recognisable shape, by name: those GitHub's push protection
blocks (its "supported secret scanning patterns") whose shape is reliable enough to match
without the provider's checksum, and a few more that are credentials as plainly (Stripe
restricted keys, Slack and Discord webhooks). Generic shapes (a password in a database
URL, any 88-character base64 string) are left out: ordinary code is full of them."""

_PRIVATE_KEY_BLOCK = re.compile(
    rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
    rb"(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
    re.DOTALL,
)
_CREDENTIAL_SHAPES: tuple[re.Pattern[bytes], ...] = (
    _PRIVATE_KEY_BLOCK,
    *(pattern for kind, pattern in TOKEN_KINDS if kind != "private key"),
)
"""What `mask_credentials` masks: a private key from its first line to its last."""

_ZERO = "0" * 40


@dataclass(frozen=True)
class Leak:
    """A file that holds a credential: where, and what kind (never the value)."""

    path: str
    kind: str


@dataclass(frozen=True, kw_only=True)
class LeakReport:
    """What `scan_unpushed` found: values of the run's secrets (refuse the push) and
    token-shaped strings (flag them)."""

    secrets: tuple[Leak, ...] = ()
    tokens: tuple[Leak, ...] = ()


def _base64_cores(data: bytes) -> set[bytes]:
    """Pieces of the base64 spelling of `data` that appear whatever precedes or follows it
    in a longer encoded string (one per alignment), in the standard and URL alphabets."""
    cores = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data)
        start = (offset * 4 + 2) // 3
        end = (offset + len(data)) * 8 // 6
        core = encoded[start:end]
        if len(core) >= MIN_SECRET_LENGTH:
            cores.add(core)
            cores.add(core.translate(bytes.maketrans(b"+/", b"-_")))
    return cores


def secret_spellings(secret: str) -> set[bytes]:
    """The byte strings that give `secret` away: as it is, in base64 and in hex."""
    raw = secret.encode("utf-8")
    if len(raw) < MIN_SECRET_LENGTH:
        return set()
    return {raw, raw.hex().encode(), raw.hex().upper().encode(), *_base64_cores(raw)}


def mask_secrets(data: bytes, secrets: Iterable[str], *, mask: bytes = b"***") -> bytes:
    """`data` with every spelling of every secret (see `secret_spellings`) replaced."""
    spellings = sorted(
        {spelling for secret in secrets for spelling in secret_spellings(secret)},
        key=len,
        reverse=True,
    )
    for spelling in spellings:
        data = data.replace(spelling, mask)
    return data


def mask_credentials(data: bytes, secrets: Iterable[str], *, mask: bytes = b"***") -> bytes:
    """`data` with every spelling of every secret masked (`mask_secrets`) and every string
    shaped like a credential (`TOKEN_KINDS`; a private key as a whole block) too."""
    data = mask_secrets(data, secrets, mask=mask)
    for pattern in _CREDENTIAL_SHAPES:
        data = pattern.sub(mask, data)
    return data


def _unpushed_blobs(
    repo: Repo, branch: str, published: Sequence[str] | None
) -> list[tuple[str, str]]:
    """(path, blob id) of every file the commits of `branch` that no commit of
    `published` (None: no remote-tracking ref) holds add or change, each pair once."""
    if published is None:
        args, given = ["--not", "--remotes"], None
    else:
        args, given = ["--stdin"], "".join(f"^{sha}\n" for sha in published).encode()
    commits = run_git(
        ["rev-list", "--reverse", f"refs/heads/{branch}", *args], repo, input=given
    ).split()
    found: dict[tuple[str, str], None] = {}
    for commit in commits:
        raw = run_git_bytes(
            ["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--root", commit], repo
        )
        fields = split_paths(raw)
        # -z raw output: ":<modes> <ids> <status>" then the path, for each file.
        for meta, path in zip(fields[::2], fields[1::2], strict=False):
            parts = meta.split()
            if len(parts) >= 5 and parts[3] != _ZERO and parts[4] != "D":
                found[(path, parts[3])] = None
    return list(found)


def _blob_contents(repo: Repo, blobs: Iterable[str]) -> dict[str, bytes]:
    wanted = list(dict.fromkeys(blobs))
    if not wanted:
        return {}
    out = run_git_bytes(["cat-file", "--batch"], repo, input="\n".join(wanted).encode() + b"\n")
    contents: dict[str, bytes] = {}
    position = 0
    for blob in wanted:
        header_end = out.index(b"\n", position)
        header = out[position:header_end].split()
        size = int(header[2]) if len(header) == 3 else 0
        contents[blob] = out[header_end + 1 : header_end + 1 + size]
        position = header_end + 1 + size + 1
    return contents


def remote_tracking_commits(repo: Repo) -> tuple[str, ...]:
    """The commits the remote-tracking refs name now: what the server had when amelia last
    fetched or pushed (record it before agents can write `.git/`)."""
    listed = run_git(["for-each-ref", "--format=%(objectname)", "refs/remotes"], repo)
    return tuple(dict.fromkeys(listed.split()))


def scan_unpushed(
    repo: Repo,
    branch: str,
    *,
    secrets: Iterable[str],
    published: Sequence[str] | None = None,
) -> LeakReport:
    """Search every file the unpushed commits of `branch` add or change for the values of
    `secrets` and for token-shaped strings.

    Unpushed means not reachable from `published`, commits known to be on the server;
    without it, from no remote-tracking ref (which anyone who can write `.git/` can add,
    so pass `published` when agents could)."""
    spellings = {secret: secret_spellings(secret) for secret in secrets}
    blobs = _unpushed_blobs(repo, branch, published)
    contents = _blob_contents(repo, (blob for _path, blob in blobs))
    found_secrets: dict[str, Leak] = {}
    found_tokens: dict[tuple[str, str], Leak] = {}
    for path, blob in blobs:
        data = contents.get(blob, b"")
        if any(spelling in data for variants in spellings.values() for spelling in variants):
            found_secrets.setdefault(path, Leak(path, "the value of a secret of this run"))
            continue
        for kind, pattern in TOKEN_KINDS:
            if pattern.search(data):
                found_tokens.setdefault((path, kind), Leak(path, kind))
    return LeakReport(secrets=tuple(found_secrets.values()), tokens=tuple(found_tokens.values()))
