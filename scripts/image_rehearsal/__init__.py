"""Build the Action's Dockerfile without Docker: debootstrap + chroot, step by step.

The rehearsal applies each Dockerfile instruction the way `docker build` would and fails
loudly on anything it cannot reproduce faithfully, so a broken image is caught on machines
that have no container engine.
"""

from scripts.image_rehearsal.builder import RehearsalResult, RehearsalSettings, rehearse
from scripts.image_rehearsal.entrypoint import EntrypointRun, run_entrypoint
from scripts.image_rehearsal.errors import RehearsalError

__all__ = [
    "EntrypointRun",
    "RehearsalError",
    "RehearsalResult",
    "RehearsalSettings",
    "rehearse",
    "run_entrypoint",
]
