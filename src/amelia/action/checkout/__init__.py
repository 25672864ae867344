"""The checkout the agents work in, as the Action needs it, in three parts.

- `CredentialGuard`: trusts the directory, hides the credentials actions/checkout and
  earlier steps left (and puts them back byte for byte), owns amelia's git in the
  checkout (`git`, isolated on a runner) and hands out the token only in `authenticated()`.
- `AgentSessions`: around every agent run, the baseline before the first, the checkout
  handed to the agent user and back, the runner's file commands and the config files put
  back, what agents left running stopped; `stop_agents()` and `end()` give the proof
  (`AgentsStopped`) the guard asks for before it hands out or puts back the token.
- `Publisher`: commits only the agents' work, searches it for secrets, pushes it with the
  value the guard gave for that proof, keeps what cannot be pushed: files GitHub would
  refuse held back (`HeldBackWork`, told by `held_back_lines`, `held_back_summary` and
  `verdict_note`), unpushed commits saved as a patch, both masked, in the directory an
  upload step keeps (`workflow_path`: a saved path as a later step of the job sees it);
  the runner's file commands (`RunnerFiles`) stay amelia's.

`Checkout` is what the engine builds and modes receive: the three parts and `path`,
`git` (local commands) and `remote()` (fetches and pushes: every agent process stopped,
then the server's URL and the token).
"""

from amelia.action.checkout._artifacts import workflow_path
from amelia.action.checkout._checkout import Checkout
from amelia.action.checkout._guard import CredentialGuard, GitHome, private_git_config
from amelia.action.checkout._held_back import HeldBackWork, workflow_permission_asker
from amelia.action.checkout._held_back_report import (
    held_back_lines,
    held_back_summary,
    verdict_note,
)
from amelia.action.checkout._publisher import CommittedWork, Publisher
from amelia.action.checkout._runner_files import RunnerFiles
from amelia.action.checkout._sessions import AgentSessions, AgentsStopped

__all__ = [
    "AgentSessions",
    "AgentsStopped",
    "Checkout",
    "CommittedWork",
    "CredentialGuard",
    "GitHome",
    "HeldBackWork",
    "Publisher",
    "RunnerFiles",
    "held_back_lines",
    "held_back_summary",
    "private_git_config",
    "verdict_note",
    "workflow_path",
    "workflow_permission_asker",
]
