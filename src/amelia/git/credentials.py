"""Credentials a checkout's git configuration holds or points at, hidden while agents run.

actions/checkout persists the job's token in one of several ways, and earlier steps add
their own:

- v4 and earlier: `http.<server>/.extraheader = AUTHORIZATION: basic …` in `.git/config`;
- v6 and later: the header in `$RUNNER_TEMP/git-credentials-<uuid>.config`, included from
  `.git/config` by `includeIf "gitdir:<checkout>/.git"` (and `…/.git/worktrees/*`)
  entries, written twice: once with the runner's paths, once with the paths a container
  action sees (`/github/workspace/.git` → `/github/runner_temp/git-credentials-….config`),
  and the same in each submodule's config;
- `persist-credentials: false`: nothing;
- a credential helper an earlier step configured (`credential.helper`, inline `!f() { … }`
  with the token, or `store` with its file), a URL with the token in it, a
  `core.sshCommand` naming a key file.

`hide_credentials()` takes all of that out of the config files it is given (the
repository's own, its submodules' and, on a runner, the global one) and empties every file
holding a credential that they include or name, so no git command of an agent
authenticates and `git config --list --show-origin` leads nowhere. `restore()` puts every
file back byte for byte (mode, owner and times too), once, whatever happened in between.
The values exist meanwhile only in this process's memory.
"""

from __future__ import annotations

import re
import shlex
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from amelia.errors import GitError
from amelia.git.files import SavedFile, overwrite
from amelia.git.runner import run_git
from amelia.git.value import Repo

__all__ = ["CHECKOUT_CREDENTIALS_FILE", "HiddenCredentials", "common_git_dir", "hide_credentials"]

CHECKOUT_CREDENTIALS_FILE = re.compile(r"git-credentials-[0-9a-f-]+\.config$", re.IGNORECASE)
"""The name actions/checkout (v6+) gives the file holding the token (its own pattern)."""
_CREDENTIAL_KEY = re.compile(r"^(?:http\.(?:.+\.)?extraheader|credential\..+|core\.sshcommand)$")
"""Keys (as `git config --list` spells them) that hold or lead to a credential."""
_INCLUDE_KEY = re.compile(r"^(?:include|includeif\..+)\.path$")
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")
_MAX_INCLUDE_DEPTH = 10
"""git's own limit on nested includes."""


def _holds_secret_userinfo(userinfo: str) -> bool:
    """True for userinfo that carries a credential: a password, or a token as the user
    name (`https://<token>@github.com/…`); a plain user such as `git` is kept."""
    return ":" in userinfo or len(userinfo) >= 16


def _strip_userinfo(text: str) -> str:
    def replace(found: re.Match[str]) -> str:
        if _holds_secret_userinfo(found.group("userinfo")):
            return found.group("scheme")
        return found.group(0)

    return _URL_USERINFO.sub(replace, text)


def _entries(path: Path) -> list[tuple[str, str]]:
    """(key, value) of every entry of the config file `path`, in file order, includes not
    followed; a key without `=` has the value ""."""
    out = run_git(["config", "--file", str(path), "--list", "-z"], None)
    entries = []
    for item in out.split("\0"):
        if item:
            key, _newline, value = item.partition("\n")
            entries.append((key, value))
    return entries


def _include_target(value: str, including: Path, home: Path | None) -> Path | None:
    if value.startswith("~/"):
        return None if home is None else home / value[2:]
    target = Path(value)
    return target if target.is_absolute() else including.parent / target


def _store_files(helper: str, home: Path | None, xdg_config: Path | None) -> list[Path]:
    """The files git's `store` helper keeps passwords in, for a `credential.helper` value."""
    try:
        words = shlex.split(helper)
    except ValueError:
        return []
    if not words or words[0] not in ("store", "git-credential-store"):
        return []
    for index, word in enumerate(words):
        if word.startswith("--file="):
            return [Path(word.removeprefix("--file=")).expanduser()]
        if word == "--file" and index + 1 < len(words):
            return [Path(words[index + 1]).expanduser()]
    found = []
    if home is not None:
        found.append(home / ".git-credentials")
    if xdg_config is not None:
        found.append(xdg_config / "git" / "credentials")
    return found


@dataclass
class _Plan:
    """What to change in one config file, and which other files to empty."""

    unset_keys: list[str] = field(default_factory=list)
    unset_values: list[tuple[str, str]] = field(default_factory=list)
    replace_values: list[tuple[str, str, str]] = field(default_factory=list)
    empty_files: list[Path] = field(default_factory=list)

    @property
    def changes_config(self) -> bool:
        return bool(self.unset_keys or self.unset_values or self.replace_values)


@dataclass
class _Scanner:
    home: Path | None
    xdg_config: Path | None

    def credential_files(self, path: Path, depth: int = 0) -> list[Path]:
        """`path` and the files it includes or names that hold a credential, when the
        config file `path` (or a file it includes) holds one; else []."""
        if depth > _MAX_INCLUDE_DEPTH or not path.is_file():
            return []
        try:
            plan = self.plan(path, depth)
        except GitError:
            return []
        if plan.changes_config or plan.empty_files:
            return [path, *plan.empty_files]
        return []

    def plan(self, path: Path, depth: int = 0) -> _Plan:
        plan = _Plan()
        for key, value in _entries(path):
            if _CREDENTIAL_KEY.match(key):
                if key not in plan.unset_keys:
                    plan.unset_keys.append(key)
                if key.endswith(".helper"):
                    plan.empty_files += _store_files(value, self.home, self.xdg_config)
            elif _INCLUDE_KEY.match(key):
                target = _include_target(value, path, self.home)
                files = [] if target is None else self.credential_files(target, depth + 1)
                if files or CHECKOUT_CREDENTIALS_FILE.search(value):
                    plan.unset_values.append((key, value))
                    plan.empty_files += files or ([] if target is None else [target])
            elif _strip_userinfo(key) != key:
                if key not in plan.unset_keys:
                    plan.unset_keys.append(key)
            elif (stripped := _strip_userinfo(value)) != value:
                plan.replace_values.append((key, stripped, value))
        return plan


def _apply(plan: _Plan, config: Path, scratch: Path) -> bytes:
    """The bytes of `config` with the plan's entries removed or replaced (edited by git
    itself, on a private copy)."""
    copy = scratch / "config"
    copy.write_bytes(config.read_bytes())
    base = ["config", "--file", str(copy)]
    for key in plan.unset_keys:
        run_git([*base, "--unset-all", key], None, ok_codes=(0, 5))
    for key, value in plan.unset_values:
        run_git([*base, "--fixed-value", "--unset-all", key, value], None, ok_codes=(0, 5))
    for key, new, old in plan.replace_values:
        run_git([*base, "--fixed-value", "--replace-all", key, new, old], None)
    return copy.read_bytes()


class HiddenCredentials:
    """What `hide_credentials` changed: config keys taken out (names, never values), files
    emptied, and the saved files to put back."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        """Config keys (or include entries) taken out, in the order found."""
        self.files: list[Path] = []
        """Files emptied because they hold a credential (checkout's credentials file …)."""
        self._saved: list[SavedFile] = []
        self._lock = threading.Lock()

    def remember(self, path: Path) -> None:
        """Save `path` as it is now, to be put back by `restore()` even if nothing here
        changes it (others may: amelia's own config of the checkout)."""
        with self._lock:
            self._save(path)

    def _save(self, path: Path) -> bool:
        if any(saved.path == path for saved in self._saved):
            return False
        saved = SavedFile.read(path)
        if saved is None:
            return False
        self._saved.append(saved)
        return True

    def restore(self) -> None:
        """Put every changed file back as it was (once; later calls do nothing). Every file
        is tried; the first failure is raised afterwards as a `GitError`."""
        with self._lock:
            saved, self._saved = self._saved, []
            failures = []
            for item in reversed(saved):
                try:
                    item.put_back()
                except OSError as error:
                    failures.append(f"{item.path}: {error.strerror or error}")
        if failures:
            raise GitError(f"could not restore {', '.join(failures)}")

    def empty(self, paths: Iterable[Path]) -> None:
        """Empty `paths` (regular files, never through a symlink) until `restore()`."""
        with self._lock:
            _empty(self, paths)

    @property
    def hidden(self) -> bool:
        return bool(self.keys or self.files)


def _config_files(git_dir: Path) -> list[Path]:
    """The repository's own config files: its config, a worktree's config and every
    submodule's config under `.git/modules`."""
    found = [git_dir / "config", git_dir / "config.worktree"]
    found += sorted(git_dir.glob("worktrees/*/config.worktree"))
    modules = git_dir / "modules"
    if modules.is_dir():
        found += sorted(path for path in modules.rglob("config") if (path.parent / "HEAD").exists())
    return [path for path in found if path.is_file() and not path.is_symlink()]


def common_git_dir(repo: Repo) -> Path:
    """The repository's (common) git directory, where its config lives."""
    out = run_git(["rev-parse", "--path-format=absolute", "--git-common-dir"], repo)
    return Path(out.rstrip("\n"))


def hide_credentials(
    repo: Repo,
    *,
    global_configs: Sequence[Path] = (),
    home: Path | None = None,
    xdg_config: Path | None = None,
    into: HiddenCredentials | None = None,
) -> HiddenCredentials:
    """Take every credential out of the config files of `repo` (and of `global_configs`),
    and empty the files they include or name that hold one. `home` and `xdg_config` are
    where `~` and git's XDG files are for the git amelia runs. With `into`, what is
    hidden is recorded there as it happens, so a caller that is stopped half-way can
    still restore all of it."""
    hidden = into if into is not None else HiddenCredentials()
    scanner = _Scanner(home=home, xdg_config=xdg_config)
    configs = [*_config_files(common_git_dir(repo)), *global_configs]
    with hidden._lock, tempfile.TemporaryDirectory(prefix="amelia-git-") as scratch:
        for config in dict.fromkeys(configs):
            if not config.is_file() or config.is_symlink():
                continue
            plan = scanner.plan(config)
            if plan.changes_config:
                sanitized = _apply(plan, config, Path(scratch))
                hidden._save(config)
                overwrite(config, sanitized)
                hidden.keys += [*plan.unset_keys, *(key for key, _v in plan.unset_values)]
                hidden.keys += [key for key, _new, _old in plan.replace_values]
            _empty(hidden, plan.empty_files)
    return hidden


def _empty(hidden: HiddenCredentials, paths: Iterable[Path]) -> None:
    for path in paths:
        fresh = path.is_file() and not path.is_symlink() and path not in hidden.files
        if fresh and hidden._save(path):
            overwrite(path, b"")
            hidden.files.append(path)
