"""Start git: the one place in amelia that runs a git process.

Every command is an argument list run without a shell, in a hardened environment: git
never waits for a password (`GIT_TERMINAL_PROMPT=0`), never starts a pager, and speaks
in one language (`LC_ALL=C`) so its messages can be recognised, and works on the repository
it is given, whatever `GIT_DIR` or `GIT_INDEX_FILE` this process inherited. Each command
has a timeout.

amelia's git never runs code a repository's files name: every command gets, through
`GIT_CONFIG_*` (which outranks every config file, also in the git processes a command
starts for submodules), `core.hooksPath=/dev/null` (no hook runs, whatever `.git/hooks`
or `core.hooksPath` holds), `core.fsmonitor=false` and `commit.gpgSign=false` (no
`gpg.program`). Everything else a command gets comes from the `Git` value it is given
(`amelia.git.value`): its config entries, its isolation (a runner's checkout, where
agents ran: no system config, as global config only a file amelia owns, no credential
helper, only the protocols named, so an agent's config can neither run a command nor
redirect a push) and, in an authenticated value, the token's header; a plain path gets
nothing more. Diffs are made with `--no-ext-diff --no-textconv` by their callers.

A failure raises `GitError` naming the subcommand and git's own complaint, with
credentials in URLs masked.

Output is bytes, as git writes it: file names and contents need not be UTF-8. `run_git`
decodes for reading and showing (undecodable bytes become U+FFFD), `run_git_bytes` keeps
the bytes (patches, file contents), and `run_git_paths` splits `-z` output into paths
that name the same files when handed back to git or the filesystem.

Commands that talk to a remote are retried by one policy (`NetworkRetry`, tenacity; the
`Git` value's own, else the defaults): reads (`fetch`, `ls-remote`) when the failure looks
like the network, pushes as `amelia.git.remote.push` decides. The functions block; async callers use
`asyncio.to_thread`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence

from loguru import logger
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from amelia.errors import GitError
from amelia.git.value import Git, NetworkRetry, Repo
from amelia.redaction import Redactor

__all__ = [
    "DEFAULT_TIMEOUT",
    "NetworkRetry",
    "display",
    "display_path",
    "is_transient",
    "network_retry",
    "retrying",
    "run_git",
    "run_git_bytes",
    "run_git_paths",
    "run_git_service",
    "run_network_read",
    "split_paths",
]

DEFAULT_TIMEOUT = 120.0
"""Seconds one git command may take."""

_HARDENED_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # fail instead of waiting for a password in CI
    "GIT_ASKPASS": "true",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",  # one language, so git's messages can be recognised
    # `refs/replace/*` an agent writes would show amelia's scan other contents than the
    # objects a push sends (pack-objects ignores replacements).
    "GIT_NO_REPLACE_OBJECTS": "1",
}
_REPOSITORY_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_IMPLICIT_WORK_TREE",
        "GIT_NAMESPACE",
        "GIT_GRAFT_FILE",
        "GIT_SHALLOW_FILE",
        "GIT_REPLACE_REF_BASE",
        "GIT_PREFIX",
        "GIT_INTERNAL_SUPER_PREFIX",
    }
)
"""Variables that tell git which repository, index or objects to use (those of `git rev-parse
--local-env-vars` but the config ones): left out, so every command works on the repository
it is given. amelia started from a git hook inherits the hook's `GIT_DIR` and
`GIT_INDEX_FILE`, with which its commits would go into the hook's repository and index."""
_BASE_CONFIG = (
    ("core.quotePath", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("commit.gpgSign", "false"),
)
"""Config every command gets: paths in git's output as their bytes, not `"\\303\\251.txt"`
(git still quotes names holding a quote, a backslash or a control character; see
`amelia.git.names.unquote_path`); and no hook, file system monitor or signing program,
which a repository's config could point at any command."""
_OPTIONS_WITH_VALUE = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace"})
_URL_REDACTOR = Redactor()
_TRANSIENT = (
    "could not resolve host",
    "could not resolve hostname",
    "temporary failure in name resolution",
    "connection refused",
    "connection reset",
    "connection timed out",
    "operation timed out",
    "failed to connect",
    "network is unreachable",
    "the remote end hung up unexpectedly",
    "early eof",
    "rpc failed",
    "timed out after",
    "returned error: 429",
    "returned error: 500",
    "returned error: 502",
    "returned error: 503",
    "returned error: 504",
    "internal server error",
    "service unavailable",
)
"""Complaints (lower-cased) of a network or server that may work again in a moment."""


def _environment(git: Git | None) -> dict[str, str]:
    """This process's environment with the hardened settings and, through `GIT_CONFIG_*`
    after the entries the environment may hold already, every entry of `git`. Only the
    git process gets it: never this process's environment, which agents' tools inherit,
    nor its arguments, which `/proc/<pid>/cmdline` shows to every process."""
    inherited = {k: v for k, v in os.environ.items() if k not in _REPOSITORY_VARIABLES}
    env = {**inherited, **_HARDENED_ENV}
    isolation = None if git is None else git.isolation
    if isolation is not None:
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_CONFIG_GLOBAL"] = str(isolation.global_config)
    entries = (*_BASE_CONFIG, *(() if git is None else git.entries()))
    count = env.get("GIT_CONFIG_COUNT", "")
    start = int(count) if count.isdigit() else 0
    for offset, (key, value) in enumerate(entries):
        env[f"GIT_CONFIG_KEY_{start + offset}"] = key
        env[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    env["GIT_CONFIG_COUNT"] = str(start + len(entries))
    return env


def _subcommand(args: Sequence[str]) -> str:
    """The git subcommand of `args` (after options such as `-c key=value`), for messages."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _OPTIONS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return args[0] if args else ""


def display(data: bytes) -> str:
    """Git output as text to read or show: invalid UTF-8 becomes U+FFFD, never an error."""
    return data.decode("utf-8", "replace")


def display_path(path: str) -> str:
    """A path from `split_paths` as text to show (invalid UTF-8 becomes U+FFFD)."""
    return display(os.fsencode(path))


def split_paths(data: bytes) -> list[str]:
    """The paths of NUL-separated (`-z`) output, decoded so that they name the same files
    when handed back to git or the filesystem (undecodable bytes are kept as surrogates)."""
    return [os.fsdecode(item) for item in data.split(b"\0") if item]


def _complaint(stderr: str, returncode: int) -> str:
    lines = [
        line.strip()
        for line in stderr.splitlines()
        if line.strip() and not line.startswith("hint:")
    ]
    return " / ".join(lines[:3]) or f"exit status {returncode}"


def run_git_bytes(
    args: Sequence[str],
    repo: Repo | None,
    *,
    ok_codes: tuple[int, ...] = (0,),
    timeout: float = DEFAULT_TIMEOUT,
    input: bytes | None = None,
    outside: bool = False,
) -> bytes:
    """Run `git *args` in `repo` (with `input` on its stdin) and return its stdout as
    bytes; `GitError` on any other exit code.

    `repo` is a `Git` value (its configuration, identity and auth reach this command), a
    path (plain git there) or None (plain git, in no repository). With `outside`, the
    command gets `repo`'s configuration but runs in no repository (a `--global` or
    `--file` config command, `init`)."""
    name = _subcommand(args)
    git = None if repo is None else Git.of(repo)
    cwd = None if git is None or outside else git.path
    try:
        # Its own process group, so a timeout also stops what git started (ssh, helpers).
        process = subprocess.Popen(
            ["git", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_environment(git),
            start_new_session=True,
        )
    except OSError as error:
        raise GitError(f"git {name} could not start: {error.strerror or error}") from None
    with process:
        try:
            stdout, stderr_bytes = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise GitError(f"git {name} timed out after {timeout:.0f}s") from None
    if process.returncode not in ok_codes:
        stderr = _URL_REDACTOR.redact(display(stderr_bytes))
        raise GitError(
            f"git {name} failed: {_complaint(stderr, process.returncode)}", stderr=stderr
        )
    return stdout


def run_git_service(
    args: Sequence[str],
    *,
    environment: Mapping[str, str],
    input: bytes = b"",
    timeout: float = DEFAULT_TIMEOUT,
) -> bytes:
    """Run a git server program (`git http-backend`) the way a git server would: with
    `environment` (and this process's PATH) and none of the config amelia gives its own
    commands, so the served repository's hooks run. For the local stand-ins of
    `amelia.testing`; returns stdout, `GitError` when the program fails."""
    name = _subcommand(args)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **environment}
    try:
        done = subprocess.run(
            ["git", *args],
            input=input,
            capture_output=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitError(f"git {name} could not run: {error}") from None
    if done.returncode != 0:
        raise GitError(f"git {name} failed: {_complaint(display(done.stderr), done.returncode)}")
    return done.stdout


def run_git(
    args: Sequence[str],
    repo: Repo | None,
    *,
    ok_codes: tuple[int, ...] = (0,),
    timeout: float = DEFAULT_TIMEOUT,
    input: bytes | None = None,
    outside: bool = False,
) -> str:
    """Run `git *args` (see `run_git_bytes`) and return its stdout as text (see
    `display`)."""
    out = run_git_bytes(
        args, repo, ok_codes=ok_codes, timeout=timeout, input=input, outside=outside
    )
    return display(out)


def run_git_paths(args: Sequence[str], repo: Repo | None) -> list[str]:
    """Run `git *args`, which must ask for NUL-separated output (`-z`), and return the paths
    (see `split_paths`)."""
    if "-z" not in args:
        raise ValueError("run_git_paths needs a command with -z")
    return split_paths(run_git_bytes(args, repo))


def is_transient(error: BaseException) -> bool:
    """True for a git failure that a network or server hiccup explains."""
    if not isinstance(error, GitError):
        return False
    text = f"{error.message}\n{error.stderr}".lower()
    return any(marker in text for marker in _TRANSIENT)


def network_retry(repo: Repo | None) -> NetworkRetry:
    """How commands of `repo` that talk to a remote are tried: its `Git` value's policy,
    else the defaults."""
    return NetworkRetry() if repo is None else Git.of(repo).network_retry


def retrying(
    policy: NetworkRetry,
    retry_on: Callable[[BaseException], bool],
    *,
    pause: Callable[[BaseException], bool] = lambda _error: True,
) -> Retrying:
    """The tenacity loop of `policy`: retry while `retry_on(error)`; wait only when
    `pause(error)`. The last error is raised as it is."""

    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if error is not None and not pause(error):
            return 0.0
        return policy.backoff * state.attempt_number

    def log(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        logger.warning("git attempt {} failed ({}); retrying", state.attempt_number, error)

    return Retrying(
        stop=stop_after_attempt(policy.attempts),
        wait=wait,
        retry=retry_if_exception(retry_on),
        sleep=lambda seconds: policy.sleep(seconds) if seconds > 0 else None,
        before_sleep=log,
        reraise=True,
    )


def run_network_read(
    args: Sequence[str], repo: Repo | None, *, retry: NetworkRetry | None = None
) -> str:
    """Run a command that reads from a remote (`fetch`, `ls-remote`), retried while its
    failures look like the network's."""
    for attempt in retrying(retry or network_retry(repo), is_transient):
        with attempt:
            return run_git(args, repo)
    raise AssertionError("unreachable: tenacity re-raises the last failure")
