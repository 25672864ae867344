"""Model requests as a recording compares them: whose they are, which turn, what changed.

A request names its agent by the instructions it carries (the architect's, developer's,
reviewer's or answerer's first line; anything else, e.g. a CLI's side request, is
`other`) and its turn by the answers its conversation holds already. Two requests are
the same when their bodies are, once what differs from machine to machine is set aside:
the paths of the checkout (also as a CLI names a directory after it) and the temporary
directories (under whatever `$TMPDIR`), the date, git object ids (the run's own commits
get new ones), the machine a CLI describes in its system prompt (its platform, shell and
kernel version), the client's per-install `metadata`, and secrets (masked in the
recording, so masked here too).
"""

from __future__ import annotations

import difflib
import json
import re
import tempfile
from collections.abc import Iterable, Iterator
from typing import Any, Final

from pydantic_core import from_json

from amelia.agents.prompts import (
    ANSWERER_INSTRUCTIONS,
    ARCHITECT_PLAN_PROMPT,
    DEVELOPER_INSTRUCTIONS,
    REVIEWER_INSTRUCTIONS,
)

__all__ = ["agent_of", "normalized", "request_diff", "turn_of"]

_AGENTS: Final = (
    ("answerer", ANSWERER_INSTRUCTIONS),
    ("architect", ARCHITECT_PLAN_PROMPT),
    ("developer", DEVELOPER_INSTRUCTIONS),
    ("reviewer", REVIEWER_INSTRUCTIONS),
)
_MARKERS: Final = tuple((name, json.dumps(text.splitlines()[0])[1:-1]) for name, text in _AGENTS)
"""Each agent's first line of instructions, as it appears inside a JSON string."""
_VOLATILE_KEYS: Final = frozenset({"metadata", "user", "prompt_cache_key", "safety_identifier"})
_DATE: Final = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
_TEMP_DIR: Final = re.compile(
    r"/tmp/[A-Za-z0-9_.-]*?(?:tmp|amelia|pytest)[A-Za-z0-9_.-]*"  # noqa: S108 (read, not used)
)
_SCRATCH: Final = re.compile(r"/amelia-[a-z]+(?:-[a-z0-9]+)*?-[a-z0-9_]{8}(?![A-Za-z0-9_])")
"""A directory amelia made with `mkdtemp` (`amelia-claude-…`, the CLI's configuration
directory), set aside with the path it is in (`_without_scratch`): `$TMPDIR` differs
between machines (macOS's `/var/folders/…/T`, `/tmp/user/1000`, a runner's own)."""
_SCRATCH_SLUG: Final = re.compile(r"-amelia-[a-z]+(?:-[a-z]+)*-[a-z0-9-]{8}[A-Za-z0-9-]*")
"""The same directory inside a CLI's name for a path (`_slug`): `/tmp/amelia-pull-head-k2_x…`
as `-tmp-amelia-pull-head-k2-x…` in Claude Code's project directory for a head reviewed as
data, set aside with the whole name: in a name, mkdtemp's `_` is a dash like the ones around
it, so where the directory's own name ends cannot be told (in
`-tmp-amelia-pull-head-xaor-odt-head` the eight characters mkdtemp drew read as `xaor-odt`
and as `odt-head`)."""
_SCRATCH_ANY: Final = re.compile(f"({_SCRATCH.pattern})|{_SCRATCH_SLUG.pattern}")
_PATH_ENDS: Final = frozenset(" \t\n`'\"")
_NAME_ENDS: Final = _PATH_ENDS | {"/"}
_SLUG_LIMIT: Final = 200
"""Claude Code cuts a directory's name after 200 characters and adds a hash of the path."""
_OBJECT_ID: Final = re.compile(r"\b[0-9a-f]{7,40}\b")
"""A git object id, whole or abbreviated: the run's own commits get new ones in a replay
(their dates differ), so every id is set aside; their trees are compared at the end. One
in 27 abbreviated ids is all digits (`8525304`), so any run of 7 to 40 such characters
counts, a long number or a word like `defaced` too: set aside on both sides, they never
make two requests differ."""
_MACHINE: Final = re.compile(r"^(.*: +- (?:Platform|Shell|OS Version): ).*$", re.MULTILINE)
"""A line of the environment Claude Code describes to its model (` - OS Version: Linux
6.18.44-…`): the machine the run was on, not what it was asked, so a recording replays on
another kernel, or a run recorded on a laptop replays on a runner."""
_MAX_DIFF_LINES: Final = 60
_MAX_LINE: Final = 240


def agent_of(request: str) -> str:
    """architect, developer, reviewer, answerer, or other."""
    for name, marker in _MARKERS:
        if marker in request:
            return name
    return "other"


def turn_of(request: str) -> int:
    """1 + the answers the request's conversation holds (Messages, chat and Responses)."""
    try:
        # pydantic-core's parser: this runs on every request a recording keeps, which
        # resends the conversation so far, and takes half the time of `json.loads`.
        body = from_json(request)
    except ValueError:
        return 1
    if not isinstance(body, dict):
        return 1
    items = body.get("messages") or body.get("input") or []
    if not isinstance(items, list):
        return 1
    return 1 + sum(
        1 for item in items if isinstance(item, dict) and item.get("role") == "assistant"
    )


def _without_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_volatile(v) for k, v in value.items() if k not in _VOLATILE_KEYS}
    if isinstance(value, list):
        return [_without_volatile(item) for item in value]
    return value


def _flat(value: Any, where: str) -> Iterator[str]:
    """One line per line of text in the JSON value, each led by where it is."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _flat(value[key], f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _flat(item, f"{where}[{index}]")
    elif isinstance(value, str):
        for line in value.split("\n"):
            yield f"{where}: {line}"
    else:
        yield f"{where} = {json.dumps(value)}"


def _slug(path: str) -> str:
    """How a CLI names a directory after a path: every other UTF-16 unit a dash (Claude
    Code is JavaScript: a character beyond the BMP is two), cut after 200 characters."""
    slug = "".join(
        c if c.isascii() and c.isalnum() else "-" * (2 if ord(c) > 0xFFFF else 1) for c in path
    )
    return slug[:_SLUG_LIMIT]


def _without_scratch(text: str) -> str:
    """`text` with each path to a directory amelia made with `mkdtemp` replaced by `<tmp>`:
    the name found, then its path back to where the path starts (a space or a quote), or
    in a CLI's name for such a path, that name back to its start (also a slash); never
    past the previous match, so one pass over the text."""
    pieces: list[str] = []
    done = 0
    for match in _SCRATCH_ANY.finditer(text):
        start = match.start()
        ends = _PATH_ENDS if match.group(1) is not None else _NAME_ENDS
        while start > done and text[start - 1] not in ends:
            start -= 1
        pieces += (text[done:start], "<tmp>")
        done = match.end()
    pieces.append(text[done:])
    return "".join(pieces)


def normalized(request: str, *, paths: Iterable[str] = ()) -> str:
    """The request as compared: one line per line of its text, each led by its place in
    the JSON, without per-install keys, with `paths` (the checkouts', also as a CLI's
    directory name), temporary directories, dates and the machine's description replaced."""
    try:
        text = "\n".join(_flat(_without_volatile(json.loads(request)), ""))
    except json.JSONDecodeError:
        text = request
    chosen = {p for p in paths if p and p != "/"}
    for path in sorted(chosen | {_slug(p) for p in chosen}, key=len, reverse=True):
        if len(path) == _SLUG_LIMIT and "/" not in path:  # a cut name: its hash follows
            text = re.sub(re.escape(path) + r"(?:-[0-9a-z]+)?", "<checkout>", text)
        else:
            text = text.replace(path, "<checkout>")
    here = tempfile.gettempdir()
    if here != "/tmp":  # noqa: S108 (compared, not used)
        text = text.replace(f"{here}/amelia-", "/tmp/amelia-")  # noqa: S108
    text = _without_scratch(text)
    text = _TEMP_DIR.sub("<tmp>", text)
    text = _MACHINE.sub(r"\1<machine>", text)
    text = _OBJECT_ID.sub("<commit>", text)
    return _DATE.sub("<date>", text)


def request_diff(recorded: str, replayed: str) -> str:
    """A unified diff of two normalized requests, its first lines only."""
    lines = list(
        difflib.unified_diff(
            recorded.splitlines(),
            replayed.splitlines(),
            fromfile="recorded request",
            tofile="this request",
            lineterm="",
            n=2,
        )
    )
    lines = [line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…" for line in lines]
    if len(lines) > _MAX_DIFF_LINES:
        lines = [*lines[:_MAX_DIFF_LINES], f"… ({len(lines) - _MAX_DIFF_LINES} more lines)"]
    return "\n".join(lines)
