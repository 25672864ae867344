"""GitHub's refusals of a push, played by a bare repository's hook in GitHub's own words.

`refuse_like_github(bare, …)` installs a `proc-receive` hook (git ≥ 2.29; it answers for
every `refs/heads/` update, `receive.procReceiveRefs`) that looks at the commits a push
adds, and refuses it as GitHub does:

- a file over `max_file_bytes` (GitHub: 100 MiB): `remote: error: File <path> is 101.00 MB;
  this exceeds GitHub's file size limit of 100.00 MB`, `remote: error: GH001: Large files
  detected. …`, the ref `(pre-receive hook declined)`;
- a line matching one of `secrets` (kind: pattern), as secret scanning's push protection:
  `remote: error GH009: Secrets detected! This push failed.` with each finding's kind,
  `commit:` and `path: <file>:<line>` and an unblock URL, the ref `(push declined due to a
  detected secret)`;
- a change under `.github/workflows/` when `workflows` names the token that may not
  change workflows (`app`: the job's token or a GitHub App's, `oauth`, `pat`): the ref
  `(refusing to allow a GitHub App to create or update workflow `<path>` without
  `workflows` permission)`, or `… an OAuth App …` / `… a Personal Access Token …` `without
  `workflow` scope`; no `remote:` line, as on GitHub.

Anything else is taken (the hook lets receive-pack update the ref). Every push it sees is
appended to `<bare>/push-rules.log`: `refused <ref> <reason>` or `accepted <ref>`. The
texts come from GitHub's answers as users report them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from amelia.git import MAX_FILE_BYTES, run_git

__all__ = ["LOG_NAME", "TokenKind", "pushes_seen", "refuse_like_github"]

TokenKind = Literal["app", "oauth", "pat"]
LOG_NAME = "push-rules.log"

_HOOK = r'''#!{python}
import hashlib, json, re, subprocess, sys
from pathlib import Path

RULES = json.loads(Path(__file__).with_name("push-rules.json").read_text())
LOG = Path(RULES["log"])
ZERO = "0" * 40
WHO = {
    "app": ("a GitHub App", "workflows", "permission"),
    "oauth": ("an OAuth App", "workflow", "scope"),
    "pat": ("a Personal Access Token", "workflow", "scope"),
}
RULE = "\u2014" * 54
inp, out = sys.stdin.buffer, sys.stdout.buffer


def read():
    size = int(inp.read(4), 16)
    return None if size == 0 else inp.read(size - 4)


def write(text):
    data = text.encode()
    out.write(b"%04x" % (len(data) + 4) + data)
    out.flush()


def flush():
    out.write(b"0000")
    out.flush()


def git(*args, data=None):
    return subprocess.run(["git", *args], input=data, capture_output=True, check=True).stdout


def say(lines):
    sys.stderr.write("".join(line + "\n" for line in lines))
    sys.stderr.flush()


def changes(old, new):
    """(commit, path, blob) of every file the commits of the push add or change."""
    listed = git("rev-list", "--reverse", new, "--not", "--all").decode().split()
    found = []
    for commit in listed:
        raw = git("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--root", commit)
        fields = raw.split(b"\0")
        for meta, path in zip(fields[::2], fields[1::2]):
            parts = meta.decode().split()
            if len(parts) >= 5:
                blob = parts[3] if parts[4] != "D" else None
                found.append((commit, path.decode("utf-8", "surrogateescape"), blob))
    return found


def too_large(found):
    lines = []
    for _commit, path, blob in found:
        if blob is None:
            continue
        size = int(git("cat-file", "-s", blob).decode())
        if size > RULES["max_file_bytes"]:
            lines.append(
                f"error: File {path} is {size / 1048576:.2f} MB; this exceeds GitHub's "
                "file size limit of 100.00 MB"
            )
    if not lines:
        return None
    trace = hashlib.sha256(repr(found).encode()).hexdigest()
    say([
        f"error: Trace: {trace}",
        "error: See https://gh.io/lfs for more information.",
        *lines,
        "error: GH001: Large files detected. You may want to try Git Large File Storage - "
        "https://git-lfs.github.com.",
    ])
    return "pre-receive hook declined"


def secrets(found):
    hits = []
    for commit, path, blob in found:
        if blob is None:
            continue
        text = git("cat-file", "blob", blob).decode("utf-8", "replace").split("\n")
        for number, line in enumerate(text, 1):
            for kind, pattern in RULES["secrets"].items():
                if re.search(pattern, line):
                    hits.append((kind, commit, path, number))
    if not hits:
        return None
    lines = [
        "error GH009: Secrets detected! This push failed.",
        "",
        "            GITHUB PUSH PROTECTION",
        RULE,
        " Resolve the following secrets before pushing again.",
        "",
        " (?) Learn how to resolve a blocked push",
        " https://docs.github.com/code-security/secret-scanning/"
        "pushing-a-branch-blocked-by-push-protection",
        "",
        "",
    ]
    for kind, commit, path, number in hits[:5]:
        title = f"\u2014\u2014 {kind} "
        unblock = hashlib.sha1(f"{commit}{path}{number}".encode()).hexdigest()[:27]
        lines += [
            title + "\u2014" * max(4, len(RULE) - len(title)),
            " locations:",
            f"   - commit: {commit}",
            f"     path: {path}:{number}",
            "",
            " (?) To push, remove secret from commit(s) or follow this URL to allow the secret.",
            f" https://github.com/{RULES['repo']}/security/secret-scanning/unblock-secret/"
            + unblock,
            "",
            "",
        ]
    say([*lines, ""])
    return "push declined due to a detected secret"


def workflows(found):
    kind = RULES["workflows"]
    if kind is None:
        return None
    for _commit, path, _blob in found:
        if path.startswith(".github/workflows/"):
            who, grant, what = WHO[kind]
            return (
                f"refusing to allow {who} to create or update workflow `{path}` "
                f"without `{grant}` {what}"
            )
    return None


while read() is not None:
    pass
write("version=1\0")
flush()
commands = []
while (line := read()) is not None:
    commands.append(line.decode().strip().split(" ", 2))
results = []
for old, new, ref in commands:
    reason = None
    if new != ZERO:
        found = changes(old, new)
        reason = too_large(found) or secrets(found) or workflows(found)
    with LOG.open("a") as log:
        log.write(f"refused {ref} {reason}\n" if reason else f"accepted {ref}\n")
    results.append((ref, reason))
for ref, reason in results:
    if reason:
        write(f"ng {ref} {reason}")
    else:
        write(f"ok {ref}")
        write("option fall-through")
flush()
'''


def refuse_like_github(
    bare: Path,
    *,
    repo: str = "octo/app",
    workflows: TokenKind | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    secrets: Mapping[str, str] | None = None,
) -> None:
    """Make pushes to the bare repository `bare` meet GitHub's rules (see the module
    docstring); `repo` names the repository in the URLs GitHub prints."""
    rules = {
        "repo": repo,
        "workflows": workflows,
        "max_file_bytes": max_file_bytes,
        "secrets": dict(secrets or {}),
        "log": str(bare / LOG_NAME),
    }
    hooks = bare / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "push-rules.json").write_text(json.dumps(rules), encoding="utf-8")
    hook = hooks / "proc-receive"
    hook.write_text(_HOOK.replace("{python}", sys.executable, 1), encoding="utf-8")
    hook.chmod(0o755)
    run_git(["config", "receive.procReceiveRefs", "refs/heads"], bare)


def pushes_seen(bare: Path) -> list[str]:
    """Each push the rules saw, in order: `accepted <ref>` or `refused <ref> <reason>`."""
    log = bare / LOG_NAME
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []
