"""Parsing the reviewer's answer: structured JSON, fenced JSON, garbage and empty answers."""

from __future__ import annotations

import json

import pytest

from amelia.agents.verdict import is_success_report, parse_review

STRUCTURED = {
    "verdict": "changes_requested",
    "severity": "minor",
    "summary": "One bug.",
    "comments": [
        {
            "path": "./app.py",
            "line": 3,
            "severity": "major",
            "body": "Off by one",
            "suggestion": "x",
        },
        {"path": "tests/t.py", "line": 1, "severity": "none", "body": "✓ tests pass"},
        {"path": "app.py", "line": 0, "severity": "minor", "body": "No issues found."},
    ],
}


def test_structured_output_is_parsed_and_success_lines_dropped() -> None:
    review = parse_review(json.dumps(STRUCTURED))
    assert review.verdict == "changes_requested"
    assert review.severity == "major"  # raised to the worst remaining finding
    (comment,) = review.comments
    assert (comment.path, comment.line, comment.body, comment.suggestion) == (
        "app.py",
        3,
        "Off by one",
        "x",
    )


def test_fenced_json_in_prose_is_parsed() -> None:
    text = (
        "I reviewed it.\n\n```json\n"
        '{"verdict": "Approved", "severity": "none", "summary": "Good", "comments": []}\n```\n'
    )
    review = parse_review(text)
    assert review.approved
    assert review.summary == "Good"


def test_legacy_approved_flag_is_understood() -> None:
    review = parse_review('{"approved": true, "feedback": "LGTM"}')
    assert review.approved and review.summary == "LGTM"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("", "empty answer"),
        (None, "empty answer"),
        ("Looks fine to me, ship it!", "no JSON verdict found"),
        ('```json\n{"verdict": "maybe"}\n```', "validation error"),
        ("{not json at all}", "no JSON verdict found"),
    ],
)
def test_unparseable_answers_request_changes(content: str | None, reason: str) -> None:
    review = parse_review(content)
    assert review.verdict == "changes_requested"
    assert not review.comments
    assert reason in review.summary


def test_approval_with_only_success_comments_has_no_findings() -> None:
    text = json.dumps(
        {
            "verdict": "approved",
            "severity": "minor",
            "summary": "Fine",
            "comments": [{"path": "a.py", "line": 1, "severity": "minor", "body": "LGTM"}],
        }
    )
    review = parse_review(text)
    assert review.approved and review.comments == () and review.severity == "none"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("✓ tests pass", True),
        ("✔ lint clean\n✓ types ok", True),
        ("No issues found", True),
        ("All tests passed.", True),
        ("tests pass but the error path is untested", False),
        ("No validation of user input in parse()", False),
        ("", False),
    ],
)
def test_success_reports(text: str, expected: bool) -> None:
    assert is_success_report(text) is expected
