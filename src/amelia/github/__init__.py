"""Everything that talks to GitHub: events, permissions, comments, git.

Importing it first defers the modules PyGithub imports but amelia never uses
(`amelia.github.deferred`), before any of its modules imports PyGithub.
"""

from amelia.github.deferred import defer_unused_imports

__all__: list[str] = []

defer_unused_imports()
