"""Point a docker action's `runs.image` at a published image by digest.

    python scripts/pin_action_image.py ACTION_YML REGISTRY/NAME@sha256:DIGEST

The release workflow runs it on the tagged commit once the image is pushed: `image:
Dockerfile` becomes `image: docker://ghcr.io/<owner>/amelia@sha256:…`, so a workflow
that uses that release pulls the image it was tested with instead of building it. Only
that one value changes; every other byte of the file (comments, inputs, layout) stays.

It refuses, with one line on stderr and exit 1: a reference without a sha256 digest, a
file that is not UTF-8 or not valid YAML, one that is not a docker action or has no
`runs.image`, and one already pinned to another image. Pinning again to the same image
changes nothing. The file's bytes are kept as they are: its line endings (CRLF too) and a
UTF-8 byte order mark at its start.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

__all__ = ["PinError", "main", "pin_action_image"]

_REFERENCE = re.compile(
    r"^(?P<name>[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)+)"
    r"@sha256:(?P<digest>[0-9a-f]{64})$"
)
_RUNS = re.compile(r"^runs:\s*(?:#.*)?$")
_BOM = "\ufeff"
_IMAGE = re.compile(
    r"^(?P<indent>[ ]+)image:(?P<space>[ \t]+)(?P<value>\S.*?)(?P<tail>[ \t]*(?:#.*)?)$"
)


class PinError(Exception):
    """Why the file was left as it was."""


def _one_line(error: yaml.YAMLError) -> str:
    """PyYAML's complaint in one line: what is wrong, and where."""
    if isinstance(error, yaml.MarkedYAMLError) and error.problem:
        mark = error.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        return f"{error.problem}{where}"
    return " ".join(str(error).split())


def _runs(document: Any, path: Path) -> dict[str, Any]:
    runs = document.get("runs") if isinstance(document, dict) else None
    if not isinstance(runs, dict) or runs.get("using") != "docker":
        raise PinError(f"{path} is not a docker action (runs.using is not docker)")
    if not isinstance(runs.get("image"), str):
        raise PinError(f"{path} has no runs.image")
    return runs


def pin_action_image(text: str, reference: str, *, path: Path = Path("action.yml")) -> str:
    """`text` (an action.yml) with `runs.image` set to `docker://<reference>`."""
    if _REFERENCE.match(reference) is None:
        raise PinError(
            f"{reference!r} is not an image named by digest "
            "(registry/owner/name@sha256:<64 hex digits>, lower case)"
        )
    if text.startswith(_BOM):
        return _BOM + pin_action_image(text[len(_BOM) :], reference, path=path)
    try:
        before = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise PinError(f"{path} is not valid YAML: {_one_line(error)}") from None
    image = _runs(before, path)["image"]
    wanted = f"docker://{reference}"
    if image == wanted:
        return text
    if image.startswith("docker://"):
        raise PinError(f"{path} already runs {image}, not {wanted}")

    lines = text.splitlines(keepends=True)
    in_runs = False
    child_indent: str | None = None
    changed: list[int] = []
    for number, line in enumerate(lines):
        bare = line.rstrip("\r\n")
        if _RUNS.match(bare):
            in_runs, child_indent = True, None
            continue
        if not in_runs or not bare.strip() or bare.lstrip().startswith("#"):
            continue
        if not bare[0].isspace():
            in_runs = False
            continue
        indent = bare[: len(bare) - len(bare.lstrip(" "))]
        child_indent = child_indent or indent
        found = _IMAGE.match(bare) if indent == child_indent else None
        if found is not None:
            ending = line[len(bare) :]
            lines[number] = (
                f"{found['indent']}image:{found['space']}{wanted}{found['tail']}{ending}"
            )
            changed.append(number)
    if len(changed) != 1:
        raise PinError(f"{path}: runs.image is not one plain `image: value` line under runs:")

    pinned = "".join(lines)
    after = yaml.safe_load(pinned)
    expected = dict(before)
    expected["runs"] = {**before["runs"], "image": wanted}
    if after != expected:
        raise PinError(f"{path}: rewriting runs.image would change more than runs.image")
    return pinned


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) != 2:
        print("usage: pin_action_image.py ACTION_YML REGISTRY/NAME@sha256:DIGEST", file=sys.stderr)
        return 2
    path, reference = Path(arguments[0]), arguments[1]
    try:
        # Bytes, not read_text: that would turn CRLF line endings into LF.
        text = path.read_bytes().decode("utf-8")
        pinned = pin_action_image(text, reference, path=path)
    except OSError as error:
        print(f"pin_action_image: cannot read {path}: {error.strerror}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as error:
        print(
            f"pin_action_image: {path} is not UTF-8 text (byte 0x{error.object[error.start]:02x} "
            f"at offset {error.start})",
            file=sys.stderr,
        )
        return 1
    except PinError as error:
        print(f"pin_action_image: {error}", file=sys.stderr)
        return 1
    if pinned != text:
        path.write_bytes(pinned.encode("utf-8"))
    print(f"{path}: runs.image is docker://{reference}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
