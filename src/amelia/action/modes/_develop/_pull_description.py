"""What amelia's part of a pull request's description says about the change.

Built after every implement or fix run from what the run knows: the files the change
touches (the diff stat against the pull's base, each with what happened to it, new,
changed or deleted, and the developer's own line about it when that says more than its
name), the review rounds and their verdicts (this run's after the ones the description
already listed), the test commands the developer ran and how they ended, and the cost.
The caller redacts the whole body before posting it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from amelia.core.state import ExecutionState, ReviewResult
from amelia.git import ChangedFile, Repo, diff_files
from amelia.github.markers import BODY_BEGIN, BODY_END
from amelia.text import one_line

__all__ = [
    "MAX_FILES",
    "ChangeReport",
    "CommandRun",
    "FileChange",
    "developer_checks",
    "earlier_rounds",
    "file_note",
    "next_round",
    "round_line",
]

MAX_FILES = 50
"""Files listed one by one; the rest are counted."""
MAX_ROUNDS = 20
"""Review rounds listed; the oldest go first."""
ROUNDS_HEADING = "### Review rounds"
_TEST_COMMAND = re.compile(
    r"\b(pytest|tox|nox|unittest|(npm|pnpm|yarn|bun)( run)? test|go test|cargo test|"
    r"make (test|check)|mvn( -\S+)* (test|verify)|gradle\w* test|rspec|phpunit|jest|vitest|"
    r"ctest|dotnet test|mix test|ruff|mypy|eslint)\b"
)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_PATH_LIKE = re.compile(r"[\w.-]*/[\w./-]+|[\w-]+\.[A-Za-z]{1,4}")
"""A word that names a file (`src/a.py`, `setup.cfg`)."""
_STATUS = {"A": "new file", "M": "changed", "D": "deleted", "T": "type changed"}
"""git's status letters (`--no-renames`), as the Changes table says them."""


@dataclass(frozen=True, kw_only=True)
class FileChange:
    path: str
    added: int | None
    removed: int | None
    """None for a binary file."""
    note: str = ""
    """The developer's own line about the file, when its summary says something about it."""
    status: str = ""
    """What happened to it: `new file`, `changed`, `deleted` (empty: unknown)."""


@dataclass(frozen=True, kw_only=True)
class CommandRun:
    command: str
    passed: bool
    last_line: str = ""


@dataclass(frozen=True, kw_only=True)
class ChangeReport:
    files: tuple[FileChange, ...] = ()
    rounds: tuple[str, ...] = ()
    tests: tuple[CommandRun, ...] = ()
    costs: tuple[tuple[str, float], ...] = ()
    """(agent, US dollars) of this run."""
    more_files: int = 0

    @classmethod
    def build(
        cls,
        repo: Repo,
        base: str,
        head: str,
        state: ExecutionState,
        rounds: Sequence[str],
        *,
        notes: dict[str, str] | None = None,
        changed: Sequence[ChangedFile] | None = None,
    ) -> ChangeReport:
        """The report for the change `base..head` after the run that ended in `state`;
        `notes` name files the developer's summary does not (such as the plan).
        `changed`: the files of that change as the caller has just read them
        (`amelia.git.diff_files`; None: read here)."""
        stats = list(changed) if changed is not None else diff_files(repo, base, head=head)
        summary = state.developer_output or ""
        known = notes or {}
        paths = [file.path for file in stats]
        files = tuple(
            FileChange(
                path=file.path,
                added=file.added,
                removed=file.removed,
                note=known.get(file.path) or file_note(summary, file.path, others=paths),
                status=_STATUS.get(file.status, ""),
            )
            for file in stats[:MAX_FILES]
        )
        return cls(
            files=files,
            rounds=tuple(rounds)[-MAX_ROUNDS:],
            tests=developer_checks(state),
            costs=tuple((usage.agent, usage.cost_usd) for usage in state.usage),
            more_files=max(0, len(stats) - MAX_FILES),
        )

    def render(self) -> list[str]:
        """The report's markdown lines (sections separated by blank lines)."""
        lines: list[str] = []
        if self.files:
            lines += ["### Changes", "", "| file | lines | what |", "|---|---|---|"]
            lines += [_file_row(change) for change in self.files]
            if self.more_files:
                lines.append(f"| … | | and {self.more_files} more file(s) |")
            lines.append("")
        if self.rounds:
            lines += [ROUNDS_HEADING, "", *self.rounds, ""]
        if self.tests:
            lines += ["### Tests and checks the developer ran", ""]
            lines += [_test_line(run) for run in self.tests]
            lines.append("")
        if self.costs:
            total = sum(cost for _agent, cost in self.costs)
            each = ", ".join(f"{agent} ${cost:.4f}" for agent, cost in self.costs)
            lines += [f"Cost: ${total:.4f} ({each}).", ""]
        return lines


def _cell(text: str) -> str:
    return one_line(text, limit=160).replace("|", "\\|")


def _file_row(change: FileChange) -> str:
    if change.added is None or change.removed is None:
        counts = "binary"
    else:
        counts = f"+{change.added} −{change.removed}"
    path = change.path.replace("`", "'").replace("|", "\\|")
    what = ": ".join(part for part in (change.status, change.note) if part)
    return f"| `{path}` | {counts} | {_cell(what)} |"


def _test_line(run: CommandRun) -> str:
    command = one_line(run.command, limit=200).replace("`", "'")
    outcome = "passed" if run.passed else "failed"
    tail = f": {one_line(run.last_line, limit=160).replace('`', chr(39))}" if run.last_line else ""
    return f"- `{command}` {outcome}{tail}"


def file_note(summary: str, path: str, *, others: Collection[str] = ()) -> str:
    """The developer's line about `path` in its summary, without the bullet; "" when no
    line says more about it than its name. A line that starts with the path (`- path: what`)
    gives what follows it; one that names it in a sentence is kept whole ("Added
    `src/greet.py` and its tests"); a line that also names one of `others` (the other
    files of the change) or another file is about several files and is not used."""
    for line in summary.splitlines():
        if path not in line or any(other in line for other in others if other != path):
            continue
        text = _BULLET.sub("", line).strip()
        for spelled in (f"`{path}`", path):
            if text.startswith(spelled):
                text = text[len(spelled) :].strip().lstrip(":–—-(),").strip()
                break
        said = text.replace(f"`{path}`", " ").replace(path, " ").split()
        if any(_PATH_LIKE.fullmatch(word.strip("`'\",;:()")) for word in said):
            continue  # about several files
        if len(said) >= 2:
            return text
    return ""


def developer_checks(state: ExecutionState, *, limit: int = 5) -> tuple[CommandRun, ...]:
    """The developer's shell commands that ran tests or checks, with how they ended (the
    last `limit`)."""
    runs: list[CommandRun] = []
    for result in state.tool_results:
        command = str((result.tool_input or {}).get("command") or "")
        if result.agent != "developer" or not _TEST_COMMAND.search(command):
            continue
        output = [line for line in result.output.strip().splitlines() if line.strip()]
        runs.append(
            CommandRun(
                command=command,
                passed=not result.is_error,
                last_line=output[-1] if output else "",
            )
        )
    return tuple(runs[-limit:])


def round_line(run: str, review: ReviewResult, iteration: int) -> str:
    """One review round of a run (`implement`, `fix`) for the description's history."""
    return (
        f"- {run}, round {iteration}: **{review.verdict}** ({review.severity}): "
        f"{one_line(review.summary, limit=200)}"
    )


def next_round(rounds: Sequence[str], run: str) -> int:
    """The number of `run`'s next round: one past the highest `run` round `rounds` lists,
    so the second `/amelia fix` on a draft is `fix, round 2`."""
    numbered = re.compile(rf"^- {re.escape(run)}, round (\d+):")
    found = [int(m.group(1)) for line in rounds if (m := numbered.match(line))]
    return max(found, default=0) + 1


def earlier_rounds(description: str) -> list[str]:
    """The review rounds amelia's part of `description` lists already."""
    begin = description.find(BODY_BEGIN)
    end = description.find(BODY_END, begin + 1) if begin >= 0 else -1
    if begin < 0 or end < 0:
        return []
    ours = description[begin:end].splitlines()
    if ROUNDS_HEADING not in ours:
        return []
    rounds: list[str] = []
    for line in ours[ours.index(ROUNDS_HEADING) + 1 :]:
        if line.startswith("- "):
            rounds.append(line)
        elif line.strip():
            break
    return rounds
