"""GitHub's refusals of a push, read from git's output as users report them."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.git import SecretLocation, read_refusal, secret_lines
from tests.git_helpers import IDENTITY, git, init_repo

WORKFLOW_BY_APP = """\
To https://github.com/octo/app
 ! [remote rejected] amelia/issue-1 -> amelia/issue-1 (refusing to allow a GitHub App \
to create or update workflow `.github/workflows/ci.yml` without `workflows` permission)
error: failed to push some refs to 'https://github.com/octo/app'
"""
WORKFLOW_BY_OAUTH = """\
remote: Resolving deltas: 100% (14/14), completed with 7 local objects.
To https://github.com/octo/app.git
 ! [remote rejected] main -> main (refusing to allow an OAuth App to create or update \
workflow `.github/workflows/release.yaml` without `workflow` scope)
error: failed to push some refs to 'https://github.com/octo/app.git'
"""
WORKFLOW_BY_PAT = """\
To https://github.com/octo/app.git
 ! [remote rejected] fix -> fix (refusing to allow a Personal Access Token to create or \
update workflow `.github/workflows/tests.yml` without `workflow` scope)
"""
LARGE_FILES = """\
remote: Resolving deltas: 100% (5/5), completed with 4 local objects.
remote: error: Trace: 3c804b3692c612f235b399d3cd5f852ac4331abd0d700ca6c98de25431a82edf
remote: error: See https://gh.io/lfs for more information.
remote: error: File data/model.bin is 101.00 MB; this exceeds GitHub's file size limit of 100.00 MB
remote: error: File my data/dump 2.sql is 818.04 MB; this exceeds GitHub's file size limit of 100.00 MB
remote: error: GH001: Large files detected. You may want to try Git Large File Storage - https://git-lfs.github.com.
To https://github.com/octo/app
 ! [remote rejected] amelia/issue-1 -> amelia/issue-1 (pre-receive hook declined)
error: failed to push some refs to 'https://github.com/octo/app'
"""  # noqa: E501 - GitHub's lines
PUSH_PROTECTION = """\
remote: error GH009: Secrets detected! This push failed.
remote:
remote:             GITHUB PUSH PROTECTION
remote: \u2014\u2014\u2014\u2014\u2014\u2014\u2014\u2014\u2014\u2014
remote:  Resolve the following secrets before pushing again.
remote:
remote: \u2014\u2014 Amazon AWS Access Key ID \u2014\u2014\u2014\u2014\u2014\u2014\u2014\u2014
remote:  locations:
remote:    - commit: a1cc356a479372f1c5e45df1cad1de640e58fa16
remote:      path: test_aws.txt:1
remote:
remote:  (?) To push, remove secret from commit(s) or follow this URL to allow the secret.
remote:  https://github.com/octo/app/security/secret-scanning/unblock-secret/2Sq4QTXidwRsOYCRAr
remote:
remote: \u2014\u2014 Amazon AWS Secret Access Key \u2014\u2014\u2014\u2014\u2014\u2014
remote:  locations:
remote:    - commit: a1cc356a479372f1c5e45df1cad1de640e58fa16
remote:      path: test_aws.txt:2
remote:
To https://github.com/octo/app.git
 ! [remote rejected] main -> main (push declined due to a detected secret)
error: failed to push some refs to 'https://github.com/octo/app.git'
"""
RULESET_PUSH_PROTECTION = """\
remote: error: GH013: Repository rule violations found for refs/heads/main.
remote:
remote: - GITHUB PUSH PROTECTION
remote:   \u2014\u2014\u2014\u2014\u2014\u2014\u2014\u2014
remote:     Resolve the following violations before pushing again
remote:
remote:     - Push cannot contain secrets
remote:
remote:       \u2014\u2014 GitHub Personal Access Token \u2014\u2014\u2014\u2014\u2014\u2014
remote:        locations:
remote:          - commit: 5477a7dd26384ed3c8b3814ee677f755ad27a597
remote:            path: src/api/github.ts:34
remote:
To https://github.com/octo/app.git
 ! [remote rejected] main -> main (push declined due to repository rule violations)
"""
RULESET = """\
remote: error: GH013: Repository rule violations found for refs/heads/amelia/issue-1.
remote: - Cannot create ref due to creations being restricted.
To https://github.com/octo/app
 ! [remote rejected] amelia/issue-1 -> amelia/issue-1 (push declined due to repository rule violations)
"""  # noqa: E501
PADDING = " " * 8
"""What GitHub adds after each of its lines (git shows it)."""
NETWORK = "fatal: unable to access 'https://github.com/octo/app/': Could not resolve host"


@pytest.mark.parametrize(
    ("stderr", "path", "who"),
    [
        (WORKFLOW_BY_APP, ".github/workflows/ci.yml", "a GitHub App"),
        (WORKFLOW_BY_OAUTH, ".github/workflows/release.yaml", "an OAuth App"),
        (WORKFLOW_BY_PAT, ".github/workflows/tests.yml", "a Personal Access Token"),
    ],
    ids=["app", "oauth", "pat"],
)
def test_a_workflow_refusal_names_the_file_and_whose_token(
    stderr: str, path: str, who: str
) -> None:
    refusal = read_refusal(stderr)
    assert refusal is not None
    assert (refusal.kind, refusal.files, refusal.token_kind) == ("workflow", (path,), who)
    assert refusal.said.startswith(f"refusing to allow {who} to create or update workflow")


def _padded(text: str) -> str:
    """`text` with GitHub's padding after each of its lines."""
    lines = text.splitlines()
    return "\n".join(line + PADDING if line.startswith("remote:") else line for line in lines)


def test_a_large_file_refusal_names_every_file() -> None:
    refusal = read_refusal(_padded(LARGE_FILES))
    assert refusal is not None and refusal.kind == "too_large"
    assert refusal.files == ("data/model.bin", "my data/dump 2.sql")
    assert (
        "File data/model.bin is 101.00 MB; this exceeds GitHub's file size limit of 100.00 MB"
        in (refusal.said)
    )


@pytest.mark.parametrize(
    "stderr", [PUSH_PROTECTION, RULESET_PUSH_PROTECTION], ids=["GH009", "GH013"]
)
def test_push_protection_is_a_secret_refusal_with_its_locations(stderr: str) -> None:
    refusal = read_refusal(_padded(stderr))
    assert refusal is not None and refusal.kind == "secret"
    assert refusal.locations
    first = refusal.locations[0]
    assert first.commit in stderr and f"path: {first.path}:{first.line}" in stderr


def test_the_locations_of_every_finding_are_read() -> None:
    refusal = read_refusal(PUSH_PROTECTION)
    assert refusal is not None
    commit = "a1cc356a479372f1c5e45df1cad1de640e58fa16"
    assert refusal.locations == (
        SecretLocation(commit, "test_aws.txt", 1),
        SecretLocation(commit, "test_aws.txt", 2),
    )
    assert refusal.files == ("test_aws.txt",)


def test_other_refusals_and_other_failures() -> None:
    ruleset = read_refusal(RULESET)
    assert ruleset is not None and ruleset.kind == "other" and ruleset.files == ()
    assert read_refusal(NETWORK) is None
    assert read_refusal("") is None


def test_the_lines_push_protection_pointed_at_are_read_from_the_commit(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"README.md": "# x\n"})
    (repo / "keys.txt").write_text('first\n  key = "secret-value-123"\n\n', encoding="utf-8")
    git(repo, "add", "keys.txt")
    git(repo, *IDENTITY, "commit", "-qm", "keys")
    commit = git(repo, "rev-parse", "HEAD").strip()
    found = [
        SecretLocation(commit, "keys.txt", 2),
        SecretLocation(commit, "keys.txt", 3),  # an empty line: nothing to mask
        SecretLocation(commit, "keys.txt", 99),
        SecretLocation("0" * 40, "keys.txt", 1),  # a commit amelia does not have
    ]
    assert secret_lines(repo, tuple(found)) == ['key = "secret-value-123"']
