"""Which tags a version tag moves, and the release commit that runs the published image.

    python scripts/publish_release.py tags TAG            # image job: key=value lines
    python scripts/publish_release.py pin TAG IMAGE       # pin job, in the tag's checkout

The release workflow (`.github/workflows/release.yml`) runs both. A version tag is
`v<major>.<minor>.<patch>`, with an optional pre-release (`-rc.1`) and build (`+build.5`)
part; anything else is refused with one line and exit 1.

`tags` says, from the repository's tags, which image tags the version gets besides its own
(`1.2.3`): `1.2` when it is the newest release of its minor line, `1` the newest of its
major line, `latest` the newest of all. A pre-release gets none of them.

`pin` makes the release: on the tagged commit, a commit whose `action.yml` runs IMAGE by
digest (`scripts/pin_action_image.py`), then moves the version tag, and the major tag
(`v1`) when the version is the newest release of its major line, to that commit. A
pre-release never moves the major tag, and neither does an older version's release. It
reads the tags as they are on `origin` now, so running it again is harmless: when the
version tag already points at a release commit made from the tagged commit (one parent,
the tagged commit; only `action.yml` changed; `runs.image` pinned by digest), that commit
stays the release and nothing new is committed; only a tag not yet on it moves. Tags are
pushed together (`--atomic`) and only if nobody moved them meanwhile (`--force-with-lease`).
A version tag that points at anything else is left alone, with one line and exit 1.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ReleaseError", "Version", "image_tags", "main", "pin_release", "remote_tags"]

_VERSION = re.compile(
    r"^v(?P<major>0|[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)\.(?P<patch>0|[1-9][0-9]*)"
    r"(?:-(?P<pre>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)
_PIN_SCRIPT = Path(__file__).resolve().with_name("pin_action_image.py")
_PINNED = re.compile(r"^docker://[^@\s]+@sha256:[0-9a-f]{64}$")


class ReleaseError(Exception):
    """Why nothing was released."""


@dataclass(frozen=True)
class Version:
    """A version tag, `v1.2.3` or `v1.3.0-rc.1`."""

    tag: str
    major: int
    minor: int
    patch: int
    prerelease: bool

    @classmethod
    def parse(cls, tag: str) -> Version:
        found = _VERSION.match(tag)
        if found is None:
            raise ReleaseError(
                f"{tag!r} is not a version tag (v<major>.<minor>.<patch>, optionally "
                "-<pre-release> and +<build>)"
            )
        return cls(
            tag=tag,
            major=int(found["major"]),
            minor=int(found["minor"]),
            patch=int(found["patch"]),
            prerelease=found["pre"] is not None,
        )

    @property
    def core(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    @property
    def major_tag(self) -> str:
        return f"v{self.major}"


def _releases(names: list[str]) -> list[Version]:
    """The versions of the release (not pre-release) tags among `names`."""
    found = []
    for name in names:
        try:
            version = Version.parse(name)
        except ReleaseError:
            continue
        if not version.prerelease:
            found.append(version)
    return found


def _newest(version: Version, others: list[Version], width: int) -> bool:
    """`version` is a release and no release of the same first `width` parts is newer."""
    if version.prerelease:
        return False
    line = version.core[:width]
    return all(other.core <= version.core for other in others if other.core[:width] == line)


def image_tags(tag: str, names: list[str]) -> dict[str, bool]:
    """Which of the version's moving image tags to push, given every tag's name: `minor`
    (`1.2`), `major` (`1`) and `latest`."""
    version = Version.parse(tag)
    others = _releases(names)
    return {
        "prerelease": version.prerelease,
        "minor": _newest(version, others, 2),
        "major": _newest(version, others, 1),
        "latest": _newest(version, others, 0),
    }


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = " ".join(done.stderr.split()) or f"exit {done.returncode}"
        raise ReleaseError(f"git {args[0]} failed: {said}")
    return done.stdout


@dataclass(frozen=True)
class RemoteTag:
    """A tag on the remote: what the ref holds (a commit, or an annotated tag's object) and
    the commit it names."""

    value: str
    commit: str


def remote_tags(repo: Path, remote: str = "origin") -> dict[str, RemoteTag]:
    """Every tag on `remote` as it is now, by name."""
    values: dict[str, str] = {}
    peeled: dict[str, str] = {}
    for line in _git(repo, "ls-remote", "--tags", remote).splitlines():
        sha, _, ref = line.partition("\t")
        name = ref.removeprefix("refs/tags/")
        if name.endswith("^{}"):
            peeled[name[:-3]] = sha
        else:
            values[name] = sha
    return {name: RemoteTag(value, peeled.get(name, value)) for name, value in values.items()}


def _is_release_commit_of(repo: Path, commit: str, tagged: str) -> bool:
    """`commit` is a release commit made from `tagged`: its one parent, only `action.yml`
    changed, and that runs an image by digest."""
    parents = _git(repo, "rev-list", "--parents", "-n", "1", commit).split()[1:]
    if parents != [tagged]:
        return False
    if _git(repo, "diff", "--name-only", "-z", tagged, commit).split("\0")[:-1] != ["action.yml"]:
        return False
    import yaml  # the release workflow installs PyYAML for the pin script

    try:
        document = yaml.safe_load(_git(repo, "show", f"{commit}:action.yml"))
    except yaml.YAMLError:
        return False
    runs = document.get("runs") if isinstance(document, dict) else None
    image = runs.get("image") if isinstance(runs, dict) else None
    return isinstance(image, str) and _PINNED.match(image) is not None


def _commit_release(repo: Path, version: Version, image: str) -> str:
    """The tagged commit (HEAD) with `action.yml` pinned to `image`, committed on top."""
    done = subprocess.run(
        [sys.executable, str(_PIN_SCRIPT), "action.yml", image],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ReleaseError(done.stderr.strip() or f"pin_action_image exited {done.returncode}")
    if _git(repo, "status", "--porcelain", "--", "action.yml").strip():
        message = f"Run the published image {image} in {version.tag}"
        _git(repo, "commit", "--quiet", "-m", message, "--", "action.yml")
    return _git(repo, "rev-parse", "HEAD").strip()


def pin_release(
    repo: Path, tag: str, image: str, *, remote: str = "origin", tagged: str | None = None
) -> list[str]:
    """Make or find the release commit of `tag` and move the tags to it on `remote` (see
    the module's docstring). `tagged` is the commit the tag was pushed for (default: HEAD,
    the checkout of the tag). Returns what was done, one line each."""
    version = Version.parse(tag)
    tagged = tagged or _git(repo, "rev-parse", "HEAD^{commit}").strip()
    tags = remote_tags(repo, remote)
    current = tags.get(tag)
    if current is None:
        raise ReleaseError(f"{tag} is not on {remote}")
    said: list[str] = []
    if current.commit == tagged:
        release = _commit_release(repo, version, image)
        said.append(f"release commit {release} runs docker://{image}")
    else:
        _git(repo, "fetch", "--quiet", "--no-tags", remote, f"+refs/tags/{tag}:refs/release/{tag}")
        fetched = _git(repo, "rev-parse", f"refs/release/{tag}^{{commit}}").strip()
        if fetched != current.commit or not _is_release_commit_of(repo, fetched, tagged):
            raise ReleaseError(
                f"{tag} on {remote} points at {current.commit}, which is neither the tagged "
                f"commit {tagged} nor a release commit made from it: left as it is"
            )
        release = fetched
        said.append(f"{tag} is released already as {release}: nothing committed")
    moves: dict[str, RemoteTag | None] = {}
    if current.commit != release:
        moves[tag] = current
    major = version.major_tag
    if version.prerelease:
        said.append(f"{major} stays: {tag} is a pre-release")
    elif not _newest(version, _releases(list(tags)), 1):
        said.append(f"{major} stays: a newer release of it exists")
    elif major not in tags or tags[major].commit != release:
        moves[major] = tags.get(major)
    if not moves:
        said.append("every tag is on the release commit already")
        return said
    leases = [
        f"--force-with-lease=refs/tags/{name}:{old.value if old else ''}"
        for name, old in moves.items()
    ]
    refspecs = [f"{release}:refs/tags/{name}" for name in moves]
    _git(repo, "push", "--quiet", "--atomic", *leases, remote, *refspecs)
    said.extend(f"moved {name} to {release}" for name in moves)
    return said


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    usage = "usage: publish_release.py tags TAG | pin TAG REGISTRY/NAME@sha256:DIGEST"
    try:
        if len(arguments) == 2 and arguments[0] == "tags":
            names = _git(Path.cwd(), "tag", "--list").split()
            for name, value in image_tags(arguments[1], [*names, arguments[1]]).items():
                print(f"{name}={str(value).lower()}")
            return 0
        if len(arguments) == 3 and arguments[0] == "pin":
            for line in pin_release(Path.cwd(), arguments[1], arguments[2]):
                print(line)
            return 0
    except ReleaseError as error:
        print(f"publish_release: {error}", file=sys.stderr)
        return 1
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
