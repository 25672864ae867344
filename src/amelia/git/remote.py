"""Branches on a remote: ask about them, fetch them, switch to them, push to them.

Reads from the remote are retried while their failures look like the network's. A push
that was only behind (someone pushed meanwhile) is rebased onto the remote's branch and
pushed again at once; a push the remote declined (a hook, branch protection, a ruleset,
GitHub's push protection, a workflow file or a file too large for GitHub, see
`amelia.git.push_refusals`) is not retried and raises `GitPushDeclinedError` with the
remote's own words and what to change; any other failure is retried after a pause, since
a push may be the last chance to publish work.

A clone may be shallow (actions/checkout fetches one commit by default): where a merge
base is needed, `merge_base_deepening` fetches only as much history as it takes.

A remote is named (`origin`) for its remote-tracking refs; given a `Git` value with a URL
for it (`Git.with_remote`), every command talks to that URL instead of the one the
repository's config gives the name, so a rewritten `remote.origin.url` or `pushurl`
cannot redirect a push or a fetch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import suppress

from loguru import logger

from amelia.errors import GitError, GitPushDeclinedError
from amelia.git.names import validate_branch_name
from amelia.git.push_refusals import RefusalKind, read_refusal
from amelia.git.repo import identity_args, is_shallow, merge_base
from amelia.git.runner import NetworkRetry, network_retry, retrying, run_git, run_network_read
from amelia.git.value import Git, Repo

__all__ = [
    "fetch",
    "fetch_branch",
    "merge_base_deepening",
    "push",
    "remote_branch_exists",
    "remote_default_branch",
    "remote_heads",
    "switch_to_branch",
]

_BEHIND = ("non-fast-forward", "fetch first", "[rejected]")
"""A push refused only because the remote branch moved on (lower-cased markers)."""
_DECLINED = ("[remote rejected]", "hook declined", "gh013", "rule violations")
"""A push the remote refused on principle: a hook, branch protection or a ruleset."""
_RACED = ("cannot lock ref", "failed to update ref", "incorrect old value", "but expected")
"""A push refused because another push was updating the same ref at that moment: git says
`[remote rejected] … (failed to update ref)` or `(cannot lock ref …)` as for a declined
push, but trying again (and rebasing if the other push moved the branch) succeeds."""
_REJECTED_REASON = re.compile(r"\[remote rejected\][^(\n]*\((?P<reason>[^)\n]+)\)")
_DECLINED_FIX = (
    "Branch protection or a ruleset refuses amelia's pushes to this branch: add the "
    "identity amelia pushes as (the workflow's token or GitHub App) to the ruleset's bypass "
    "list, or set the branch_prefix input to a prefix no rule covers."
)
_FIXES: dict[RefusalKind, str] = {
    "secret": (
        "GitHub's push protection took something in the change for a secret that amelia's "
        "own search did not know: nothing was pushed, and the lines GitHub named are masked "
        "in the saved patch. Take the secret out of the change (and revoke it if it is "
        "real), or follow GitHub's link to allow it if it is none."
    ),
    "workflow": (
        "The token amelia pushes with may not change workflow files: give the github_token "
        "input a token with the workflows permission (a personal access token with the "
        "workflow scope, or a GitHub App token whose App has Workflows: write)."
    ),
    "too_large": (
        "GitHub refuses files over its size limit: keep them out of the change, or store "
        "them with Git LFS."
    ),
}
"""What to change, by what GitHub refused (anything else: `_DECLINED_FIX`)."""
_MAX_REMOTE_WORDS = 500
_DEEPEN_STEPS = (16, 128, 1024)
"""Commits a shallow clone is deepened by, step after step, until a merge base shows up;
after the last step the whole history is fetched."""


def _address(repo: Repo, remote: str) -> str:
    """What git is told to talk to for `remote` (see `Git.address`)."""
    return Git.of(repo).address(remote=remote)


def _is_behind(error: BaseException) -> bool:
    return isinstance(error, GitError) and any(m in error.stderr.lower() for m in _BEHIND)


def _is_declined(error: BaseException) -> bool:
    if not isinstance(error, GitError):
        return False
    said = error.stderr.lower()
    return any(m in said for m in _DECLINED) and not any(m in said for m in _RACED)


def _remote_words(stderr: str) -> str:
    """What the remote said about a refused push, in its own words: its `remote:` lines
    (e.g. GitHub's `GH013: Repository rule violations found …` and each rule) and the
    reason git gives for the refused ref (e.g. `protected branch hook declined`)."""
    said = []
    for line in stderr.splitlines():
        if line.startswith("remote:"):
            text = line.removeprefix("remote:").strip().removeprefix("error:").strip()
            # GitHub frames push protection's findings with rules of dashes: words only.
            text = text.strip("\u2014").strip()
            if text:
                said.append(text)
    words = " ".join(said)
    rejected = _REJECTED_REASON.search(stderr)
    if rejected is not None:
        words = f"{words} ({rejected.group('reason')})" if words else rejected.group("reason")
    if len(words) > _MAX_REMOTE_WORDS:
        words = words[: _MAX_REMOTE_WORDS - 1] + "…"
    return words or "no reason given"


def remote_default_branch(repo: Repo, *, remote: str = "origin") -> str:
    """The branch the remote's HEAD points at, asked of the remote itself."""
    out = run_network_read(["ls-remote", "--symref", _address(repo, remote), "HEAD"], repo)
    for line in out.splitlines():
        if line.startswith("ref: refs/heads/"):
            return line.split()[1].removeprefix("refs/heads/")
    raise GitError(f"could not tell the default branch of {remote}")


def remote_heads(repo: Repo, pattern: str, *, remote: str = "origin") -> list[str]:
    """The names of the remote's branches matching `pattern` (`ls-remote` glob, e.g.
    `amelia/issue-*`)."""
    args = ["ls-remote", "--heads", _address(repo, remote), f"refs/heads/{pattern}"]
    out = run_network_read(args, repo)
    names = [line.split("\t", 1)[-1].strip() for line in out.splitlines() if "\t" in line]
    return [name.removeprefix("refs/heads/") for name in names]


def remote_branch_exists(repo: Repo, branch: str, *, remote: str = "origin") -> bool:
    validate_branch_name(branch)
    return branch in remote_heads(repo, branch, remote=remote)


def fetch(repo: Repo, refspecs: Sequence[str], *, remote: str = "origin") -> None:
    """Fetch `refspecs` (no tags)."""
    run_network_read(["fetch", "--quiet", "--no-tags", _address(repo, remote), *refspecs], repo)


def merge_base_deepening(
    repo: Repo, first: str, second: str, *, refspecs: Sequence[str], remote: str = "origin"
) -> str:
    """The merge base of two commits, fetching what a shallow clone lacks of it.

    In a clone of one commit, a branch cut from the default branch before it moved on has
    no merge base with it: the commits in between are missing. Then the history along
    `refspecs` is deepened by 16, 128 and 1,024 commits, and at last fetched whole,
    stopping as soon as the merge base is found. `GitError` when the two commits share no
    history at all."""
    for step in (*_DEEPEN_STEPS, None):
        with suppress(GitError):
            return merge_base(repo, first, second)
        if not is_shallow(repo):
            break
        deepen = ["--unshallow"] if step is None else [f"--deepen={step}"]
        logger.info("shallow clone: fetching more history ({}) for a merge base", deepen[0])
        command = ["fetch", "--quiet", "--no-tags", *deepen, _address(repo, remote), *refspecs]
        run_network_read(command, repo)
    try:
        return merge_base(repo, first, second)
    except GitError:
        raise GitError(f"{first} and {second} have no common history") from None


def fetch_branch(repo: Repo, branch: str, *, remote: str = "origin") -> str:
    """Fetch one branch into its remote-tracking ref and return that ref's name."""
    validate_branch_name(branch)
    tracking = f"refs/remotes/{remote}/{branch}"
    fetch(repo, [f"+refs/heads/{branch}:{tracking}"], remote=remote)
    return tracking


def _local_branch_exists(repo: Repo, branch: str) -> bool:
    out = run_git(
        ["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], repo, ok_codes=(0, 1)
    )
    return bool(out.strip())


def switch_to_branch(
    repo: Repo,
    branch: str,
    *,
    base: str | None = None,
    remote: str = "origin",
    on_remote: bool | None = None,
) -> None:
    """Check out `branch`: the local one (rebased onto the remote's if both exist, so
    unpushed commits survive), else the remote's tip, else a new one from `base`
    (default: the remote's default branch).

    `on_remote`: whether the remote has `branch`, for a caller that has just asked
    (`remote_branch_exists`) and changed nothing since; None asks the remote."""
    validate_branch_name(branch)
    if on_remote is None:
        on_remote = remote_branch_exists(repo, branch, remote=remote)
    if _local_branch_exists(repo, branch):
        run_git(["checkout", "--quiet", branch, "--"], repo)
        if on_remote:
            _rebase_onto_remote(repo, branch, remote)
        return
    source = branch if on_remote else (base or remote_default_branch(repo, remote=remote))
    start = fetch_branch(repo, source, remote=remote)
    # --no-track: no upstream entry in the repository's config (it would name `source`).
    run_git(["checkout", "--quiet", "--no-track", "-b", branch, start, "--"], repo)


def _rebase_onto_remote(repo: Repo, branch: str, remote: str) -> None:
    tracking = fetch_branch(repo, branch, remote=remote)
    with suppress(GitError):  # unrelated histories: the rebase below says so
        spec = f"+refs/heads/{branch}:{tracking}"
        merge_base_deepening(repo, "HEAD", tracking, refspecs=[spec], remote=remote)
    try:
        run_git([*identity_args(repo), "rebase", "--quiet", tracking], repo)
    except GitError as error:
        run_git(["rebase", "--abort"], repo)
        raise GitError(f"cannot rebase {branch} onto {remote}/{branch}: {error}") from None


def push(
    repo: Repo, branch: str, *, remote: str = "origin", retry: NetworkRetry | None = None
) -> None:
    """Push `branch` (see the module docstring for what is retried and how).

    Raises `GitPushDeclinedError` when the remote declines it, `GitError` with git's
    message when it keeps failing, and `GitError` ("cannot rebase …") when our commits
    conflict with what was pushed meanwhile (the rebase is aborted, nothing is lost)."""
    validate_branch_name(branch)
    refspec = f"refs/heads/{branch}:refs/heads/{branch}"
    behind = rebasing = False
    attempts = 0
    try:
        policy = retry or network_retry(repo)
        for attempt in retrying(policy, _may_retry_push, pause=_not_behind):
            if behind:
                logger.info("push of {} rejected; rebasing onto {}/{}", branch, remote, branch)
                rebasing = True
                _rebase_onto_remote(repo, branch, remote)
                rebasing = False
            with attempt:
                attempts += 1
                try:
                    run_git(["push", "--quiet", _address(repo, remote), refspec], repo)
                except GitError as error:
                    behind = _is_behind(error)
                    raise
    except GitError as error:
        if rebasing:
            raise  # our commits conflict with the remote's: trying again cannot help
        if _is_declined(error):
            said = _remote_words(error.stderr)
            refusal = read_refusal(error.stderr)
            fix = _FIXES.get(refusal.kind, _DECLINED_FIX) if refusal else _DECLINED_FIX
            message = f"push of {branch} was declined by {remote}: {said.rstrip('.')}. {fix}"
            raise GitPushDeclinedError(message, stderr=error.stderr) from None
        message = f"push of {branch} failed after {attempts} attempt(s): {error}"
        raise GitError(message, stderr=error.stderr) from None
    if _address(repo, remote) != remote:
        # A push to a URL updates no remote-tracking ref: record what the remote has now, so
        # later pushes and saved patches know which commits it holds already.
        run_git(["update-ref", f"refs/remotes/{remote}/{branch}", f"refs/heads/{branch}"], repo)


def _may_retry_push(error: BaseException) -> bool:
    return isinstance(error, GitError) and not _is_declined(error)


def _not_behind(error: BaseException) -> bool:
    return not _is_behind(error)
