"""Only the agents' work is committed: what earlier steps left in the checkout stays out.

A runner's checkout holds more than the repository before any agent runs: a credentials
file an auth action wrote, an `.npmrc` with a token, build output, a tracked file an
earlier step edited or staged. The baseline taken before the first agent run keeps all of
it out of amelia's commits, and files named like credentials stay out even when an agent
wrote them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.git import (
    WorktreeBaseline,
    WorktreeListing,
    commit_changes,
    is_secret_file,
    secret_files,
)
from tests.git_helpers import git, init_repo


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    repo = init_repo(
        tmp_path / "repo",
        {
            "README.md": "# demo\n",
            "app.py": "x = 1\n",
            "old.py": "gone = True\n",
            ".gitignore": "dist/\n.env\n",
        },
    )
    # What earlier steps of the job left behind.
    (repo / "gha-creds-1a2b3c.json").write_text('{"private_key": "-----BEGIN PRIVATE KEY-----"}')
    (repo / ".npmrc").write_text("//registry.npmjs.org/:_authToken=npm_secret\n")
    (repo / "build.log").write_text("built\n")
    (repo / "README.md").write_text("# demo\nEdited by an earlier step.\n")
    (repo / "staged.txt").write_text("staged by an earlier step\n")
    git(repo, "add", "staged.txt")
    (repo / "dist").mkdir()
    (repo / "dist" / "bundle.js").write_text("bundle\n")
    (repo / ".env").write_text("TOKEN=secret\n")
    return repo


def test_the_agents_paths_and_nothing_else_are_committed(checkout: Path) -> None:
    baseline = WorktreeBaseline.capture(checkout)
    # The agents' work: new, changed and deleted files, odd names, and credentials files.
    (checkout / "src").mkdir()
    (checkout / "src" / "new.py").write_text("y = 2\n")
    (checkout / "app.py").write_text("x = 2\n")
    (checkout / "old.py").unlink()
    (checkout / ":(glob)*").write_text("a name that looks like pathspec magic\n")
    (checkout / ".env.local").write_text("KEY=value\n")
    (checkout / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (checkout / "dist" / "more.js").write_text("ignored output\n")
    # An agent that un-ignores what was ignored before does not make it its own work.
    (checkout / ".gitignore").write_text("dist/\n")

    changes = baseline.changes()

    assert sorted(changes.paths) == sorted(
        [".gitignore", ":(glob)*", "app.py", "old.py", "src/new.py"]
    )
    assert sorted(changes.withheld) == [".env.local", "id_ed25519"]

    sha = commit_changes(checkout, changes.paths, "Implement", co_author="Bob <b@x.invalid>")

    assert sha is not None
    committed = git(checkout, "show", "--name-status", "--format=", "HEAD").splitlines()
    assert sorted(committed) == sorted(
        ["M\t.gitignore", "A\t:(glob)*", "M\tapp.py", "D\told.py", "A\tsrc/new.py"]
    )
    # The earlier files are untouched on disk, and what an earlier step staged stays staged.
    assert (checkout / "README.md").read_text() == "# demo\nEdited by an earlier step.\n"
    assert (checkout / ".npmrc").exists() and (checkout / "gha-creds-1a2b3c.json").exists()
    assert git(checkout, "diff", "--cached", "--name-only").split() == ["staged.txt"]
    assert "README.md" in git(checkout, "diff", "--name-only")


def test_a_file_an_agent_changed_again_after_an_earlier_step_is_committed(
    checkout: Path,
) -> None:
    baseline = WorktreeBaseline.capture(checkout)
    (checkout / "build.log").write_text("built again by the agent's test run\n")
    (checkout / "README.md").write_text("# demo\nRewritten by the agent.\n")

    assert sorted(baseline.changes().paths) == ["README.md", "build.log"]


def test_nothing_to_commit_makes_no_commit(checkout: Path) -> None:
    baseline = WorktreeBaseline.capture(checkout)
    head = git(checkout, "rev-parse", "HEAD")

    changes = baseline.changes()
    assert changes.paths == () and changes.withheld == ()
    assert commit_changes(checkout, changes.paths, "Nothing") is None
    assert git(checkout, "rev-parse", "HEAD") == head


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        (".npmrc", True),
        ("web/.npmrc", True),
        (".pypirc", True),
        ("gha-creds-0f9e8d7c6b5a.json", True),
        ("certs/server.pem", True),
        ("id_rsa", True),
        ("home/.ssh/id_ed25519", True),
        (".env", True),
        (".env.production", True),
        ("id_rsa.pub", False),
        ("id_utils.py", False),
        ("environment.py", False),
        ("docs/env.md", False),
        ("gha-creds.md", False),
    ],
)
def test_names_that_mark_credentials(path: str, secret: bool) -> None:
    assert is_secret_file(path) is secret


def test_a_listing_taken_before_credential_files_are_emptied_sees_what_one_taken_after_does(
    checkout: Path,
) -> None:
    listing = WorktreeListing.take(checkout)
    found = secret_files(checkout, listing=listing)
    assert sorted(found) == sorted(secret_files(checkout))
    assert sorted(found) == [".env", ".npmrc", "gha-creds-1a2b3c.json"]
    for path in found:  # emptied in place, as the credential guard does
        (checkout / path).write_bytes(b"")

    assert listing == WorktreeListing.take(checkout)
    shared = WorktreeBaseline.capture(checkout, listing=listing)
    assert shared == WorktreeBaseline.capture(checkout)
