"""The git side of a recording: the starting commits, the pushed ones, and the rebuild.

At the start of a run `starting_checkout` notes HEAD, its branch, origin's branches as the
checkout knows them and the shallow boundary. At the end `origin_as_seen` adds the
branches the run fetched and the newer commits it fetched of those the checkout had (the
first value their reflog shows from a fetch of the run's), `pack_start` writes the objects
of all those commits as one git pack (the run's own commits are not in it: replay makes
them anew), and `pushed_commits` lists the commits the run left on each branch, with their
trees.

`rebuild` makes, from a recording, a bare `origin` holding those branches as the run saw
them and a checkout of it at the recorded HEAD, its remote-tracking branches as
actions/checkout left them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from amelia.errors import GitError
from amelia.git import Git, run_git
from amelia.git.runner import run_git_bytes
from amelia.replay.format import PushedCommit, RecordingError, StartingCheckout

__all__ = [
    "fetched_by_the_run",
    "file_at",
    "origin_as_seen",
    "origin_logged",
    "pack_start",
    "pushed_commits",
    "rebuild",
    "starting_checkout",
]

_ORIGIN_REFS = "refs/remotes/origin/"
_REMOTE_REFS = "refs/remotes/"
_REFS_PER_CALL = 500
_RUN_REFS = "refs/amelia/"
"""Refs the run keeps of its own (a pull's head under review)."""


def _refs(git: Git, prefix: str) -> dict[str, str]:
    out = run_git(["for-each-ref", "--format=%(objectname) %(refname)", prefix], git)
    found: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition(" ")
        if name.startswith(prefix) and not name.endswith("/HEAD"):
            found[name.removeprefix(prefix)] = sha
    return found


def starting_checkout(git: Git, *, shown_path: str) -> StartingCheckout | None:
    """The checkout as the run found it; None when it is no git checkout (the run says so
    itself)."""
    try:
        head = run_git(["rev-parse", "--verify", "HEAD"], git).strip()
        branch = run_git(["symbolic-ref", "-q", "--short", "HEAD"], git, ok_codes=(0, 1)).strip()
        common = Path(run_git(["rev-parse", "--git-common-dir"], git).strip())
        origin = _refs(git, _ORIGIN_REFS)
        remotes = {
            name: sha
            for name, sha in _refs(git, _REMOTE_REFS).items()
            if not name.startswith("origin/")
        }
        url = run_git(["config", "--get", "remote.origin.url"], git, ok_codes=(0, 1)).strip()
    except GitError:
        return None
    common = common if common.is_absolute() else git.path / common
    shallow_file = common / "shallow"
    shallow = shallow_file.read_text(encoding="ascii").split() if shallow_file.exists() else []
    return StartingCheckout(
        path=shown_path,
        head=head,
        branch=branch or None,
        origin=origin,
        shallow=shallow,
        remotes=remotes,
        origin_url=url or None,
    )


def fetched_by_the_run(git: Git) -> list[str]:
    """The commits the run's own refs hold (a pull's head it fetched for review)."""
    try:
        return sorted(set(_refs(git, _RUN_REFS).values()))
    except GitError:
        return []


def _reflogs(git: Git, names: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
    """The reflogs of origin's branches `names`, each oldest first: (commit, message). One
    git process for all of them (a checkout of every branch may track thousands); a branch
    without a reflog has none."""
    refs = [_ORIGIN_REFS + name for name in names]
    found: dict[str, dict[int, tuple[str, str]]] = {}
    for chunk in (refs[i : i + _REFS_PER_CALL] for i in range(0, len(refs), _REFS_PER_CALL)):
        out = run_git(["log", "-g", "--format=%gD%x09%H%x09%gs", *chunk, "--"], git)
        for line in out.splitlines():
            selector, _, rest = line.partition("\t")
            sha, _, message = rest.partition("\t")
            ref, at, number = selector.rpartition("@{")
            if not at or not ref.startswith(_ORIGIN_REFS) or not number.endswith("}"):
                continue
            index = number[:-1]
            if index.isdigit():
                found.setdefault(ref.removeprefix(_ORIGIN_REFS), {})[int(index)] = (sha, message)
    return {
        name: [entries[i] for i in sorted(entries, reverse=True)] for name, entries in found.items()
    }


def origin_logged(git: Git) -> dict[str, int]:
    """How many entries the reflog of each of origin's branches holds (at the run's start:
    those that follow are the run's)."""
    try:
        return {name: len(log) for name, log in _reflogs(git, _refs(git, _ORIGIN_REFS)).items()}
    except GitError:
        return {}


def origin_as_seen(
    git: Git, start: StartingCheckout, *, logged: Mapping[str, int] | None = None
) -> dict[str, str]:
    """origin's branches at the run's first sight: a branch the run fetched at the first
    commit it fetched (the oldest fetch in its reflog after the `logged` entries it had at
    the start: a checkout can be behind origin, and a review fetches the base branch
    again), the others as the checkout had them at the start."""
    seen = dict(start.origin)
    try:
        current = _refs(git, _ORIGIN_REFS)
        moved = [name for name, sha in current.items() if start.origin.get(name) != sha]
        reflogs = _reflogs(git, moved) if moved else {}
    except GitError:
        return seen
    for name in moved:
        ran = reflogs.get(name, [])[(logged or {}).get(name, 0) :]
        first = [sha for sha, message in ran if message.startswith("fetch")]
        if first:
            seen[name] = first[0]
    return seen


def _tracked(start: StartingCheckout) -> dict[str, str]:
    return start.origin if start.tracking is None else start.tracking


def _known(start: StartingCheckout) -> list[str]:
    """Every commit the recording starts from."""
    return sorted(
        {
            start.head,
            *start.origin.values(),
            *_tracked(start).values(),
            *start.remotes.values(),
            *start.fetched,
        }
    )


def pack_start(git: Git, start: StartingCheckout, destination: Path) -> None:
    """The objects of the starting commits (HEAD, origin's branches as the checkout had
    them and as the run fetched them, the other remote-tracking refs) and of those the run
    fetched for itself, as one pack."""
    tips = _known(start)
    data = run_git_bytes(
        ["pack-objects", "--revs", "--stdout", "-q"],
        git,
        input="".join(f"{t}\n" for t in tips).encode(),
    )
    destination.write_bytes(data)


def pushed_commits(git: Git, start: StartingCheckout, *, local: bool) -> list[PushedCommit]:
    """The commits the run added on each branch, oldest first, with their trees: the
    branches of origin (after a dry run or a failed push: the local branches)."""
    tips = _refs(git, _ORIGIN_REFS)
    if local:
        # Nothing was pushed: a local branch holds the run's commits, where origin's branch
        # of the same name (fetched, e.g. the plan's) holds only what was there before.
        tips = {**tips, **_refs(git, "refs/heads/")}
    known = _known(start)
    commits: list[PushedCommit] = []
    for branch, tip in sorted(tips.items()):
        if tip in known:
            continue
        out = run_git(["log", "--reverse", "--format=%H %T %s", tip, "--not", *known, "--"], git)
        for line in out.splitlines():
            sha, tree, subject = [*line.split(" ", 2), "", ""][:3]
            commits.append(PushedCommit(branch=branch, sha=sha, tree=tree, subject=subject))
    return commits


def _has_commit(git: Git, sha: str) -> bool:
    done = run_git(["cat-file", "-t", sha], git, ok_codes=(0, 1, 128)).strip()
    return done == "commit"


def file_at(git: Git, commit: str, path: str) -> str | None:
    """The text of `path` at `commit`, None when there is none."""
    try:
        data = run_git_bytes(["show", f"{commit}:{path}"], git)
    except GitError:
        return None
    return data.decode("utf-8", "replace")


def rebuild(
    pack: Path,
    start: StartingCheckout,
    root: Path,
    *,
    pull_heads: Mapping[int, str] | None = None,
) -> tuple[Path, Path]:
    """A bare origin with the recorded branches (and `refs/pull/<n>/head` of `pull_heads`,
    number: head commit, where the pack holds it) and a checkout of it at the recorded HEAD
    with its other remote-tracking refs and origin's URL, under `root`: (origin,
    checkout)."""
    if not pack.is_file():
        raise RecordingError(f"the recording has no {pack.name}")
    origin, checkout = root / "origin.git", root / "checkout"
    root.mkdir(parents=True, exist_ok=True)
    run_git(["init", "--quiet", "--bare", str(origin)], None)
    plain = Git(origin)
    with pack.open("rb") as data:
        run_git_bytes(["index-pack", "--stdin", "--fix-thin"], plain, input=data.read())
    if start.shallow:
        (origin / "shallow").write_text("".join(f"{sha}\n" for sha in start.shallow))
    branches = dict(start.origin)
    if start.branch and start.branch not in branches:
        branches[start.branch] = start.head
    for name, sha in branches.items():
        run_git(["update-ref", f"refs/heads/{name}", sha], plain)
    for number, sha in sorted((pull_heads or {}).items()):
        if _has_commit(plain, sha):
            run_git(["update-ref", f"refs/pull/{number}/head", sha], plain)
    default = start.default_branch or start.branch
    if default and default in branches:
        run_git(["symbolic-ref", "HEAD", f"refs/heads/{default}"], plain)
    run_git(["clone", "--quiet", "--no-local", str(origin), str(checkout)], None)
    work = Git(checkout)
    # HEAD detached on no branch of origin (a pull's merge commit), the other remote-
    # tracking refs and origin's branches as the checkout had them, older than what origin
    # serves: their commits come from the pack itself.
    tracked = _tracked(start)
    wanted = [start.head, *start.remotes.values(), *tracked.values()]
    if not all(_has_commit(work, sha) for sha in wanted):
        with pack.open("rb") as data:
            run_git_bytes(["index-pack", "--stdin", "--fix-thin"], work, input=data.read())
    for name, sha in sorted(start.remotes.items()):
        run_git(["update-ref", f"refs/remotes/{name}", sha], work)
    for name in _refs(work, _ORIGIN_REFS):
        if name not in tracked:  # a branch only the run fetched
            run_git(["update-ref", "-d", _ORIGIN_REFS + name], work)
    head = _ORIGIN_REFS + "HEAD"
    target = run_git(["symbolic-ref", "-q", head], work, ok_codes=(0, 1)).strip()
    if target and target.removeprefix(_ORIGIN_REFS) not in tracked:
        run_git(["symbolic-ref", "--delete", head], work)  # it would name no branch
    for name, sha in sorted(tracked.items()):
        run_git(["update-ref", _ORIGIN_REFS + name, sha], work)
    if start.origin_url:
        run_git(["remote", "set-url", "origin", start.origin_url], work)
    if start.branch:
        run_git(["checkout", "--quiet", "-B", start.branch, start.head, "--"], work)
    else:
        run_git(["checkout", "--quiet", "--detach", start.head, "--"], work)
    return origin, checkout
