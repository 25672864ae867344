"""The recording of a run: what is in it, on disk, and how it is read back.

A recording is a directory (`$AMELIA_HOME/runs/<id>/`):

- `recording.json`: the manifest (`Manifest`): the format version, the event and its
  payload, the inputs and the variables the run was configured with (secrets blanked),
  the starting commits of the checkout and of origin, and the outcome (conclusion,
  outputs, pushed commits with their trees);
- `model.jsonl`: every model exchange as the credential proxy saw it, in order
  (`ModelExchange`);
- `github.jsonl`: every GitHub call of the run, reads and writes, in order (`GitHubCall`);
- `checkout.pack`: a git pack of the starting commits, to rebuild the checkout and origin.

Everything in it went through the run's redactor first (and every spelling of a secret,
base64 and hex too, is masked), so no credential is ever stored. `FORMAT_VERSION` names
the layout: a recording of another version is refused with a clear error (exit 2).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from amelia import __version__
from amelia.errors import InputError
from amelia.mcp.values import MCP_SECRETS_INPUT

__all__ = [
    "CHECKOUT_PACK",
    "FORMAT_VERSION",
    "GITHUB_FILE",
    "MANIFEST_FILE",
    "MODEL_FILE",
    "GitHubCall",
    "Manifest",
    "ModelExchange",
    "PushedCommit",
    "RecordedOutcome",
    "Recording",
    "RecordingError",
    "StartingCheckout",
    "load_recording",
    "masked_secret",
    "unmasked_secret",
]

FORMAT_VERSION: Final = 1
MANIFEST_FILE: Final = "recording.json"
MODEL_FILE: Final = "model.jsonl"
GITHUB_FILE: Final = "github.jsonl"
CHECKOUT_PACK: Final = "checkout.pack"
MASKED: Final = "***"
MCP_SECRETS_VARIABLE: Final = f"INPUT_{MCP_SECRETS_INPUT.upper()}"
_NAMED_LINE = re.compile(r"^\s*([A-Z_][A-Z0-9_]*)\s*=")


def masked_secret(name: str, value: str) -> str:
    """A secret variable's value as a recording keeps it: `***` when set, "" when not.
    The MCP servers' secrets (`INPUT_MCP_SECRETS`, `NAME=value` lines) keep the name of
    each line written as a variable is (`DOCS_API_KEY=value`: upper case, a value that is
    more than `=` signs), `NAME=***`, so that a replay can give each name a value. Any other
    line is `***` whole: a value pasted without its name (`dG9rZW4=`, a key's last line)
    would otherwise keep what comes before its `=`. Blank lines and comments are left out."""
    if not value or name != MCP_SECRETS_VARIABLE:
        return MASKED if value else ""
    lines = []
    for line in value.splitlines():
        if not line.strip() or line.strip().startswith("#"):
            continue
        named = _NAMED_LINE.match(line)
        given = line[named.end() :].strip().strip("=") if named else ""
        lines.append(f"{named.group(1)}={MASKED}" if named and given else MASKED)
    return "\n".join(lines)


def unmasked_secret(name: str, value: str, placeholder: str) -> str:
    """A recorded variable's value for its replay: `placeholder` for each value that
    `masked_secret` masked, everything else as it was."""
    if value == MASKED:
        return placeholder
    if name != MCP_SECRETS_VARIABLE:
        return value
    return "\n".join(_unmasked_line(line, placeholder) for line in value.splitlines())


def _unmasked_line(line: str, placeholder: str) -> str:
    if line == MASKED:
        return placeholder
    if line.endswith(f"={MASKED}") and _NAMED_LINE.match(line):
        return line.removesuffix(MASKED) + placeholder
    return line


class RecordingError(InputError):
    """A recording that cannot be read or replayed as it is (exit 2)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class StartingCheckout(_Model):
    """The checkout when the run started, and what origin held as far as the run saw."""

    path: str
    """Where the checkout was (redacted): replay reads it out of recorded requests."""
    head: str
    branch: str | None = None
    """The branch checked out, None when HEAD was detached."""
    origin: dict[str, str] = Field(default_factory=dict)
    """origin's branches the run saw (fetched or checked out), by name, at their first sight:
    a branch the run fetched, at the first commit it fetched."""
    tracking: dict[str, str] | None = None
    """The checkout's remote-tracking branches of origin when the run started, by name,
    where they may be older than what the run then fetched (None: as `origin`)."""
    shallow: list[str] = Field(default_factory=list)
    """The shallow boundary of the checkout (actions/checkout fetches one commit)."""
    default_branch: str | None = None
    remotes: dict[str, str] = Field(default_factory=dict)
    """The checkout's other remote-tracking refs, by name under refs/remotes/: for a pull
    request's event actions/checkout fetches `pull/<n>/merge` and leaves HEAD detached at
    it, a commit on no branch of origin."""
    origin_url: str | None = None
    """origin's URL in the checkout's config (redacted), which an agent may read."""
    fetched: list[str] = Field(default_factory=list)
    """Commits the run fetched into refs of its own (a pull's head under review), in the
    pack so that the replay's origin serves them."""


class PushedCommit(_Model):
    """A commit the run left on a branch of origin (or would have, in a dry run)."""

    branch: str
    sha: str
    tree: str
    subject: str = ""


class RecordedOutcome(_Model):
    exit_code: int | None = None
    conclusion: str | None = None
    outputs: dict[str, str] = Field(default_factory=dict)
    commits: list[PushedCommit] = Field(default_factory=list)
    plan_path: str | None = None
    plan: str | None = None
    """The plan file's text on the branch, when the run left one."""


class Manifest(_Model):
    version: int
    id: str
    created_at: str
    """When the run started (ISO 8601, UTC): the clock its replay runs with, so a plan file
    named by the date gets the recorded run's name."""
    amelia_version: str
    event_name: str
    event: dict[str, Any]
    repository: str
    dry_run: bool = False
    lines: dict[str, int] | None = None
    """How many entries `model.jsonl` and `github.jsonl` held when the run finished, so that
    a file missing or cut short is refused (None: the run did not finish, or an amelia
    that counted none made the recording)."""
    environment: dict[str, str] = Field(default_factory=dict)
    """The INPUT_*, GITHUB_*, AMELIA_* and CLAUDE_CODE_* variables of the run; every secret
    is `***` (set) or empty (not set), and each line `NAME=value` of `INPUT_MCP_SECRETS`
    whose name is written as a variable is `NAME=***` (`masked_secret`)."""
    checkout: StartingCheckout | None = None
    outcome: RecordedOutcome = Field(default_factory=RecordedOutcome)


class ModelExchange(_Model):
    """One request to a model API and its answer, as the credential proxy passed them."""

    index: int
    provider: Literal["anthropic", "openai", "openrouter"]
    method: str = "POST"
    path: str
    agent: str
    """architect, developer, reviewer, answerer, or `other` (e.g. a CLI's side request)."""
    turn: int
    """1 for an agent's first request in a conversation, 2 after one answer, …"""
    request: str
    """The request body (JSON text)."""
    status: int
    headers: list[tuple[str, str]] = Field(default_factory=list)
    response: str
    """The answer's body, decoded (an SSE stream as its text)."""
    complete: bool = True


class GitHubCall(_Model):
    """One call of the GitHub port and what came back."""

    index: int
    operation: str
    kind: Literal["read", "write"]
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None
    """The `amelia.errors` class the call raised, if it did."""
    message: str | None = None


class Recording(_Model):
    """A recording read back: its manifest, exchanges and calls, and where it lies."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    directory: Path
    manifest: Manifest
    exchanges: list[ModelExchange]
    calls: list[GitHubCall]

    @property
    def pack(self) -> Path:
        return self.directory / CHECKOUT_PACK


_Entry = TypeVar("_Entry", bound=BaseModel)


def _lines(path: Path, model: type[_Entry]) -> list[_Entry]:
    """Each line of `path` as a `model`; none when the run wrote no such line."""
    if not path.exists():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RecordingError(f"{path} cannot be read: {error}") from None
    found: list[_Entry] = []
    # Lines end at "\n" only: an entry may hold U+2028 and the like unescaped, which
    # `str.splitlines` would also end a line at.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            found.append(model.model_validate(json.loads(line)))
        except json.JSONDecodeError:
            raise RecordingError(f"{path} line {number} is not JSON") from None
        except ValidationError as error:
            raise RecordingError(f"{path} line {number} is malformed: {_problem(error)}") from None
    return found


def _problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"])
    return f"{where}: {problem['msg']}" if where else str(problem["msg"])


def load_recording(path: Path) -> Recording:
    """The recording in directory `path` (or whose `recording.json` `path` is).

    Raises `RecordingError` for a missing or malformed recording, or one of a format
    version this amelia does not read."""
    directory = path.parent if path.name == MANIFEST_FILE else path
    manifest_path = directory / MANIFEST_FILE
    if not path.exists():
        raise RecordingError(f"{path} does not exist: name a recording's directory")
    if not directory.is_dir():
        raise RecordingError(
            f"{path} is not a recording: a recording is a directory holding {MANIFEST_FILE}"
        )
    if not manifest_path.is_file():
        raise RecordingError(f"{path} is not a recording: it has no {MANIFEST_FILE}")
    try:
        raw = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordingError(f"{manifest_path} cannot be read: {error}") from None
    version = raw.get("version") if isinstance(raw, dict) else None
    # A version is a whole number: JSON's `true` and `1.0` equal 1 in Python, yet are none.
    if type(version) is not int or version < 1:
        shown = "none" if version is None else json.dumps(version)
        raise RecordingError(f"{manifest_path} has no valid format version ({shown})")
    if version != FORMAT_VERSION:
        made_by = raw.get("amelia_version") if isinstance(raw, dict) else None
        advice = (
            f"replay it with the amelia version that made it ({made_by})"
            if isinstance(made_by, str) and made_by != __version__
            else "no amelia version it names can replay it"
        )
        raise RecordingError(
            f"{manifest_path} has format version {version}; this amelia reads version "
            f"{FORMAT_VERSION} only: {advice}"
        )
    try:
        manifest = Manifest.model_validate(raw)
    except ValidationError as error:
        raise RecordingError(f"{manifest_path} is malformed: {_problem(error)}") from None
    exchanges = _lines(directory / MODEL_FILE, ModelExchange)
    calls = _lines(directory / GITHUB_FILE, GitHubCall)
    for name, found in ((MODEL_FILE, exchanges), (GITHUB_FILE, calls)):
        counted = (manifest.lines or {}).get(name)
        if counted is not None and len(found) < counted:  # more: written after the finish
            entries = directory / name
            held = f"holds {len(found)} entries" if entries.exists() else "is missing"
            raise RecordingError(
                f"{entries} {held}, where {MANIFEST_FILE} counts {counted}: the recording is "
                "incomplete (copy it whole again)"
            )
    return Recording(directory=directory, manifest=manifest, exchanges=exchanges, calls=calls)
