"""The repository's own CI on amelia's pushed commits: which workflows (`choose`), started
by a dispatch or by the push itself and waited for with few requests (`waiting`, `run`),
and what they came to (`outcome`), for the developer's next round, the reviewer, the pull
request and the job summary (`render`)."""

from amelia.ci.config import CiConfig
from amelia.ci.run import run_ci

__all__ = ["CiConfig", "run_ci"]
