"""`scripts/publish_release.py`: which tags a version moves and the release commit, offline,
against a local bare repository as `origin`, checked out the way actions/checkout checks
out a tag push (the tag's commit, the local tag forced to it, depth 1)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scripts.publish_release import ReleaseError, image_tags, pin_release

from amelia.testing.action_inputs import ACTION_YML
from tests.git_helpers import IDENTITY, git, init_repo

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "publish_release.py"
IMAGE = "ghcr.io/octo/amelia@sha256:" + "0123456789abcdef" * 4
REBUILT = "ghcr.io/octo/amelia@sha256:" + "fedcba9876543210" * 4


class Origin:
    """A bare `origin` with a main branch whose action.yml builds its Dockerfile."""

    def __init__(self, root: Path) -> None:
        self.root = root
        work = root / "work"
        work.mkdir(parents=True)
        shutil.copy(ACTION_YML, work / "action.yml")
        init_repo(work, {"README.md": "# amelia\n"})
        self.work = work
        self.bare = root / "origin.git"
        git(root, "clone", "-q", "--bare", str(work), str(self.bare))
        git(work, "remote", "add", "origin", str(self.bare))
        self._runs = 0

    def commit_and_tag(self, tag: str) -> str:
        """A new commit on main, pushed with the version tag `tag`."""
        (self.work / "CHANGES").write_text(f"{tag}\n", encoding="utf-8")
        git(self.work, "add", "CHANGES")
        git(self.work, *IDENTITY, "commit", "-q", "-m", tag)
        git(self.work, "tag", tag)
        git(self.work, "push", "-q", "origin", "main", f"refs/tags/{tag}")
        return git(self.work, "rev-parse", "HEAD").strip()

    def checkout(self, tag: str, commit: str) -> Path:
        """The job's checkout of the push of `tag` (for `commit`, the run's GITHUB_SHA)."""
        self._runs += 1
        path = self.root / f"job-{self._runs}"
        git(self.root, "init", "-q", str(path))
        git(path, "remote", "add", "origin", str(self.bare))
        git(path, "fetch", "-q", "--no-tags", "--depth=1", "origin", f"+{commit}:refs/tags/{tag}")
        git(path, "checkout", "-q", "--detach", f"refs/tags/{tag}")
        git(path, "config", "user.name", "github-actions[bot]")
        git(path, "config", "user.email", "bot@example.invalid")
        return path

    def tags(self) -> dict[str, str]:
        listed = git(
            self.bare, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/tags"
        )
        return dict(line.split() for line in listed.splitlines())

    def image_of(self, commit: str) -> str:
        text = git(self.bare, "show", f"{commit}:action.yml")
        (line,) = [line for line in text.splitlines() if line.startswith("  image:")]
        return line.split(":", 1)[1].strip()


@pytest.fixture
def origin(tmp_path: Path) -> Origin:
    return Origin(tmp_path)


def release(origin: Origin, tag: str, image: str = IMAGE) -> tuple[str, list[str]]:
    tagged = origin.commit_and_tag(tag)
    return tagged, pin_release(origin.checkout(tag, tagged), tag, image)


def test_a_release_pins_its_image_on_top_of_the_tagged_commit_and_moves_both_tags(
    origin: Origin,
) -> None:
    tagged, said = release(origin, "v1.2.3")

    tags = origin.tags()
    commit = tags["v1.2.3"]
    assert tags["v1"] == commit != tagged
    assert git(origin.bare, "rev-parse", f"{commit}^").strip() == tagged
    assert git(origin.bare, "diff", "--name-only", tagged, commit).split() == ["action.yml"]
    assert origin.image_of(commit) == f"docker://{IMAGE}"
    assert said == [
        f"release commit {commit} runs docker://{IMAGE}",
        f"moved v1.2.3 to {commit}",
        f"moved v1 to {commit}",
    ]


def test_a_re_run_keeps_the_release_commit_and_commits_nothing(origin: Origin) -> None:
    tagged, _said = release(origin, "v1.2.3")
    before = origin.tags()
    objects = git(origin.bare, "count-objects", "-v")

    # A re-run checks out the tagged commit again (image: Dockerfile), and its image job
    # pushed a new build.
    said = pin_release(origin.checkout("v1.2.3", tagged), "v1.2.3", REBUILT)

    assert origin.tags() == before
    assert git(origin.bare, "count-objects", "-v") == objects
    assert said == [
        f"v1.2.3 is released already as {before['v1.2.3']}: nothing committed",
        "every tag is on the release commit already",
    ]


def test_a_re_run_after_the_major_tag_failed_to_move_moves_only_it(origin: Origin) -> None:
    tagged, _said = release(origin, "v1.2.3")
    commit = origin.tags()["v1.2.3"]
    git(origin.bare, "update-ref", "-d", "refs/tags/v1")

    said = pin_release(origin.checkout("v1.2.3", tagged), "v1.2.3", IMAGE)

    assert origin.tags() == {"v1.2.3": commit, "v1": commit}
    assert said[-1] == f"moved v1 to {commit}"


def test_a_pre_release_never_moves_the_major_tag(origin: Origin) -> None:
    release(origin, "v1.3.0")
    v1 = origin.tags()["v1"]

    tagged, said = release(origin, "v1.4.0-rc.1")

    tags = origin.tags()
    assert tags["v1"] == v1
    assert git(origin.bare, "rev-parse", f"{tags['v1.4.0-rc.1']}^").strip() == tagged
    assert "v1 stays: v1.4.0-rc.1 is a pre-release" in said


def test_a_patch_of_an_older_line_leaves_the_major_tag_on_the_newest(origin: Origin) -> None:
    release(origin, "v1.3.0")
    v1 = origin.tags()["v1"]

    _tagged, said = release(origin, "v1.2.4")

    assert origin.tags()["v1"] == v1
    assert "v1 stays: a newer release of it exists" in said


def test_a_version_tag_moved_elsewhere_is_left_alone(origin: Origin) -> None:
    tagged = origin.commit_and_tag("v2.0.0")
    other = git(origin.work, "rev-parse", "HEAD^").strip()
    git(origin.bare, "update-ref", "refs/tags/v2.0.0", other)
    before = origin.tags()

    with pytest.raises(ReleaseError) as raised:
        pin_release(origin.checkout("v2.0.0", tagged), "v2.0.0", IMAGE)

    assert str(raised.value) == (
        f"v2.0.0 on origin points at {other}, which is neither the tagged commit {tagged} "
        "nor a release commit made from it: left as it is"
    )
    assert origin.tags() == before


def test_an_annotated_version_tag_is_released_and_moved(origin: Origin) -> None:
    (origin.work / "CHANGES").write_text("annotated\n", encoding="utf-8")
    git(origin.work, "add", "CHANGES")
    git(origin.work, *IDENTITY, "commit", "-q", "-m", "annotated")
    git(origin.work, *IDENTITY, "tag", "-a", "-m", "Release 3.0.0", "v3.0.0")
    git(origin.work, "push", "-q", "origin", "main", "refs/tags/v3.0.0")
    tagged = git(origin.work, "rev-parse", "HEAD").strip()

    pin_release(origin.checkout("v3.0.0", tagged), "v3.0.0", IMAGE)

    tags = origin.tags()
    assert tags["v3"] == tags["v3.0.0"]
    assert git(origin.bare, "rev-parse", f"{tags['v3']}^").strip() == tagged


@pytest.mark.parametrize(
    ("tag", "others", "expected"),
    [
        ("v1.2.3", [], {"prerelease": False, "minor": True, "major": True, "latest": True}),
        (
            "v1.4.0-rc.1",
            ["v1.3.0"],
            {"prerelease": True, "minor": False, "major": False, "latest": False},
        ),
        (
            "v1.2.4",
            ["v1.3.0", "v1.2.3"],
            {"prerelease": False, "minor": True, "major": False, "latest": False},
        ),
        (
            "v1.3.1",
            ["v1.3.0", "v2.0.0"],
            {"prerelease": False, "minor": True, "major": True, "latest": False},
        ),
        (
            "v2.0.0",
            ["v1.3.0", "v2.1.0-rc.1", "v9", "latest"],
            {"prerelease": False, "minor": True, "major": True, "latest": True},
        ),
    ],
)
def test_the_moving_image_tags_go_to_the_newest_release_only(
    tag: str, others: list[str], expected: dict[str, bool]
) -> None:
    assert image_tags(tag, [*others, tag]) == expected


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_the_command_line_prints_outputs_and_refuses_a_tag_that_is_no_version(
    origin: Origin,
) -> None:
    origin.commit_and_tag("v1.3.0")
    git(origin.work, "tag", "v1.4.0-rc.1")

    shown = run(origin.work, "tags", "v1.4.0-rc.1")

    assert (shown.returncode, shown.stderr) == (0, "")
    assert shown.stdout == "prerelease=true\nminor=false\nmajor=false\nlatest=false\n"
    for tag in ("v1.2.3.4", "v1.2", "1.2.3", "v01.2.3"):
        refused = run(origin.work, "pin", tag, IMAGE)
        assert refused.returncode == 1 and refused.stdout == ""
        assert refused.stderr == (
            f"publish_release: {tag!r} is not a version tag (v<major>.<minor>.<patch>, "
            "optionally -<pre-release> and +<build>)\n"
        )
