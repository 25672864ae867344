"""`scripts/pin_action_image.py`: the release's rewrite of `runs.image`, offline."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from scripts.pin_action_image import PinError, pin_action_image

from amelia.testing.action_inputs import ACTION_YML

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "pin_action_image.py"
DIGEST = "sha256:" + "0123456789abcdef" * 4
REFERENCE = f"ghcr.io/octo/amelia@{DIGEST}"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def test_the_released_action_yml_runs_the_image_by_digest_and_nothing_else_changes(
    tmp_path: Path,
) -> None:
    action = tmp_path / "action.yml"
    shutil.copy(ACTION_YML, action)
    original = action.read_text(encoding="utf-8")

    done = run(str(action), REFERENCE)

    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == f"{action}: runs.image is docker://{REFERENCE}\n"
    pinned = action.read_text(encoding="utf-8")
    assert yaml.safe_load(pinned)["runs"] == {"using": "docker", "image": f"docker://{REFERENCE}"}
    # One line changed, every other byte kept (comments, inputs, outputs).
    before, after = original.splitlines(), pinned.splitlines()
    assert len(before) == len(after)
    assert [(b, a) for b, a in zip(before, after, strict=True) if b != a] == [
        ("  image: Dockerfile", f"  image: docker://{REFERENCE}")
    ]


def test_pinning_again_to_the_same_image_changes_nothing(tmp_path: Path) -> None:
    action = tmp_path / "action.yml"
    shutil.copy(ACTION_YML, action)
    assert run(str(action), REFERENCE).returncode == 0
    pinned = action.read_bytes()
    again = run(str(action), REFERENCE)
    assert again.returncode == 0 and action.read_bytes() == pinned


def test_only_runs_image_at_its_own_level_is_rewritten_with_its_comment_kept() -> None:
    text = (
        "name: x\n"
        "image: not-this-one\n"
        "runs:\n"
        "  # the image\n"
        "  using: 'docker'\n"
        "  env:\n"
        "    image: nor-this-one\n"
        "  image: 'Dockerfile'   # built on every run\r\n"
        "  args: ['a']\n"
        "branding:\n"
        "  image: neither\n"
    )
    pinned = pin_action_image(text, REFERENCE)
    assert pinned == text.replace(
        "  image: 'Dockerfile'   # built on every run\r\n",
        f"  image: docker://{REFERENCE}   # built on every run\r\n",
    )


@pytest.mark.parametrize(
    ("reference", "says"),
    [
        ("ghcr.io/octo/amelia:1.2.3", "not an image named by digest"),
        ("ghcr.io/octo/amelia@sha256:abc", "not an image named by digest"),
        (f"ghcr.io/Octo/amelia@{DIGEST}", "lower case"),
        (f"docker://ghcr.io/octo/amelia@{DIGEST}", "not an image named by digest"),
        (f"amelia@{DIGEST}", "not an image named by digest"),
    ],
)
def test_a_reference_without_a_digest_is_refused(tmp_path: Path, reference: str, says: str) -> None:
    action = tmp_path / "action.yml"
    shutil.copy(ACTION_YML, action)
    before = action.read_bytes()
    done = run(str(action), reference)
    assert done.returncode == 1
    assert says in done.stderr and done.stderr.startswith("pin_action_image: ")
    assert "Traceback" not in done.stderr
    assert action.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name: x\nruns:\n  using: node20\n  main: index.js\n", "not a docker action"),
        ("name: x\nruns:\n  using: docker\n", "has no runs.image"),
        ("name: x\n", "not a docker action"),
        ("name: [x\n", "not valid YAML"),
        (
            f"runs:\n  using: docker\n  image: docker://ghcr.io/octo/other@{DIGEST}\n",
            "already runs docker://ghcr.io/octo/other",
        ),
        ("runs: {using: docker, image: Dockerfile}\n", "not one plain `image: value` line"),
    ],
)
def test_what_cannot_be_pinned_is_refused(text: str, says: str) -> None:
    with pytest.raises(PinError, match=says):
        pin_action_image(text, REFERENCE)


def test_a_missing_file_and_wrong_usage_fail_without_a_traceback(tmp_path: Path) -> None:
    missing = run(str(tmp_path / "nope.yml"), REFERENCE)
    assert missing.returncode == 1
    assert missing.stderr.startswith("pin_action_image: cannot read")
    usage = run(str(tmp_path / "nope.yml"))
    assert usage.returncode == 2 and usage.stderr.startswith("usage:")


def test_the_release_workflow_pins_the_digest_it_pushed_on_the_tagged_commit() -> None:
    workflow = yaml.safe_load((SCRIPT.parents[1] / ".github/workflows/release.yml").read_text())
    assert workflow[True] == {"push": {"tags": ["v*.*.*"]}}  # `on:` reads as True in YAML 1.1
    image, pin = workflow["jobs"]["image"], workflow["jobs"]["pin"]
    assert image["permissions"] == {"contents": "read", "packages": "write"}
    assert image["outputs"]["digest"] == "${{ steps.build.outputs.digest }}"
    (build,) = [step for step in image["steps"] if step.get("id") == "build"]
    assert build["with"]["push"] is True
    # The moving image tags follow the script's decision: none for a pre-release, and
    # only for the newest release of their line.
    (tags,) = [step for step in image["steps"] if step.get("id") == "tags"]
    assert tags["run"] == 'python3 scripts/publish_release.py tags "$TAG" >> "$GITHUB_OUTPUT"'
    (meta,) = [step for step in image["steps"] if step.get("id") == "meta"]
    assert meta["with"]["tags"].split() == [
        "type=semver,pattern={{version}}",
        "type=semver,pattern={{major}}.{{minor}},enable=${{",
        "steps.tags.outputs.minor",
        "}}",
        "type=semver,pattern={{major}},enable=${{",
        "steps.tags.outputs.major",
        "}}",
    ]
    assert meta["with"]["flavor"].strip() == "latest=${{ steps.tags.outputs.latest }}"
    assert (pin["needs"], pin["permissions"]) == ("image", {"contents": "write"})
    script = "\n".join(step.get("run", "") for step in pin["steps"])
    # The tags move only through the script, which makes the release commit once.
    assert 'python scripts/publish_release.py pin "$TAG" "$IMAGE"' in script
    assert "git tag" not in script and "git push" not in script
    (release,) = [step for step in pin["steps"] if "publish_release" in step.get("run", "")]
    assert release["env"]["IMAGE"] == (
        "${{ needs.image.outputs.name }}@${{ needs.image.outputs.digest }}"
    )
    # Between releases, the action builds its Dockerfile (what main and pull requests test).
    assert yaml.safe_load(ACTION_YML.read_text())["runs"]["image"] == "Dockerfile"


def test_a_crlf_file_keeps_its_line_endings_and_a_bom_its_mark(tmp_path: Path) -> None:
    action = tmp_path / "action.yml"
    original = ACTION_YML.read_bytes().replace(b"\n", b"\r\n")
    for start in (b"", b"\xef\xbb\xbf"):
        action.write_bytes(start + original)

        done = run(str(action), REFERENCE)

        assert (done.returncode, done.stderr) == (0, ""), done.stderr
        pinned = action.read_bytes()
        assert pinned == start + original.replace(
            b"  image: Dockerfile\r\n", f"  image: docker://{REFERENCE}\r\n".encode()
        )
        assert run(str(action), REFERENCE).returncode == 0 and action.read_bytes() == pinned


@pytest.mark.parametrize(
    ("content", "stderr"),
    [
        (
            "name: caf\xe9\nruns:\n  using: docker\n  image: Dockerfile\n".encode("latin-1"),
            "pin_action_image: {path} is not UTF-8 text (byte 0xe9 at offset 9)\n",
        ),
        (
            b"name: [x\nruns:\n  using: docker\n  image: Dockerfile\n",
            "pin_action_image: {path} is not valid YAML: expected ',' or ']', but got ':' "
            "(line 2, column 5)\n",
        ),
        (
            b"runs:\n  using: docker\n  image: Dockerfile\n\tbad: tab\n",
            "pin_action_image: {path} is not valid YAML: found character '\\t' that cannot "
            "start any token (line 4, column 1)\n",
        ),
    ],
)
def test_a_file_that_is_not_utf8_or_not_yaml_is_one_line_and_exit_1(
    tmp_path: Path, content: bytes, stderr: str
) -> None:
    action = tmp_path / "action.yml"
    action.write_bytes(content)

    done = run(str(action), REFERENCE)

    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == stderr.format(path=action)
    assert action.read_bytes() == content
