"""Credentials in commits that are about to be pushed.

Before amelia pushes, every file the unpushed commits add or change is read from git (as
bytes, text or not) and searched for two things:

- the value of a secret this run was given (the job's token, a model key), spelled as it
  is, in base64 (at any alignment, so also inside a longer encoded string such as a basic
  auth header) or in hex: such a push is refused;
- a string shaped like a credential of a well-known kind (`TOKEN_KINDS`, the formats
  GitHub's push protection blocks that have a reliable shape, the same list the `Redactor`
  masks in what amelia posts and logs): such a push goes ahead,
  flagged, so that a person decides; what amelia posts itself (a held-back or unpushed
  patch) is not shown when it holds one.

Findings name the file and the kind, never the value. `mask_credentials` takes both out of
what amelia saves for an upload step (an artifact of a public repository's run can be
downloaded by anyone signed in to GitHub).
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from amelia.git.runner import run_git, run_git_bytes, split_paths
from amelia.git.value import Repo
from amelia.redaction.credentials import (
    CREDENTIAL_SHAPES,
    PRIVATE_KEY_BLOCK,
    CredentialShape,
    absent_needle_bytes,
)

__all__ = [
    "TOKEN_KINDS",
    "Leak",
    "LeakReport",
    "credential_kinds",
    "mask_credentials",
    "mask_secrets",
    "remote_tracking_commits",
    "scan_unpushed",
    "secret_spellings",
]

MIN_SECRET_LENGTH = 8
"""Shorter values would match ordinary text."""


TOKEN_KINDS: tuple[tuple[str, re.Pattern[bytes]], ...] = tuple(
    (shape.kind, shape.data) for shape in CREDENTIAL_SHAPES
)
"""(kind, pattern) of every credential shape (`amelia.redaction.credentials`, the list the
`Redactor` masks in what amelia posts), for bytes."""

_PRIVATE_KEY_BLOCK = re.compile(PRIVATE_KEY_BLOCK.encode("ascii"), re.DOTALL)
_MASKED: tuple[tuple[CredentialShape, re.Pattern[bytes]], ...] = tuple(
    (shape, _PRIVATE_KEY_BLOCK if shape.kind == "private key" else shape.data)
    for shape in sorted(CREDENTIAL_SHAPES, key=lambda shape: shape.kind != "private key")
)
"""What `mask_credentials` masks, each shape with the pattern it masks: a private key
first, from its first line to its last."""

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
    for spelling in _longest_first(tuple(secrets)):
        data = data.replace(spelling, mask)
    return data


@functools.lru_cache(maxsize=16)
def _longest_first(secrets: tuple[str, ...]) -> tuple[bytes, ...]:
    """The spellings of `secrets`, longest first; kept for the next call with the same
    secrets (a run's redactor masks with the same ones every time)."""
    spellings = {spelling for secret in secrets for spelling in secret_spellings(secret)}
    return tuple(sorted(spellings, key=len, reverse=True))


def credential_kinds(data: bytes) -> tuple[str, ...]:
    """The kinds of credential (`TOKEN_KINDS`) `data` holds a string shaped like.

    A shape's pattern runs only when one of its needles is in `data`, and a needle holding
    a byte `data` lacks is not even searched for (see `amelia.redaction.credentials`):
    100 MiB of zeros takes ~0.1 s, not ~5 s. 100 MiB of random bytes holds every needle's
    bytes and most short needles: ~25 s, nearly all of it the patterns of those shapes."""
    absent = absent_needle_bytes(data)
    return tuple(
        shape.kind
        for shape in CREDENTIAL_SHAPES
        if shape.may_be_in(data, absent=absent) and shape.data.search(data) is not None
    )


def mask_credentials(data: bytes, secrets: Iterable[str], *, mask: bytes = b"***") -> bytes:
    """`data` with every spelling of every secret masked (`mask_secrets`) and every string
    shaped like a credential (`TOKEN_KINDS`; a private key as a whole block) too.

    A shape's pattern runs only when one of its needles is in `data`; masking puts `mask`
    in and takes nothing out around it, so it forms no needle that was not there before."""
    data = mask_secrets(data, secrets, mask=mask)
    # Masking only takes bytes out and puts `mask` in: what was absent stays so but `mask`.
    absent = absent_needle_bytes(data) - frozenset(mask)
    for shape, pattern in _MASKED:
        if shape.may_be_in(data, absent=absent):
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
        for kind in credential_kinds(data):
            found_tokens.setdefault((path, kind), Leak(path, kind))
    return LeakReport(secrets=tuple(found_secrets.values()), tokens=tuple(found_tokens.values()))
