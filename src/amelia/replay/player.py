"""Re-run a recording offline: `amelia replay <recording> [--repo DIR]`.

The checkout and its origin are rebuilt from the recording's pack (origin is a bare
repository on disk: pushes land there), the model APIs are the recorded answers served on
127.0.0.1 (`ModelReplayServer`), GitHub is the recording (`ReplayGitHub`: reads answered,
writes printed and saved as a dry run does), and the run gets the recorded event, inputs
and variables with placeholders for its secrets: no network and no key are needed. Then
the outcome is compared with the recorded one: the commits' trees, the plan file, the
review bodies, the exit code; `ReplayResult.differences` says what differs, and
`divergence` names the first model request the recording had no answer for.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final, TextIO

from amelia.config import process_environment, replaced_process_environment
from amelia.errors import AmeliaError, GitError
from amelia.git import Git
from amelia.replay.checkout import file_at, pushed_commits, rebuild
from amelia.replay.format import (
    PushedCommit,
    Recording,
    RecordingError,
    load_recording,
    unmasked_secret,
)
from amelia.replay.github import ReplayGitHub
from amelia.replay.model_server import Divergence, ModelReplayServer
from amelia.replay.stand_ins import StandIns

__all__ = ["PLACEHOLDER_SECRET", "ReplayResult", "replay"]

PLACEHOLDER_SECRET: Final = "amelia-replay-placeholder"  # noqa: S105 (stands for a masked one)
"""What each secret the recorded run had is replaced with: the replay needs none."""
_MODEL_URLS: Final = (
    ("anthropic", "ANTHROPIC_BASE_URL"),
    ("openai", "OPENAI_BASE_URL"),
    ("openrouter", "OPENROUTER_BASE_URL"),
)
_MACHINE_VARIABLES: Final = ("AMELIA_AGENT_USER", "AMELIA_MCP_USER")
"""Who agents and MCP servers run as: the recorded run's choice (what the agents saw
depends on it: another user's HOME, git and temporary files), unless the replaying
process sets it, e.g. `AMELIA_AGENT_USER=none` where the recorded user does not exist."""


@dataclass(frozen=True, kw_only=True)
class ReplayResult:
    """How a replay ended and how it compares with the recorded run."""

    recording: Recording
    exit_code: int
    checkout: Path
    origin: Path
    commits: list[PushedCommit]
    review_bodies: list[str]
    plan: str | None
    divergence: Divergence | None
    differences: list[str] = field(default_factory=list)
    writes: list[dict[str, Any]] = field(default_factory=list)
    stopped_by: str | None = None
    """The signal (`SIGINT` for Ctrl-C, `SIGTERM`) that stopped the replay before it
    ended: nothing is compared then."""

    @property
    def same(self) -> bool:
        """True when the replay reproduced the recorded run."""
        return self.stopped_by is None and self.divergence is None and not self.differences

    def report(self) -> str:
        """What a person reads at the end of `amelia replay`."""
        recorded = self.recording.manifest.outcome
        lines = [f"amelia replay of {self.recording.manifest.id}:"]
        if self.stopped_by is not None:
            lines.append(
                f"stopped by {self.stopped_by} before it ended: nothing was compared "
                "with the recorded run"
            )
        elif self.divergence is not None:
            lines.append(self.divergence.describe())
        if self.same:
            trees = ", ".join(f"{c.branch} {c.tree[:12]}" for c in self.commits) or "none"
            lines.append(
                f"the same outcome as the recorded run: exit {self.exit_code}, "
                f"{len(self.commits)} commit(s) with the same trees ({trees}), "
                f"{len(self.review_bodies)} review(s) with the same body"
                + (f", the same plan file {recorded.plan_path}" if recorded.plan else "")
            )
        else:
            lines += [f"differs: {difference}" for difference in self.differences]
        lines.append(f"the replay's checkout, origin and writes are in {self.checkout.parent}")
        return "\n".join(lines)


def _base_environment(root: Path) -> dict[str, str]:
    """What the replay's git and agents inherit of this machine: its PATH, language,
    temporary directory and agents' users, with a HOME of the replay's own (`root/home`).
    Never the rest of the replaying process's environment: its git config (a HOME's
    `log.decorate`), a hook's `GIT_DIR` or `GIT_INDEX_FILE` (git would rebuild the
    recording into the hook's repository), Claude Code's own settings (`ANTHROPIC_MODEL`,
    `CLAUDE_CODE_MAX_OUTPUT_TOKENS`): the recorded run had none of them."""
    base = process_environment()
    home = root / "home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": base.get("PATH", "/usr/bin:/bin"),
        "LANG": base.get("LANG", "C.UTF-8"),
        "HOME": str(home),
        **{name: base[name] for name in (*_MACHINE_VARIABLES, "TMPDIR") if name in base},
    }


def _environment(
    recording: Recording,
    root: Path,
    checkout: Path,
    server: ModelReplayServer,
    base: Mapping[str, str],
) -> dict[str, str]:
    manifest = recording.manifest
    environ = {
        name: unmasked_secret(name, value, PLACEHOLDER_SECRET)
        for name, value in manifest.environment.items()
    }
    for provider, variable in _MODEL_URLS:
        environ[variable] = server.base_url(provider)
    event_path = root / "event.json"
    event_path.write_text(json.dumps(manifest.event), encoding="utf-8")
    for name in ("output", "summary"):
        (root / name).touch()
    environ.update(base)
    environ.update(
        {
            "GITHUB_WORKSPACE": str(checkout),
            "GITHUB_EVENT_NAME": manifest.event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_OUTPUT": str(root / "output"),
            "GITHUB_STEP_SUMMARY": str(root / "summary"),
            "RUNNER_TEMP": str(root / "runner-temp"),
            "AMELIA_HOME": str(root / "amelia-home"),
            "AMELIA_DRY_RUN_DIR": str(root / "dry-run"),
            "AMELIA_ARTIFACTS_DIR": str(root / "artifacts"),
            "INPUT_RECORD": "false",
        }
    )
    (root / "runner-temp").mkdir(exist_ok=True)
    return environ


def _started(recording: Recording) -> datetime:
    """The recorded run's clock start: the replay runs on that day."""
    try:
        return datetime.fromisoformat(recording.manifest.created_at)
    except ValueError:
        raise RecordingError(
            f"{recording.directory} is malformed: created_at: not a date and time "
            f"({recording.manifest.created_at!r})"
        ) from None


def _replay_directory(repo: Path | None) -> tuple[Path, bool]:
    """Where the replay rebuilds the checkout: `repo`, an empty directory or one made now,
    else a new temporary one; and whether it was made here."""
    if repo is None:
        made = Path(tempfile.mkdtemp(prefix="amelia-replay-"))
        # The agents' user (amelia as root) must enter the checkout, as on a runner.
        made.chmod(0o755)
        return made, True
    root = repo.resolve()
    try:
        if not root.exists():
            root.mkdir(parents=True)
            return root, True
        if not root.is_dir():
            raise RecordingError(f"--repo {root} is not a directory")
        if any(root.iterdir()):
            raise RecordingError(f"--repo {root} is not empty: replay rebuilds the checkout there")
    except OSError as error:
        raise RecordingError(f"--repo {root} cannot be used: {error.strerror or error}") from None
    return root, False


def _remove(root: Path, *, itself: bool) -> None:
    """What a replay that could not start put in `root` (and `root` itself when it made it)."""
    if itself:
        shutil.rmtree(root, ignore_errors=True)
        return
    for child in root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _saved_dry_run_writes(directory: Path) -> list[dict[str, Any]]:
    """The writes a dry run saved in `directory` (`DryRunGitHub`: one JSON file each, in
    order), none when the run was no dry run."""
    if not directory.is_dir():
        return []
    saved = [path for path in directory.glob("*-*.json") if path.name.split("-")[0].isdigit()]
    saved.sort(key=lambda path: int(path.name.split("-")[0]))
    return [json.loads(path.read_text(encoding="utf-8")) for path in saved]


def _commit_names(commits: Iterable[PushedCommit]) -> list[tuple[str, str]]:
    return [(c.sha, f"<commit {n}>") for n, c in enumerate(commits, start=1)]


def _without_commits(text: str, names: Sequence[tuple[str, str]]) -> str:
    """`text` with each commit's id (whole, or a prefix of 7 or more) named by position."""
    for sha, name in names:
        text = re.sub(rf"\b{sha[:7]}[0-9a-f]{{0,{len(sha) - 7}}}\b", name, text)
    return text


def _compare(
    recording: Recording,
    exit_code: int,
    commits: list[PushedCommit],
    plan: str | None,
    reviews: list[str],
) -> list[str]:
    recorded = recording.manifest.outcome
    differences: list[str] = []
    if recorded.exit_code is not None and recorded.exit_code != exit_code:
        differences.append(f"exit code {exit_code}, recorded {recorded.exit_code}")
    was = [(c.branch, c.tree) for c in recorded.commits]
    now = [(c.branch, c.tree) for c in commits]
    if was != now:
        differences.append(
            "commit trees: recorded "
            + (", ".join(f"{b} {t[:12]}" for b, t in was) or "none")
            + "; replayed "
            + (", ".join(f"{b} {t[:12]}" for b, t in now) or "none")
        )
    if recorded.plan is not None and plan != recorded.plan:
        differences.append(f"the plan file {recorded.plan_path} differs")
    recorded_reviews = [
        str(call.arguments.get("body", ""))
        for call in recording.calls
        if call.operation == "create_review"
    ]
    old_names, new_names = _commit_names(recorded.commits), _commit_names(commits)
    before = [_without_commits(body, old_names) for body in recorded_reviews]
    after = [_without_commits(body, new_names) for body in reviews]
    if before != after:
        differences.append(
            f"review bodies: {len(recorded_reviews)} recorded, {len(reviews)} replayed"
            + ("" if len(before) != len(after) else ", with different text")
        )
    return differences


def _pull_heads(recording: Recording) -> dict[int, str]:
    """The head commit of each pull request the run read from GitHub, by number: the
    run fetched it as `refs/pull/<n>/head`, which the replay's origin serves too."""
    heads: dict[int, str] = {}
    for call in recording.calls:
        result = call.result
        if call.operation != "get_pull" or not isinstance(result, dict):
            continue
        number, sha = result.get("number"), result.get("head_sha")
        if isinstance(number, int) and isinstance(sha, str):
            heads.setdefault(number, sha)
    return heads


def replay(
    path: Path,
    *,
    repo: Path | None = None,
    stream: TextIO | None = None,
) -> ReplayResult:
    """Replay the recording at `path` in `repo` (an empty or new directory; None: a
    temporary one, kept) and compare. Raises `RecordingError` for an unreadable recording
    or a `repo` that is not empty."""
    from amelia.action.engine import ActionPorts, ActionRequest, Clock, run_action_to_exit

    recording = load_recording(path)
    manifest = recording.manifest
    start = manifest.checkout
    if start is None:
        raise RecordingError(
            f"{recording.directory} recorded no checkout (its run ended before one was "
            "prepared): there is nothing to replay"
        )
    started = _started(recording)  # every check of the recording before a file is made
    repository = manifest.event.get("repository")
    default = repository.get("default_branch") if isinstance(repository, dict) else None
    if start.default_branch is None and isinstance(default, str):
        start = start.model_copy(update={"default_branch": default})
    root, made = _replay_directory(repo)
    base = _base_environment(root)
    with replaced_process_environment(base):
        try:
            origin, checkout = rebuild(
                recording.pack, start, root, pull_heads=_pull_heads(recording)
            )
        except (AmeliaError, OSError) as error:
            _remove(root, itself=made)
            reason = error.message if isinstance(error, AmeliaError) else str(error)
            raise RecordingError(f"the recorded checkout cannot be rebuilt: {reason}") from None
        except KeyboardInterrupt:  # Ctrl-C before the run: a replay that did not start
            _remove(root, itself=made)  # leaves nothing in `--repo`
            raise
        trusted = Git(checkout).with_config({"safe.directory": "*"})

        def replayed_commits() -> list[PushedCommit]:
            try:
                return pushed_commits(trusted, start, local=True)
            except GitError:  # none to stand in: the read is not answered, and says so
                return []

        stand_ins = StandIns(manifest.outcome.commits, replayed_commits)
        github = ReplayGitHub(
            recording.calls, directory=root / "writes", stream=stream, stand_ins=stand_ins
        )
        paths = [start.path, str(checkout)]
        moved = (start.path, str(checkout))
        with ModelReplayServer(recording.exchanges, paths=paths, moved=moved) as server:
            environ = _environment(recording, root, checkout, server, base)
            request = ActionRequest(
                environ=environ,
                event_name=manifest.event_name,
                event_path=Path(environ["GITHUB_EVENT_PATH"]),
                workspace=checkout,
            )
            ports = ActionPorts(
                github=github, origin_url=origin.as_uri(), clock=Clock(now=lambda: started)
            )
            # As in a run: the CLI starts from this process's environment (the SDK copies it).
            with replaced_process_environment(environ):
                exit_code, stopped_by = run_action_to_exit(request=request, ports=ports)
            divergence = server.divergence
            unserved = server.unserved()
        git = trusted
        commits = pushed_commits(git, start, local=manifest.dry_run)
        outcome = manifest.outcome
        plan = None
        if outcome.plan_path:
            tips = [c.sha for c in commits if c.branch == outcome.outputs.get("branch")]
            plan = file_at(git, tips[-1] if tips else start.head, outcome.plan_path)
        # A dry run keeps its writes to itself, also over the recording: its saved ones.
        writes = [*github.writes, *_saved_dry_run_writes(root / "dry-run")]
        reviews = [str(w.get("body", "")) for w in writes if w["action"] == "create_review"]
        differences = _compare(recording, exit_code, commits, plan, reviews)
        if divergence is None and unserved:
            first = unserved[0]
            differences.insert(
                0,
                f"the replay ended before model request {first.index} ({first.agent}, turn "
                f"{first.turn}) of the recorded run",
            )
        differences[:0] = [
            f"GitHub was asked {read}, never in the recording" for read in github.unknown_reads
        ]
        if stopped_by is not None:  # an interrupted replay is not one that differs
            divergence, differences = None, []
    result = ReplayResult(
        recording=recording,
        exit_code=exit_code,
        checkout=checkout,
        origin=origin,
        commits=commits,
        review_bodies=reviews,
        plan=plan,
        divergence=divergence,
        differences=differences,
        writes=writes,
        stopped_by=stopped_by,
    )
    print(result.report(), file=stream or sys.stdout)
    return result
