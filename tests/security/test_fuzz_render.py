"""Fuzzing what the bot posts: a secret planted anywhere a model or tool writes never shows.

Every planted secret starts with the same head, and every rendered body is checked for the
secret itself, its JSON-escaped spelling and that head, so a secret cut off by truncation
cannot leak its first half either.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from amelia.core.state import ReviewComment, ReviewResult, ToolResult
from amelia.github.comments import (
    ProgressReport,
    Stage,
    build_review,
    render_progress,
    render_reply,
    render_tool_errors,
)
from amelia.redaction import Redactor
from tests.security.strategies import SECRET_HEAD, json_escaped, marked_secrets, text_with_secrets

DIFF = """diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1,2 +1,3 @@
 import os
+TOKEN = os.environ["GITHUB_TOKEN"]
 print("hi")
"""


def assert_hidden(body: str, secrets: list[str]) -> None:
    for secret in secrets:
        assert secret not in body
        assert json_escaped(secret) not in body
    assert SECRET_HEAD not in body, "the head of a cut-off secret shows"


@st.composite
def planted(draw: st.DrawFn) -> tuple[list[str], st.DataObject]:
    secrets = draw(st.lists(marked_secrets, min_size=1, max_size=3, unique=True))
    return secrets, draw(st.data())


def long_text(secrets: list[str]) -> st.SearchStrategy[str]:
    """Hostile text with the secrets, sometimes behind padding so truncation cuts them."""
    padding = st.integers(0, 2_100).map(lambda n: "x " * (n // 2))
    return st.builds(lambda pad, text: pad + text, padding, text_with_secrets(secrets))


@settings(max_examples=150, deadline=None)
@given(case=planted())
def test_tool_errors_never_show_a_secret(case: tuple[list[str], st.DataObject]) -> None:
    secrets, data = case
    results = [
        ToolResult(
            agent=data.draw(text_with_secrets(secrets)),
            tool_name=data.draw(text_with_secrets(secrets)),
            output=data.draw(long_text(secrets)),
            is_error=True,
            tool_input={"command": data.draw(long_text(secrets)), "n": 1},
        )
        for _ in range(data.draw(st.integers(1, 3)))
    ]
    body = render_tool_errors(results, Redactor(secrets=secrets))
    assert body is not None
    assert_hidden(body, secrets)


@settings(max_examples=150, deadline=None)
@given(case=planted())
def test_review_never_shows_a_secret(case: tuple[list[str], st.DataObject]) -> None:
    secrets, data = case
    comments = tuple(
        ReviewComment(
            path=data.draw(st.sampled_from(("app.py", "other.py")) | text_with_secrets(secrets)),
            line=data.draw(st.sampled_from((None, 1, 2, 3, 40))),
            severity=data.draw(st.sampled_from(("critical", "major", "minor", "none"))),
            body=data.draw(text_with_secrets(secrets)),
            suggestion=data.draw(st.none() | text_with_secrets(secrets)),
        )
        for _ in range(data.draw(st.integers(0, 4)))
    )
    result = ReviewResult(
        verdict=data.draw(st.sampled_from(("approved", "changes_requested"))),
        summary=data.draw(text_with_secrets(secrets)),
        comments=comments,
    )
    body, inline = build_review(result, DIFF, "f" * 40, redactor=Redactor(secrets=secrets))
    assert_hidden(body, secrets)
    for comment in inline:
        assert_hidden(comment.body, secrets)
        assert_hidden(comment.path, secrets)


@settings(max_examples=150, deadline=None)
@given(case=planted())
def test_progress_and_replies_never_show_a_secret(case: tuple[list[str], st.DataObject]) -> None:
    secrets, data = case
    report = ProgressReport(
        issue_number=7,
        command="implement",
        requested_by="octocat",
        stages=(
            Stage(name="plan", status="done", detail=data.draw(long_text(secrets))),
            Stage(name="develop", status="failed", detail=data.draw(text_with_secrets(secrets))),
        ),
        outcome="failed",
        failure_reason=data.draw(long_text(secrets)),
    )
    redactor = Redactor(secrets=secrets)
    assert_hidden(render_progress(report, redactor), secrets)
    assert_hidden(render_reply(data.draw(text_with_secrets(secrets)), redactor), secrets)
