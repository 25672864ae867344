"""Which commit of a replay stands for which commit of the recorded run.

A replay makes its commits anew, at other times, so their hashes differ from the recorded
run's, while GitHub was asked about the recorded ones (the repository's CI on the pushed
head, a workflow file at it) and answered with them. A replayed commit stands for the
recorded commit with the same tree and subject, matched in order; `StandIns` rewrites the
full hashes in what the replay asks GitHub into the recorded run's, and those in the
recorded answers into the replay's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from amelia.replay.format import PushedCommit

__all__ = ["StandIns"]

_FULL_HASH = re.compile(r"\b[0-9a-f]{40}\b")


class StandIns:
    """`recorded`: the commits the recorded run left; `made`: the replay's so far (read
    again whenever a hash is not matched yet)."""

    def __init__(
        self, recorded: Sequence[PushedCommit], made: Callable[[], Sequence[PushedCommit]]
    ) -> None:
        self._recorded = list(recorded)
        self._recorded_shas = {commit.sha for commit in self._recorded}
        self._made = made
        self._as_recorded: dict[str, str] = {}
        self._as_replayed: dict[str, str] = {}
        self._foreign: set[str] = set()
        """Hashes that stand for nothing: starting commits, and the replay's that match no
        recorded commit."""

    def as_recorded(self, text: str) -> str:
        """`text` with each commit of the replay's named as the recorded run's."""
        unmatched = {
            sha
            for sha in _FULL_HASH.findall(text)
            if sha not in self._as_recorded
            and sha not in self._recorded_shas
            and sha not in self._foreign
        }
        if unmatched:
            self._match()
            # What matched nothing now never will: the recorded commits it could stand for
            # are taken, or it is no commit of the replay's branches (a starting one).
            self._foreign.update(unmatched - set(self._as_recorded))
        return _FULL_HASH.sub(lambda m: self._as_recorded.get(m.group(), m.group()), text)

    def as_replayed(self, text: str) -> str:
        """`text` with each commit of the recorded run's named as the replay's."""
        found = set(_FULL_HASH.findall(text))
        if any(sha in self._recorded_shas and sha not in self._as_replayed for sha in found):
            self._match()
        return _FULL_HASH.sub(lambda m: self._as_replayed.get(m.group(), m.group()), text)

    def _match(self) -> None:
        """Match the replay's commits so far."""
        if len(self._as_replayed) == len(self._recorded):
            return
        for made in self._made():
            if made.sha in self._as_recorded:
                continue
            for recorded in self._recorded:
                if recorded.sha in self._as_replayed:
                    continue
                if (recorded.tree, recorded.subject) == (made.tree, made.subject):
                    self._as_recorded[made.sha] = recorded.sha
                    self._as_replayed[recorded.sha] = made.sha
                    break
