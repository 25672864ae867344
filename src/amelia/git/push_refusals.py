"""What GitHub says when it refuses a push, read so that amelia can act on it.

GitHub refuses these pushes in these words (git prefixes the server's own lines with
`remote: `; the reason in brackets follows the refused ref):

- a change to a workflow file by a token without the permission to change workflows:
  `! [remote rejected] <branch> -> <branch> (refusing to allow a GitHub App to create or
  update workflow `.github/workflows/ci.yml` without `workflows` permission)`; for an OAuth
  App's token or a personal access token `… an OAuth App …` / `… a Personal Access Token …
  without `workflow` scope`. One workflow file is named, the first one GitHub met.
- a file over 100 MB: `remote: error: File big.bin is 101.00 MB; this exceeds GitHub's file
  size limit of 100.00 MB`, `remote: error: GH001: Large files detected. …`, then
  `(pre-receive hook declined)`. Every such file is named.
- a secret found by secret scanning's push protection: `remote: error GH009: Secrets
  detected! This push failed.` (or `GH013: Repository rule violations found …` with
  `Push cannot contain secrets`), each finding with its `commit: <sha>` and
  `path: <file>:<line>`, then `(push declined due to a detected secret)`.

`read_refusal` tells these apart from any other refusal (a ruleset, branch protection, a
rule GitHub adds later), which amelia cannot foresee: for those it only has GitHub's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from amelia.errors import GitError
from amelia.git.runner import run_git_bytes
from amelia.git.value import Repo

__all__ = ["PushRefusal", "RefusalKind", "SecretLocation", "read_refusal", "secret_lines"]

RefusalKind = Literal["workflow", "too_large", "secret", "other"]
"""What GitHub refused: workflow files, files over its size limit, what its push
protection took for a secret, or something else (a ruleset, branch protection, …)."""

_WORKFLOW = re.compile(
    r"refusing to allow (?P<who>an? [^`()\n]+?) to create or update workflow "
    r"`(?P<path>[^`\n]+)` without `(?P<grant>workflows?)` (?:permission|scope)"
)
_TOO_LARGE = re.compile(
    r"File (?P<path>.+?) is (?P<size>[\d.]+ [KMG]B); this exceeds GitHub's file size limit"
    r"(?: of [\d.]+ [KMG]B)?"
)
_SECRET_MARKERS = (
    "gh009",
    "secrets detected",
    "push cannot contain secrets",
    "github push protection",
    "push declined due to a detected secret",
)
_LOCATION = re.compile(
    r"-\s*commit:\s*(?P<commit>[0-9a-f]{7,64})\s*\n\s*path:\s*(?P<path>.+?):(?P<line>\d+)\s*$",
    re.MULTILINE,
)
_REJECTED = "[remote rejected]"


@dataclass(frozen=True)
class SecretLocation:
    """Where push protection saw a secret: the commit, the file and the line (1-based)."""

    commit: str
    path: str
    line: int


@dataclass(frozen=True, kw_only=True)
class PushRefusal:
    """One refused push as GitHub explained it."""

    kind: RefusalKind
    files: tuple[str, ...] = ()
    """The files GitHub named (workflow or too large; for secrets see `locations`)."""
    token_kind: str = ""
    """For a workflow refusal, whose token it was in GitHub's words ("a GitHub App", "an
    OAuth App", "a Personal Access Token")."""
    locations: tuple[SecretLocation, ...] = ()
    said: str = ""
    """GitHub's own sentence about the refused files (workflow, too large)."""


def _server_text(stderr: str) -> str:
    """git's output with the `remote:` prefix taken off the server's lines (and the
    padding GitHub adds after them)."""
    lines = []
    for line in stderr.splitlines():
        text = line.removeprefix("remote:") if line.startswith("remote:") else line
        lines.append(text.rstrip())
    return "\n".join(lines)


def read_refusal(stderr: str) -> PushRefusal | None:
    """What a failed push's output says GitHub refused; None when the server refused
    nothing (the push failed another way: the network, a rebase)."""
    text = _server_text(stderr)
    lowered = text.lower()
    if any(marker in lowered for marker in _SECRET_MARKERS):
        locations = tuple(
            SecretLocation(found["commit"], found["path"].strip(), int(found["line"]))
            for found in _LOCATION.finditer(text)
        )
        files = tuple(dict.fromkeys(location.path for location in locations))
        return PushRefusal(kind="secret", files=files, locations=locations)
    workflows = list(_WORKFLOW.finditer(text))
    if workflows:
        files = tuple(dict.fromkeys(found["path"] for found in workflows))
        who = workflows[0]["who"].strip()
        said = workflows[0].group(0)
        return PushRefusal(kind="workflow", files=files, token_kind=who, said=said)
    large = list(_TOO_LARGE.finditer(text))
    if large and "gh001" in lowered:
        files = tuple(dict.fromkeys(found["path"] for found in large))
        said = " ".join(found.group(0) for found in large)
        return PushRefusal(kind="too_large", files=files, said=said)
    if _REJECTED in text or "hook declined" in lowered or "gh0" in lowered:
        return PushRefusal(kind="other")
    return None


def secret_lines(repo: Repo, locations: tuple[SecretLocation, ...]) -> list[str]:
    """The text of every line push protection pointed at (as the commit holds it, without
    its indentation), to mask wherever the refused change is kept; lines that cannot be
    read (a commit amelia does not have) are left out."""
    found: dict[str, None] = {}
    for location in locations:
        try:
            data = run_git_bytes(["show", f"{location.commit}:{location.path}"], repo)
        except GitError:  # a location amelia cannot read masks nothing
            continue
        lines = data.split(b"\n")
        if 1 <= location.line <= len(lines):
            text = lines[location.line - 1].strip().decode("utf-8", "replace")
            if text:
                found[text] = None
    return list(found)
