"""amelia's part of a pull request's description: files, rounds, tests and cost."""

from __future__ import annotations

from pathlib import Path

from amelia.action.modes._develop import merge_pull_body, pull_body
from amelia.action.modes._develop._pull_description import (
    ChangeReport,
    developer_checks,
    earlier_rounds,
    file_note,
    next_round,
    round_line,
)
from amelia.core.state import AgentUsage, ExecutionState, ReviewResult, ToolResult
from tests.git_helpers import IDENTITY, git, init_repo

SUMMARY = """I made these changes:
- `app/cli.py`: add the --json flag
* app/out.py — render | tables as JSON
Ran the tests."""


def test_file_note_takes_the_developers_line_without_path_and_bullet() -> None:
    assert file_note(SUMMARY, "app/cli.py") == "add the --json flag"
    assert file_note(SUMMARY, "app/out.py") == "render | tables as JSON"
    assert file_note(SUMMARY, "README.md") == ""


def test_a_line_that_only_names_the_file_or_several_files_is_no_note() -> None:
    assert file_note("Added src/greet.py", "src/greet.py") == ""
    assert file_note("- `src/greet.py`", "src/greet.py") == ""
    both = "Wrote greeter/shout.py, .github/workflows/ci.yml"
    assert file_note(both, "greeter/shout.py", others=[".github/workflows/ci.yml"]) == ""
    assert file_note(both, "greeter/shout.py") == ""
    assert file_note("Added src/greet.py and the CI workflow", "src/greet.py") == (
        "Added src/greet.py and the CI workflow"
    )


def test_every_file_row_says_what_happened_to_it(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"README.md": "a\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "src").mkdir()
    (repo / "src/greet.py").write_text("def greet(): ...\n", encoding="utf-8")
    (repo / "README.md").write_text("a\nb\n", encoding="utf-8")
    git(repo, "add", "--all")
    git(repo, *IDENTITY, "commit", "-qm", "change")
    head = git(repo, "rev-parse", "HEAD").strip()
    state = ExecutionState(developer_output="Added src/greet.py")

    text = "\n".join(ChangeReport.build(repo, base, head, state, []).render())

    assert "| `src/greet.py` | +1 −0 | new file |" in text
    assert "| `README.md` | +1 −0 | changed |" in text
    assert "| Added |" not in text


def test_checks_run_keep_the_developers_test_commands_and_how_they_ended() -> None:
    results = (
        ToolResult(agent="developer", tool_name="Bash", tool_input={"command": "ls"}),
        ToolResult(
            agent="developer",
            tool_name="Bash",
            tool_input={"command": "uv run pytest -q"},
            output="..F\n1 failed, 2 passed\n",
            is_error=True,
        ),
        ToolResult(agent="reviewer", tool_name="Bash", tool_input={"command": "pytest"}),
        ToolResult(
            agent="developer",
            tool_name="run_shell_command",
            tool_input={"command": "npm test"},
            output="ok",
        ),
    )
    runs = developer_checks(ExecutionState(tool_results=results))
    assert [(run.command, run.passed, run.last_line) for run in runs] == [
        ("uv run pytest -q", False, "1 failed, 2 passed"),
        ("npm test", True, "ok"),
    ]


def test_report_lists_files_rounds_tests_and_cost(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"app/cli.py": "a\n", "logo.png": "x\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "logo.png").unlink()
    (repo / "app/cli.py").write_text("a\nb\nc\n", encoding="utf-8")
    (repo / "app/out.py").write_text("o\n", encoding="utf-8")
    git(repo, "add", "--all")
    git(repo, *IDENTITY, "commit", "-qm", "change")
    head = git(repo, "rev-parse", "HEAD").strip()
    review = ReviewResult(verdict="approved", summary="good")
    state = ExecutionState(
        developer_output=SUMMARY,
        usage=(AgentUsage(agent="developer", cost_usd=0.5), AgentUsage(agent="reviewer")),
    )
    report = ChangeReport.build(repo, base, head, state, [round_line("fix", review, 1)])
    text = "\n".join(report.render())
    assert "| `app/cli.py` | +2 −0 | changed: add the --json flag |" in text
    assert "| `app/out.py` | +1 −0 | new file: render \\| tables as JSON |" in text
    assert "| `logo.png` | +0 −1 | deleted |" in text
    assert "- fix, round 1: **approved** (none): good" in text
    assert "Cost: $0.5000 (developer $0.5000, reviewer $0.0000)." in text


def test_rounds_already_in_the_description_are_kept_after_a_person_edits_around_them() -> None:
    review = ReviewResult(verdict="changes_requested", severity="major", summary="no tests")
    report = ChangeReport(rounds=(round_line("implement", review, 1),))
    ours = pull_body(3, "docs/plans/p.md", "https://x/p.md", "approved", report=report)
    edited = merge_pull_body("Notes from a human\n\n", ours) + "\nMore human text\n"
    assert earlier_rounds(edited) == [
        "- implement, round 1: **changes_requested** (major): no tests"
    ]
    assert earlier_rounds("no amelia part here") == []


def test_each_fix_on_a_draft_counts_on_from_the_fix_rounds_it_lists() -> None:
    review = ReviewResult(verdict="approved", summary="ok")
    rounds = [round_line("implement", review, 1), round_line("implement", review, 2)]
    assert next_round(rounds, "fix") == 1
    rounds.append(round_line("fix", review, next_round(rounds, "fix")))
    assert rounds[-1].startswith("- fix, round 1: ")
    assert next_round(rounds, "fix") == 2 and next_round(rounds, "implement") == 3
