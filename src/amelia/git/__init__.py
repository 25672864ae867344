"""The one git layer: every git process amelia starts goes through `amelia.git.runner`.

A library: it imports nothing from amelia but `amelia.errors` and `amelia.redaction`.
"""

from amelia.git.changes import DEFAULT_MAX_DIFF_CHARS, Changes, collect_changes
from amelia.git.commits import commit_all, commit_message, commit_paths
from amelia.git.names import unquote_path, validate_branch_name, validate_plan_path
from amelia.git.remote import (
    fetch,
    fetch_branch,
    push,
    remote_branch_exists,
    remote_default_branch,
    remote_heads,
    switch_to_branch,
)
from amelia.git.repo import (
    BOT_EMAIL,
    BOT_NAME,
    changed_paths,
    check_out_detached,
    configure_identity,
    diff,
    head_sha,
    is_shallow,
    mark_safe_directory,
    merge_base,
    path_exists_at,
    status_short,
    worktree_root,
)
from amelia.git.runner import (
    DEFAULT_TIMEOUT,
    NetworkRetry,
    display,
    display_path,
    is_transient,
    run_git,
    run_git_bytes,
    run_git_paths,
    run_network_read,
    split_paths,
    with_config,
)

__all__ = [
    "BOT_EMAIL",
    "BOT_NAME",
    "DEFAULT_MAX_DIFF_CHARS",
    "DEFAULT_TIMEOUT",
    "Changes",
    "NetworkRetry",
    "changed_paths",
    "check_out_detached",
    "collect_changes",
    "commit_all",
    "commit_message",
    "commit_paths",
    "configure_identity",
    "diff",
    "display",
    "display_path",
    "fetch",
    "fetch_branch",
    "head_sha",
    "is_shallow",
    "is_transient",
    "mark_safe_directory",
    "merge_base",
    "path_exists_at",
    "push",
    "remote_branch_exists",
    "remote_default_branch",
    "remote_heads",
    "run_git",
    "run_git_bytes",
    "run_git_paths",
    "run_network_read",
    "split_paths",
    "status_short",
    "switch_to_branch",
    "unquote_path",
    "validate_branch_name",
    "validate_plan_path",
    "with_config",
    "worktree_root",
]
