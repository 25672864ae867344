"""PyGithub's imports that amelia never uses, loaded on first use instead of at start-up.

Importing PyGithub's package imports `jwt` (and through it `cryptography`), which only its
GitHub App authentication uses, and PyNaCl, which only its encryption of repository secrets
uses: about 50 ms of CPU at every start of `amelia action`, before its first request.
amelia authenticates with a token and encrypts nothing. `defer_unused_imports()` makes
these modules lazy (`importlib.util.LazyLoader`, the standard library's recipe): the
import statements still succeed, and a module runs only when one of its attributes is
first read, so a PyGithub feature that does need one still works, a little later.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["DEFERRED_MODULES", "defer_unused_imports"]

DEFERRED_MODULES = frozenset({"jwt", "nacl.encoding", "nacl.public"})
"""The modules PyGithub imports at its start that amelia never needs."""


class _DeferringFinder(MetaPathFinder):
    """Finds DEFERRED_MODULES through the other finders and hands them a lazy loader."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in DEFERRED_MODULES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec: ModuleSpec | None = finder.find_spec(fullname, path, target)
            if spec is None:
                continue
            loader = spec.loader
            if loader is not None and hasattr(loader, "exec_module"):
                spec.loader = importlib.util.LazyLoader(loader)
            return spec
        return None


def defer_unused_imports() -> None:
    """Make DEFERRED_MODULES load on first use from now on (once per process)."""
    if not any(isinstance(finder, _DeferringFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _DeferringFinder())
