"""A local stand-in for `debian:bookworm-slim`: debootstrap's minbase, made once and cached.

The official image is debuerreotype's minbase plus a few configuration files that keep it
slim (no docs or man pages, no apt caches). We add the same files so that package installs
in the rehearsal leave the same footprint they would leave in the real image.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scripts.image_rehearsal.errors import RehearsalError
from scripts.image_rehearsal.mounts import remove_tree

DEFAULT_CACHE_DIR = Path("/var/cache/amelia-rehearsal")
CACHE_ENV_VAR = "AMELIA_REHEARSAL_CACHE"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
MIRROR_ENV_VAR = "AMELIA_REHEARSAL_MIRROR"
BASE_NAME = "bookworm-slim"
# Bump when the way the base is made changes, so stale caches are rebuilt.
BASE_FORMAT = "1"

# debuerreotype's slimming for the "-slim" variants, as shipped in debian:bookworm-slim.
_SLIM_FILES = {
    "etc/dpkg/dpkg.cfg.d/docker": (
        "path-exclude /usr/share/doc/*\n"
        "path-include /usr/share/doc/*/copyright\n"
        "path-exclude /usr/share/groff/*\n"
        "path-exclude /usr/share/info/*\n"
        "path-exclude /usr/share/linda/*\n"
        "path-exclude /usr/share/lintian/overrides/*\n"
        "path-exclude /usr/share/locale/*\n"
        "path-include /usr/share/locale/locale.alias\n"
        "path-exclude /usr/share/man/*\n"
    ),
    "etc/dpkg/dpkg.cfg.d/docker-apt-speedup": "force-unsafe-io\n",
    "etc/apt/apt.conf.d/docker-clean": (
        'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb '
        '/var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\n'
        'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb '
        '/var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\n'
        'Dir::Cache::pkgcache "";\n'
        'Dir::Cache::srcpkgcache "";\n'
    ),
    "etc/apt/apt.conf.d/docker-autoremove-suggests": (
        'Apt::AutoRemove::SuggestsImportant "false";\n'
    ),
    "etc/apt/apt.conf.d/docker-gzip-indexes": 'Acquire::GzipIndexes "true";\n',
    "etc/apt/apt.conf.d/docker-no-languages": 'Acquire::Languages "none";\n',
    "etc/apt/sources.list.d/debian.sources": (
        "Types: deb\n"
        "URIs: http://deb.debian.org/debian\n"
        "Suites: bookworm bookworm-updates\n"
        "Components: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
        "\n"
        "Types: deb\n"
        "URIs: http://deb.debian.org/debian-security\n"
        "Suites: bookworm-security\n"
        "Components: main\n"
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
    ),
}
# What the slim image does not ship: debootstrap's download leftovers, and what the
# dpkg path-excludes above would have kept out had they been in place from the start.
_SLIM_REMOVALS = (
    "etc/apt/sources.list",
    "var/cache/apt/archives",
    "var/lib/apt/lists",
    "usr/share/groff",
    "usr/share/info",
    "usr/share/lintian/overrides",
    "usr/share/man",
)
_SLIM_KEEP = {"usr/share/doc": "copyright", "usr/share/locale": "locale.alias"}


def default_cache_dir() -> Path:
    configured = os.environ.get(CACHE_ENV_VAR, "")
    return Path(configured) if configured else DEFAULT_CACHE_DIR


@contextmanager
def locked(lock_path: Path) -> Iterator[None]:
    """An exclusive lock shared by concurrent rehearsals (CI jobs, pytest-xdist workers)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def base_root(cache_dir: Path) -> Path:
    return cache_dir / f"{BASE_NAME}-v{BASE_FORMAT}" / "rootfs"


def ensure_base(cache_dir: Path, mirror: str | None = None) -> Path:
    """The cached base root filesystem, made with debootstrap when missing or incomplete."""
    root = base_root(cache_dir)
    marker = root.parent / "complete"
    with locked(cache_dir / "base.lock"):
        if marker.is_file() and root.is_dir():
            return root
        if shutil.which("debootstrap") is None:
            raise RehearsalError("debootstrap is not installed (apt-get install -y debootstrap)")
        remove_tree(root.parent)
        staging = root.parent.with_name(root.parent.name + ".partial")
        remove_tree(staging)
        staging.mkdir(parents=True)
        chosen_mirror = mirror or os.environ.get(MIRROR_ENV_VAR, "") or DEFAULT_MIRROR
        started = time.monotonic()
        result = subprocess.run(
            [
                "debootstrap",
                "--variant=minbase",
                "bookworm",
                str(staging / "rootfs"),
                chosen_mirror,
            ],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).splitlines()[-20:])
            remove_tree(staging)
            raise RehearsalError(f"debootstrap of bookworm failed:\n{tail}")
        _slim_down(staging / "rootfs")
        (staging / "complete").write_text(
            f"debootstrap minbase bookworm from {chosen_mirror} "
            f"in {time.monotonic() - started:.0f}s\n"
        )
        staging.rename(root.parent)
        return root


def _slim_down(root: Path) -> None:
    for relative in _SLIM_REMOVALS:
        target = root / relative
        if target.is_dir():
            # Keep the directory itself (apt and dpkg expect it), drop what is in it.
            for child in target.iterdir():
                remove_tree(child)
        elif target.exists():
            target.unlink()
    for relative, keep in _SLIM_KEEP.items():
        for path in sorted((root / relative).rglob("*"), reverse=True):
            if path.name == keep:
                continue
            if path.is_dir() and not path.is_symlink():
                if not any(path.iterdir()):
                    path.rmdir()
            else:
                path.unlink()
    (root / "var/cache/apt/archives/partial").mkdir(parents=True, exist_ok=True)
    (root / "var/lib/apt/lists/partial").mkdir(parents=True, exist_ok=True)
    for relative, content in _SLIM_FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
