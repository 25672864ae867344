"""The developer's word on each review thread, and the reply amelia posts in it."""

from __future__ import annotations

from amelia.action.modes.fix._threads import ThreadOutcome, outcomes, reply_text

SHA = "0123456789abcdef" * 2 + "01234567"


def test_outcome_lines_are_read_whatever_the_bullet_and_case() -> None:
    said = outcomes(
        "Summary.\n- thread 12: addressed: renamed `x` to `count`\n"
        "* Thread #13 - not changed - the loop is needed for order\n"
        "thread 12: Addressed: renamed x, and a test\n"
    )
    assert said == {
        12: ThreadOutcome(addressed=True, text="renamed x, and a test"),
        13: ThreadOutcome(addressed=False, text="the loop is needed for order"),
    }


def test_replies_name_the_commit_or_say_why_nothing_changed() -> None:
    done = ThreadOutcome(addressed=True, text="renamed it")
    kept = ThreadOutcome(addressed=False, text="the name is the API's")
    assert reply_text(done, SHA) == f"Addressed in {SHA[:12]}: renamed it"
    assert reply_text(done, None).startswith("Not changed: the developer meant to (renamed it)")
    assert reply_text(kept, SHA) == "Not changed: the name is the API's"
    assert reply_text(None, SHA) == (
        f"Not changed in {SHA[:12]}: the developer did not report on this thread."
    )
