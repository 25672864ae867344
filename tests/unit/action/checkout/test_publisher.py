"""The publisher: only the agents' work is committed; a change holding a secret of the run
is never pushed and is saved without the secret; a push carries the token only after every
agent process was stopped."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

from amelia.action.checkout import AgentSessions, CredentialGuard, Publisher
from amelia.errors import SecretInChangeError
from amelia.git import PushAllowance
from tests.git_helpers import IDENTITY, git, init_repo

SECRET = "sk-ant-api03-" + "ModelKeyOfThisRun0123456789abcdefgh"


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path]:
    origin = tmp_path / "origin.git"
    seed = init_repo(tmp_path / "seed", {"README.md": "# demo\n"})
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "amelia/issue-3")
    return work, origin


def _publisher(
    work: Path,
    *,
    token: str | None = None,
    dry_run: bool = False,
    artifacts_dir: Path | None = None,
    secrets: tuple[str, ...] = (),
    allowance: PushAllowance | None = None,
) -> tuple[Publisher, AgentSessions]:
    """The publisher of a user's clone (no runner) and its agent sessions."""
    guard = CredentialGuard(work, token=token, on_runner=False)
    sessions = AgentSessions(guard.git)
    publisher = Publisher(
        guard,
        sessions,
        dry_run=dry_run,
        artifacts_dir=artifacts_dir,
        secrets=secrets,
        allowance=allowance,
    )
    return publisher, sessions


def _agent(sessions: AgentSessions, work: object) -> None:
    async def agent_run() -> None:
        async with sessions.around("developer"):
            if callable(work):
                work()

    asyncio.run(agent_run())


def test_a_change_with_a_secret_is_refused_and_saved_without_it(
    clone: tuple[Path, Path], tmp_path: Path
) -> None:
    work, origin = clone
    encoded = base64.b64encode(SECRET.encode()).decode()
    (work / "leak.py").write_text(f'STOLEN = "{encoded}"\n')
    (work / "fine.py").write_text("x = 1\n")
    git(work, "add", "--all")
    git(work, *IDENTITY, "commit", "-qm", "Implement")
    artifacts = tmp_path / "artifacts"
    publisher, _sessions = _publisher(work, secrets=(SECRET,), artifacts_dir=artifacts)

    with pytest.raises(SecretInChangeError) as raised:
        publisher.push("amelia/issue-3")

    assert "`leak.py`" in raised.value.message and "fine.py" not in raised.value.message
    assert SECRET not in raised.value.message and encoded not in raised.value.message
    assert "amelia/issue-3" not in git(origin, "branch")
    saved = publisher.unpushed
    assert saved is not None and saved.files == ("fine.py", "leak.py")
    everything = saved.patch_path.read_bytes() + b"".join(
        path.read_bytes() for path in (saved.directory / "files").rglob("*") if path.is_file()
    )
    assert encoded.encode()[4:-4] not in everything and b"***" in everything
    assert b"x = 1" in everything


def test_a_token_shaped_string_is_pushed_and_flagged(clone: tuple[Path, Path]) -> None:
    work, origin = clone
    (work / "settings.py").write_text('EXAMPLE = "ghp_' + "x" * 36 + '"\n')
    git(work, "add", "--all")
    git(work, *IDENTITY, "commit", "-qm", "Implement")
    publisher, _sessions = _publisher(work, secrets=(SECRET,))

    publisher.push("amelia/issue-3")

    assert "amelia/issue-3" in git(origin, "branch")
    assert [(leak.path, leak.kind) for leak in publisher.flagged] == [
        ("settings.py", "GitHub token")
    ]
    assert "`settings.py` (GitHub token)" in publisher.notes()[0]


def test_commit_path_adds_the_trailer_and_skips_unchanged(clone: tuple[Path, Path]) -> None:
    work, _origin = clone
    publisher, _sessions = _publisher(work)
    (work / "plan.md").write_text("# plan\n")
    (work / "stray.txt").write_text("not mine\n")
    first = publisher.commit_path(
        "plan.md", "Plan issue #1", co_author="ada <ada@users.noreply.github.com>"
    )
    again = publisher.commit_path("plan.md", "Plan issue #1")

    assert first == again
    log = git(work, "log", "-1", "--format=%an <%ae>%n%B")
    assert log.startswith("amelia[bot] <amelia[bot]@users.noreply.github.com>\nPlan issue #1")
    assert "Co-authored-by: ada <ada@users.noreply.github.com>" in log
    assert git(work, "show", "--name-only", "--format=", "HEAD").split() == ["plan.md"]


def test_only_the_agents_work_is_committed_and_credential_files_are_withheld(
    clone: tuple[Path, Path],
) -> None:
    work, _origin = clone
    (work / "build.log").write_text("an earlier step's file\n")
    publisher, sessions = _publisher(work, allowance=PushAllowance(ask=lambda: False))

    def develop() -> None:
        (work / "app.py").write_text("x = 1\n")
        (work / ".env").write_text("KEY=1\n")
        (work / ".github" / "workflows").mkdir(parents=True)
        (work / ".github" / "workflows" / "ci.yml").write_text("on: push\n")

    _agent(sessions, develop)
    committed = publisher.commit_agent_work("Implement", co_author=None)

    assert committed.sha is not None and committed.withheld == (".env",)
    assert git(work, "show", "--name-only", "--format=", "HEAD").split() == ["app.py"]
    assert publisher.withheld == [".env"]
    assert [item.path for item in publisher.held_back.files] == [".github/workflows/ci.yml"]
    assert (work / "build.log").exists() and "build.log" in git(work, "status", "--short")
    assert "`.env`" in publisher.notes()[0]


def test_a_dry_run_searches_and_commits_but_pushes_nothing(clone: tuple[Path, Path]) -> None:
    work, origin = clone
    (work / "app.py").write_text("x = 1\n")
    git(work, "add", "--all")
    git(work, *IDENTITY, "commit", "-qm", "Implement")
    publisher, _sessions = _publisher(work, dry_run=True)

    head = publisher.push("amelia/issue-3")

    assert head == git(work, "rev-parse", "HEAD").strip()
    assert "amelia/issue-3" not in git(origin, "branch")


def test_a_push_after_an_agent_run_counts_the_pushed_commits_as_published(
    clone: tuple[Path, Path],
) -> None:
    work, _origin = clone
    publisher, sessions = _publisher(work, token="ghs_" + "x" * 36)
    assert publisher.published is None

    _agent(sessions, lambda: (work / "app.py").write_text("x = 1\n"))
    publisher.commit_agent_work("Implement")
    pushed = publisher.push("amelia/issue-3")

    start = sessions.published_at_start
    assert start is not None and publisher.published == [*start, pushed]
