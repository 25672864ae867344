"""A replayed commit stands for the recorded commit with the same tree and subject, in
order, in what the replay asks GitHub and in what the recording answers."""

from __future__ import annotations

from amelia.replay.format import PushedCommit
from amelia.replay.stand_ins import StandIns

BRANCH = "amelia/issue-1"
START = "0" * 40


def _commit(sha: str, tree: str, subject: str) -> PushedCommit:
    return PushedCommit(branch=BRANCH, sha=sha * 40, tree=tree * 40, subject=subject)


RECORDED = [_commit("a", "1", "Implement #1"), _commit("b", "2", "Fix CI")]


class Made:
    """The replay's commits so far, counting the looks."""

    def __init__(self, *commits: PushedCommit) -> None:
        self.commits = list(commits)
        self.looks = 0

    def __call__(self) -> list[PushedCommit]:
        self.looks += 1
        return self.commits


def test_the_replays_commit_is_asked_about_as_the_recorded_one_and_answered_as_its_own() -> None:
    made = Made(_commit("c", "1", "Implement #1"))
    stand_ins = StandIns(RECORDED, made)

    asked = stand_ins.as_recorded(f'["list_workflow_runs", {{"head_sha": "{"c" * 40}"}}]')
    answered = stand_ins.as_replayed(f'{{"head_sha": "{"a" * 40}", "base": "{START}"}}')

    assert asked == f'["list_workflow_runs", {{"head_sha": "{"a" * 40}"}}]'
    assert answered == f'{{"head_sha": "{"c" * 40}", "base": "{START}"}}'


def test_commits_are_matched_by_tree_and_subject_in_order_as_the_replay_makes_them() -> None:
    made = Made(_commit("c", "2", "Implement #1"), _commit("d", "1", "Implement #1"))
    stand_ins = StandIns(RECORDED, made)

    # Another subject on the same tree stands for nothing; the same tree and subject does.
    assert stand_ins.as_recorded("c" * 40) == "c" * 40
    assert stand_ins.as_recorded("d" * 40) == "a" * 40
    # The recorded run's second commit, not made yet, stays as it was …
    assert stand_ins.as_replayed("b" * 40) == "b" * 40
    made.commits.append(_commit("e", "2", "Fix CI"))
    # … until the replay makes it.
    assert stand_ins.as_replayed("b" * 40) == "e" * 40


def test_a_starting_commit_is_left_alone_and_looked_up_once() -> None:
    made = Made(_commit("c", "1", "Implement #1"))
    stand_ins = StandIns(RECORDED, made)

    for _ in range(3):
        assert stand_ins.as_recorded(f"get_file ref={START}") == f"get_file ref={START}"

    assert made.looks == 1
    assert stand_ins.as_recorded("no hash, an abbreviated " + "c" * 12) == (
        "no hash, an abbreviated " + "c" * 12
    )


def test_a_commit_of_the_replays_that_stands_for_nothing_is_looked_up_once() -> None:
    made = Made(_commit("c", "9", "Something else"), _commit("d", "1", "Implement #1"))
    stand_ins = StandIns(RECORDED, made)

    for _ in range(3):
        assert stand_ins.as_recorded("c" * 40) == "c" * 40

    assert made.looks == 1
    assert stand_ins.as_recorded("d" * 40) == "a" * 40
