"""Outputs, summary and workflow commands written the way the runner reads them."""

import io
from pathlib import Path

from amelia.action.workflow_io import WorkflowIO


def test_outputs_and_summary_files(tmp_path: Path) -> None:
    output = tmp_path / "output"
    summary = tmp_path / "summary"
    stream = io.StringIO()
    workflow = WorkflowIO(output_path=str(output), summary_path=str(summary), stream=stream)
    workflow.set_outputs({"branch": "amelia/issue-7", "issues": "[1, 2]", "pr_number": None})
    workflow.set_outputs({"summary": "line one\nline two"})
    workflow.write_summary("## amelia\n\nok")
    text = output.read_text()
    assert "branch=amelia/issue-7\n" in text
    assert "issues=[1, 2]\n" in text
    assert "pr_number" not in text
    name_line, *rest = text.split("summary<<", 1)[1].splitlines()
    delimiter = name_line
    assert rest[:3] == ["line one", "line two", delimiter]
    assert summary.read_text() == "## amelia\n\nok\n"


def test_masks_and_groups_are_printed() -> None:
    stream = io.StringIO()
    workflow = WorkflowIO(stream=stream)
    workflow.mask("sk-secret\nsecond-line")
    workflow.mask("sk-secret")  # the same secret under another name
    with workflow.group("plan"):
        workflow.notice("100% done\nnext")
    assert stream.getvalue().splitlines() == [
        "::add-mask::sk-secret",
        "::add-mask::second-line",
        "::group::plan",
        "::notice::100%25 done%0Anext",
        "::endgroup::",
    ]
    assert workflow.outputs == {}
