"""What one scan hands out: the bound, the order, and what waits for the next scan."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from amelia.action.modes.scan import scan_report
from amelia.action.modes.scan._queue import (
    MATRIX_JOB_LIMIT,
    order_key,
    scan_bound,
    select_issues,
    without_plan,
)
from amelia.config import ActionInputs
from amelia.github.client import IssueInfo
from amelia.repo_config import RepoConfigError, parse_repo_config
from amelia.repo_config.model import ScanConfig
from amelia.testing.action_inputs import declared_inputs

START = datetime(2024, 1, 1, tzinfo=UTC)


def issue(
    number: int,
    *,
    day: int | None = None,
    labels: tuple[str, ...] = ("amelia",),
    thumbs_up: int = 0,
    pull: bool = False,
) -> IssueInfo:
    """Issue `number`, created on day `day` (default: its number) after START."""
    return IssueInfo(
        number=number,
        title=f"Issue {number}",
        body="",
        author="octocat",
        labels=labels,
        created_at=START + timedelta(days=number if day is None else day),
        thumbs_up=thumbs_up,
        is_pull_request=pull,
    )


def test_the_default_bound_is_tens_and_action_yml_declares_it() -> None:
    assert ActionInputs().scan_limit == 20
    assert declared_inputs()["scan_limit"] == "20"


def test_300_waiting_with_the_bound_at_256_hand_out_the_oldest_256() -> None:
    waiting = [issue(n) for n in range(300, 0, -1)]  # GitHub's default order: newest first

    selection = select_issues(waiting, limit=256, plan_here=0, config=ScanConfig())

    assert selection.waited == 300
    assert selection.for_matrix == tuple(range(1, 257))
    assert selection.left == tuple(range(257, 301))
    assert selection.handed_out == 256 and selection.planned_here == ()


def test_what_is_left_is_handed_out_by_the_next_scan() -> None:
    labelled = [issue(n) for n in range(1, 301)]
    first = select_issues(labelled, limit=20, plan_here=0, config=ScanConfig())
    # The matrix planned those: they have their plan branches now.
    second = select_issues(
        without_plan(labelled, set(first.for_matrix)), limit=20, plan_here=0, config=ScanConfig()
    )

    assert first.for_matrix == tuple(range(1, 21))
    assert second.waited == 280
    assert second.for_matrix == tuple(range(21, 41))
    assert len(second.left) == 260


def test_max_issues_are_planned_here_within_the_same_bound() -> None:
    waiting = [issue(n) for n in range(1, 31)]

    inside = select_issues(waiting, limit=10, plan_here=3, config=ScanConfig())
    above = select_issues(waiting, limit=10, plan_here=50, config=ScanConfig())

    assert inside.planned_here == (1, 2, 3)
    assert inside.for_matrix == tuple(range(4, 11))
    assert inside.handed_out == 10 and len(inside.left) == 20
    assert above.planned_here == tuple(range(1, 11)) and above.for_matrix == ()


def test_fewer_waiting_than_the_bound_hands_out_all_and_leaves_none() -> None:
    selection = select_issues([issue(2), issue(1)], limit=20, plan_here=1, config=ScanConfig())
    assert (selection.planned_here, selection.for_matrix, selection.left) == ((1,), (2,), ())
    empty = select_issues([], limit=20, plan_here=0, config=ScanConfig())
    assert (empty.waited, empty.handed_out) == (0, 0)


def test_oldest_means_created_first_not_numbered_first() -> None:
    moved = issue(90, day=-30)  # transferred from another repository: older than its number
    waiting = [issue(3), moved, issue(1), issue(2, day=1)]

    selection = select_issues(waiting, limit=3, plan_here=0, config=ScanConfig())

    # Issues 1 and 2 share a creation day: the lower number first.
    assert selection.for_matrix == (90, 1, 2)
    assert selection.left == (3,)


def test_preferred_labels_come_first_in_the_order_listed_then_oldest() -> None:
    config = ScanConfig(prefer_labels=("Security", "bug"))
    waiting = [
        issue(1),
        issue(2, labels=("amelia", "bug")),
        issue(3, labels=("amelia", "security")),
        issue(4, labels=("amelia", "bug", "security")),
        issue(5, labels=("amelia", "bug")),
    ]

    selection = select_issues(waiting, limit=4, plan_here=0, config=config)

    assert selection.for_matrix == (3, 4, 2, 5)  # label names match in any letter case
    assert selection.left == (1,)


def test_more_thumbs_up_first_only_when_asked() -> None:
    waiting = [issue(1), issue(2, thumbs_up=1), issue(3, thumbs_up=7), issue(4, thumbs_up=7)]

    plain = select_issues(waiting, limit=4, plan_here=0, config=ScanConfig())
    voted = select_issues(waiting, limit=4, plan_here=0, config=ScanConfig(prefer_thumbs_up=True))
    both = sorted(
        [*waiting, issue(5, labels=("amelia", "bug"))],
        key=order_key(ScanConfig(prefer_labels=("bug",), prefer_thumbs_up=True)),
    )

    assert plain.for_matrix == (1, 2, 3, 4)
    assert voted.for_matrix == (3, 4, 2, 1)
    assert [i.number for i in both] == [5, 3, 4, 2, 1]


def test_pulls_and_planned_issues_do_not_wait() -> None:
    labelled = [issue(1), issue(2, pull=True), issue(3), issue(4)]
    assert [i.number for i in without_plan(labelled, {3})] == [1, 4]


def test_an_issue_without_a_creation_time_goes_last_and_a_bare_time_reads_as_utc() -> None:
    unknown = IssueInfo(number=1, title="", body="", author="a")
    bare = IssueInfo(number=2, title="", body="", author="a", created_at=datetime(2020, 1, 1))
    selection = select_issues([unknown, bare, issue(3)], limit=3, plan_here=0, config=ScanConfig())
    assert selection.for_matrix == (2, 3, 1)


@pytest.mark.parametrize(
    ("input_limit", "config_limit", "explicit", "limit", "setting"),
    [
        (20, None, False, 20, "the `scan_limit` input"),
        (20, 40, False, 40, "`scan.limit` in .github/amelia.yml"),
        (30, 40, True, 30, "the `scan_limit` input"),
        (300, None, True, 256, "the `scan_limit` input"),
        (20, 1000, False, 256, "`scan.limit` in .github/amelia.yml"),
        (256, None, True, 256, "the `scan_limit` input"),
    ],
)
def test_the_bound_follows_the_input_unless_only_the_file_sets_it(
    input_limit: int, config_limit: int | None, explicit: bool, limit: int, setting: str
) -> None:
    bound = scan_bound(input_limit, config_limit, explicit=explicit)
    assert bound.limit == limit <= MATRIX_JOB_LIMIT
    assert bound.setting == setting
    assert bound.capped == (bound.configured > MATRIX_JOB_LIMIT)


def test_a_bound_above_256_is_capped_with_a_warning_naming_the_setting() -> None:
    bound = scan_bound(300, None, explicit=True)
    assert bound.limit == 256 and bound.configured == 300
    assert bound.warning is not None
    assert bound.warning.startswith("The `scan_limit` input is 300, above GitHub's limit")
    assert "256" in bound.warning
    assert scan_bound(256, None, explicit=True).warning is None


@pytest.mark.parametrize(
    "value", ["0", "-3", "twenty", "2.5", "5.0", "1_0", "+5", "0x10", "true", "1e1", ""]
)
def test_an_invalid_input_is_refused_and_an_empty_one_is_the_default(value: str) -> None:
    if value == "":
        assert ActionInputs.from_environ({"INPUT_SCAN_LIMIT": value}).scan_limit == 20
        return
    with pytest.raises(ValueError, match="scan_limit"):
        ActionInputs.from_environ({"INPUT_SCAN_LIMIT": value})
    if value != "0":  # no issue planned in the scan's own job is fine
        with pytest.raises(ValueError, match="max_issues"):
            ActionInputs.from_environ({"INPUT_MAX_ISSUES": value})


def test_a_bound_in_digits_is_read_with_spaces_around_it() -> None:
    inputs = ActionInputs.from_environ({"INPUT_SCAN_LIMIT": " 12 ", "INPUT_MAX_ISSUES": "3"})
    assert (inputs.scan_limit, inputs.max_issues) == (12, 3)


def test_the_file_configures_bound_labels_and_thumbs_up() -> None:
    config = parse_repo_config(
        b"scan:\n  limit: 40\n  prefer_labels: [security, ' bug ']\n  prefer_thumbs_up: true\n"
    )
    assert config.scan == ScanConfig(
        limit=40, prefer_labels=("security", "bug"), prefer_thumbs_up=True
    )
    assert parse_repo_config(None).scan == ScanConfig()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b"scan: {limit: 0}", "scan.limit: Input should be greater than or equal to 1"),
        (b"scan: {limit: many}", "scan.limit: Input should be a valid integer"),
        (b"scan: {limit: true}", "scan.limit: Input should be a valid integer"),
        (b"scan: {limit: 5.0}", "scan.limit: Input should be a valid integer"),
        (b"scan: {limit: '5'}", "scan.limit: Input should be a valid integer"),
        (b"scan: {prefer_labels: ['']}", "scan.prefer_labels[0]: Value error"),
        (b"scan: {order: newest}", "scan.order: unknown key"),
    ],
)
def test_an_invalid_scan_section_names_its_key(text: bytes, problem: str) -> None:
    with pytest.raises(RepoConfigError, match=r"^\.github/amelia\.yml: ") as refused:
        parse_repo_config(text)
    assert problem in str(refused.value)


def test_the_report_says_how_many_waited_were_handed_out_and_are_left() -> None:
    waiting = [issue(n) for n in range(1, 301)]
    bound = scan_bound(300, None, explicit=True)
    selection = select_issues(waiting, limit=bound.limit, plan_here=2, config=ScanConfig())

    notice, summary = scan_report(
        selection,
        bound,
        ScanConfig(),
        label="amelia",
        labelled=310,
        branch_prefix="amelia/",
        max_issues=2,
    )

    assert notice == (
        "amelia scan: 310 open issue(s) labelled amelia, 300 without a plan branch: "
        "256 handed out (2 planned in this job, 254 in `issues`), 44 left for the next scan "
        "(at most 256 per scan)"
    )
    assert "| waited: open, labelled, no plan branch | 300 |" in summary
    assert "| handed out by this scan (at most 256) | 256 |" in summary
    assert "| · planned in this job (`max_issues`) | 2 |" in summary
    assert "| · in the `issues` output, for the matrix | 254 |" in summary
    assert "| left for the next scan | 44 |" in summary
    assert "Order: oldest first." in summary
    assert "The 44 left are handed out by the next scan at this bound" in summary
    assert "set by the `scan_limit` input" in summary


def test_the_report_states_a_preferred_order_and_a_max_issues_above_the_bound() -> None:
    config = ScanConfig(prefer_labels=("security", "bug"), prefer_thumbs_up=True)
    bound = scan_bound(5, None, explicit=True)
    selection = select_issues([issue(1)], limit=5, plan_here=9, config=config)

    _, summary = scan_report(
        selection, bound, config, label="amelia", labelled=1, branch_prefix="bot/", max_issues=9
    )

    assert (
        "Order: issues labelled `security`, then `bug` first; more 👍 first; oldest first."
        in summary
    )
    assert "`bot/issue-<n>`" in summary
    assert "`max_issues` is 9, above the bound: this job plans at most 5." in summary
    assert "left are handed out" not in summary


@pytest.mark.parametrize(
    ("limit", "max_issues", "says"),
    [
        (
            2,
            5,
            "the first 2 of them are planned in this job (`max_issues` is 5), "
            "the rest by the matrix.",
        ),
        (
            20,
            3,
            "the first 3 of them are planned in this job (`max_issues` is 3), "
            "the rest by the matrix.",
        ),
        (20, 0, "all of them go to the `issues` output, for the matrix (`max_issues` is 0)."),
    ],
)
def test_the_report_says_how_many_this_job_plans_as_it_does(
    limit: int, max_issues: int, says: str
) -> None:
    bound = scan_bound(limit, None, explicit=True)
    waiting = [issue(n) for n in range(1, 31)]
    selection = select_issues(waiting, limit=bound.limit, plan_here=max_issues, config=ScanConfig())

    _, summary = scan_report(
        selection,
        bound,
        ScanConfig(),
        label="amelia",
        labelled=30,
        branch_prefix="amelia/",
        max_issues=max_issues,
    )

    assert (
        f"set by the `scan_limit` input (GitHub runs at most 256 jobs from one matrix); {says}"
        in summary
    )
    assert f"| · planned in this job (`max_issues`) | {min(limit, max_issues)} |" in summary
