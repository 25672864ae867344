"""What the local GitHub knows, and the rules GitHub applies when it is read or changed.

`GitHubState` holds repositories, users and their permissions, issues with their comments,
labels and reactions, pull requests with their diffs, reviews, review comments and threads,
and the faults waiting to be injected. Its operations are GitHub's: each validates as
GitHub does (review comments only on lines of the diff, a diff over `MAX_DIFF_LINES` is
406 `too_large`, at most `MAX_PULL_FILES` files listed, 422 for a duplicate pull request
or a missing body, …) and raises `ApiError` with GitHub's status, message and errors, or
`GraphQLError` for the GraphQL operations. The REST routes (`rest`), the GraphQL endpoint
(`graphql`) and the in-memory GitHub (`memory`) all work on one of these, so a test may
seed through one and read through another.

A repository registered with a bare repository (`bare_path`) reads its branches and files
from it with git; the others know only the branches they were registered with.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from unidiff.patch import PatchedFile, PatchSet

from amelia.errors import GitError
from amelia.git import run_git, run_git_bytes, unquote_path
from amelia.github.token_facts import JOB_TOKEN_LOGIN
from amelia.testing.github.actions import (
    ActionsPermission,
    OtherCheckSuite,
    RunScript,
    WorkflowRun,
    WorkflowsOfRepository,
    check_permission,
)
from amelia.testing.github.faults import Fault, FaultQueues
from amelia.testing.github.records import (
    ApiError,
    Comment,
    Contents,
    GraphQLError,
    Issue,
    Json,
    Pull,
    Repository,
    Review,
    ReviewComment,
    Thread,
    User,
    now,
)

__all__ = [
    "ISSUE_DIRECTIONS",
    "ISSUE_SORTS",
    "ISSUE_STATES",
    "MAX_DIFF_LINES",
    "MAX_PULL_FILES",
    "REACTIONS",
    "GitHubState",
]

MAX_DIFF_LINES = 20_000
"""GitHub answers a diff request for a longer diff with 406 `too_large`."""
MAX_PULL_FILES = 3_000
"""`pulls/{n}/files` lists at most this many files of a pull request."""
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket")
"""The reaction contents GitHub counts in an issue's `reactions` rollup."""
ISSUE_STATES = ("open", "closed", "all")
ISSUE_SORTS = ("created", "updated", "comments")
ISSUE_DIRECTIONS = ("asc", "desc")
REVIEW_EVENTS = ("APPROVE", "REQUEST_CHANGES", "COMMENT", "PENDING")


def _diff_lines(diff: str) -> dict[tuple[str, str], set[int]]:
    """Lines a review comment may target, per (path, side), as GitHub resolves them: by the
    file's name, not by git's quoting of it."""
    lines: dict[tuple[str, str], set[int]] = defaultdict(set)
    for patched in PatchSet(diff):
        path = unquote_path(patched.path)
        for hunk in patched:
            for line in hunk:
                if line.target_line_no is not None:
                    lines[(path, "RIGHT")].add(line.target_line_no)
                if line.source_line_no is not None and not line.is_added:
                    lines[(path, "LEFT")].add(line.source_line_no)
    return lines


def _hunk_up_to(diff: str, path: str, line: int, side: str) -> tuple[str, int | None]:
    """GitHub's `diff_hunk` of a review comment (its hunk up to the line) and `position`
    (lines below the file's first hunk header)."""
    position = 0
    for patched in PatchSet(diff):
        if unquote_path(patched.path) != path:
            continue
        for index, hunk in enumerate(patched):
            position += 0 if index == 0 else 1
            header = str(hunk).split("\n", 1)[0]
            shown = [header]
            for row in hunk:
                position += 1
                shown.append(str(row).rstrip("\n"))
                number = row.target_line_no if side == "RIGHT" else row.source_line_no
                if number == line and (side == "RIGHT" or not row.is_added):
                    return "\n".join(shown), position
    return "", None


def _invalid(resource: str, name: str, value: str, choices: Sequence[str]) -> None:
    """GitHub's 422 for a word it does not take."""
    if value not in choices:
        raise ApiError(
            422, "Validation Failed", [{"resource": resource, "field": name, "code": "invalid"}]
        )


def _missing_body(body: object) -> None:
    if not isinstance(body, str) or not body:
        raise ApiError(422, "Validation Failed", [{"field": "body", "code": "missing_field"}])


class GitHubState:
    """Repositories, users and everything on them, as GitHub would hold them.

    Every method takes `lock` itself; hold it too to read several records consistently
    while a server thread may change them."""

    def __init__(self, token_user: str = JOB_TOKEN_LOGIN) -> None:
        self.lock = threading.RLock()
        self.token_user = User(token_user, "Bot" if token_user.endswith("[bot]") else "User", 1)
        """Who the token acts as: the author of everything amelia writes."""
        self.repositories: dict[str, Repository] = {}
        """By lower-case owner/name."""
        self.users: dict[str, User] = {token_user.lower(): self.token_user}
        """By lower-case login."""
        self.faults = FaultQueues()
        self.max_diff_lines = MAX_DIFF_LINES
        """Diffs longer than this are refused with 406, like GitHub's (tests may lower it)."""
        self.forbid_resolving = False
        """True: `resolveReviewThread` answers FORBIDDEN, as for a token that may not."""
        self.web_url = "https://github.com"
        """Where its `html_url`s point (a GitHub Enterprise Server answers with its own host)."""
        self.oauth_scopes: tuple[str, ...] | None = None
        """The token's OAuth scopes, which GitHub lists (`X-OAuth-Scopes`) for a classic
        personal access token (None: it does not, as for the job's token or an App's)."""
        self.actions_permission: ActionsPermission = "write"
        """What the job's token may do with GitHub Actions: `write` (dispatch), `read`
        (read runs: a dispatch is 403) or `none` (every Actions request is 403)."""
        self._actions: dict[str, WorkflowsOfRepository] = {}
        self._ids = itertools.count(1000)

    def next_id(self) -> int:
        """A new id: users, repositories, comments, reviews and review comments share one
        sequence, growing with time as GitHub's ids do."""
        with self.lock:
            return next(self._ids)

    # seeding -------------------------------------------------------------------------------

    def add_user(self, login: str, user_type: str = "User") -> User:
        with self.lock:
            user = User(login, user_type, self.next_id())
            self.users[login.lower()] = user
            return user

    def _known_user(self, login: str, user_type: str = "User") -> User:
        """`login`, made a user of type `user_type` when GitHub does not know them yet."""
        with self.lock:
            # An id is drawn either way, so ids do not depend on who was seen before.
            return self.users.setdefault(login.lower(), User(login, user_type, self.next_id()))

    def add_repo(
        self,
        full_name: str,
        default_branch: str = "main",
        bare_path: Path | None = None,
        branches: tuple[str, ...] = (),
        git_token: str | None = None,
    ) -> Repository:
        """Register a repository; with `bare_path` branches and files are read from that
        bare repository (served over git's HTTP protocol by the server; a push there needs
        `git_token`)."""
        owner, name = full_name.split("/", 1)
        with self.lock:
            repository = Repository(
                owner,
                name,
                default_branch,
                bare_path,
                self.next_id(),
                branches=set(branches),
                git_token=git_token,
            )
            self.repositories[full_name.lower()] = repository
            self._known_user(owner, "Organization")
            return repository

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        """Give `login` one of admin, maintain, write, triage, read or none."""
        with self.lock:
            self.repository(full_name).permissions[login.lower()] = permission
            self._known_user(login)

    def add_issue(
        self,
        full_name: str,
        title: str,
        body: str = "",
        user: str = "octocat",
        labels: tuple[str, ...] | list[str] = (),
        state: str = "open",
        *,
        created_at: str | None = None,
        reactions: Mapping[str, int] | None = None,
    ) -> int:
        """A new issue, numbered after the last one; `created_at` (GitHub's
        `YYYY-MM-DDTHH:MM:SSZ`, default now) and `reactions` (`{"+1": 3}`) as GitHub would
        report them."""
        with self.lock:
            repository = self.repository(full_name)
            number = len(repository.issues) + 1
            repository.issues[number] = Issue(
                number,
                title,
                body,
                self._known_user(user),
                list(labels),
                state,
                created_at or now(),
                reactions=dict(reactions or {}),
            )
            return number

    def add_pull(
        self,
        full_name: str,
        head: str,
        base: str = "main",
        title: str = "Change",
        body: str = "",
        draft: bool = False,
        diff: str | None = None,
        head_sha: str = "0" * 40,
        user: str = "octocat",
        head_repo: str | None = None,
    ) -> int:
        """Register a pull; with `diff`, review comments are validated against its hunks;
        with `head_repo`, its head branch is in that fork."""
        with self.lock:
            number = self.add_issue(full_name, title, body, user)
            issue = self.repository(full_name).issues[number]
            issue.pull = Pull(number, head, base, head_sha, draft, diff, head_repo=head_repo)
            return number

    def add_label(self, full_name: str, number: int, label: str) -> None:
        """Label issue or pull `number` (GitHub's issue list then holds a labelled pull too)."""
        with self.lock:
            self.issue(full_name, number).labels.append(label)

    def add_review(
        self,
        full_name: str,
        number: int,
        *,
        user: str,
        body: str = "",
        state: str = "COMMENTED",
        commit_id: str | None = None,
        comments: Sequence[Json] = (),
    ) -> Review:
        """A review of pull `number` by `user` (someone else than the token's user, or
        someone forging amelia's words); `comments` (`path`, `line`, `body`, `side`) start
        a thread each, unchecked against the diff."""
        with self.lock:
            _issue, pull = self.pull(full_name, number)
            review = self._new_review(pull, body, state, author=self._known_user(user))
            review.commit_id = commit_id or pull.head_sha
            self._add_inline(pull, review, comments)
            return review

    def add_review_comment(
        self, full_name: str, number: int, *, user: str, path: str, line: int, body: str
    ) -> int:
        """A person's review comment on `line` of `path` (new side) of the pull's diff, in a
        review of its own, starting a thread; returns its id."""
        with self.lock:
            review = self.add_review(
                full_name,
                number,
                user=user,
                comments=[{"path": path, "line": line, "body": body, "side": "RIGHT"}],
            )
            review.comments = []
            review.commit_id = self.pull(full_name, number)[1].head_sha
            return self.pull(full_name, number)[1].threads[-1].comment_ids[0]

    def resolve_thread(self, full_name: str, number: int, comment_id: int, *, by: str) -> None:
        """`by` resolves the thread review comment `comment_id` is in, as a person does on
        the pull request's page."""
        with self.lock:
            _issue, pull = self.pull(full_name, number)
            (thread,) = [t for t in pull.threads if comment_id in t.comment_ids]
            thread.is_resolved, thread.resolved_by = True, by

    def push_to_pull(
        self, full_name: str, number: int, head_sha: str, diff: str | None = None
    ) -> None:
        """The pull's head moved (a push: `synchronize`); `diff` is its new diff."""
        with self.lock:
            _issue, pull = self.pull(full_name, number)
            pull.head_sha = head_sha
            pull.diff = diff

    def delete_issue(self, full_name: str, number: int) -> None:
        """Delete issue `number` (as an admin may on GitHub); its comments stay unreachable."""
        with self.lock:
            repository = self.repository(full_name)
            self.issue(full_name, number)
            del repository.issues[number]

    def inject(self, method: str, path_pattern: str, *faults: Fault) -> None:
        """Queue `faults` for requests whose `METHOD path` fully matches the regex given."""
        with self.lock:
            self.faults.inject(method, path_pattern, *faults)

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            return self.faults.take(method, path)

    # GitHub Actions ------------------------------------------------------------------------

    def actions(self, full_name: str, *, write: bool = False) -> WorkflowsOfRepository:
        """The repository's workflows and runs; 403 when the token may not (see
        `actions_permission`)."""
        with self.lock:
            repository = self.repository(full_name)
            check_permission(self.actions_permission, write=write)
            key = full_name.lower()
            if key not in self._actions:
                self._actions[key] = WorkflowsOfRepository(repository, self.next_id)
            return self._actions[key]

    def script_runs(self, full_name: str, workflow: str, *scripts: RunScript) -> None:
        """Queue what the next runs of `workflow` (its file name) do."""
        with self.lock:
            repository = self.repository(full_name)
            key = full_name.lower()
            if key not in self._actions:
                self._actions[key] = WorkflowsOfRepository(repository, self.next_id)
            self._actions[key].script(workflow, *scripts)

    def pushes_start_workflows(self) -> bool:
        """GitHub starts no workflow for a push made with the job's token."""
        return self.token_user.login != JOB_TOKEN_LOGIN

    def branch_pushed(self, full_name: str, branch: str, sha: str) -> list[WorkflowRun]:
        """What a push of `branch` to `sha` starts (nothing with the job's token)."""
        with self.lock:
            if not self.pushes_start_workflows():
                return []
            repository = self.repository(full_name)
            pull_open = any(
                issue.pull is not None and issue.state == "open" and issue.pull.head == branch
                for issue in repository.issues.values()
            )
            return self._actions_of(repository).pushed(branch, sha, pull_open=pull_open)

    def install_app(
        self,
        full_name: str,
        app: str,
        name: str,
        *,
        conclusion: str | None = "success",
        details_url: str = "",
    ) -> None:
        """An app other than GitHub Actions (its slug `app`) that reports a check suite
        with one check run `name` on every commit a push starts workflows for, completed
        with `conclusion` (None: it stays in progress)."""
        with self.lock:
            actions = self._actions_of(self.repository(full_name))
            actions.apps.append(OtherCheckSuite(0, app, "", name, "", conclusion, details_url))

    def _actions_of(self, repository: Repository) -> WorkflowsOfRepository:
        key = repository.full_name.lower()
        if key not in self._actions:
            self._actions[key] = WorkflowsOfRepository(repository, self.next_id)
        return self._actions[key]

    # lookups -------------------------------------------------------------------------------

    def repository(self, full_name: str) -> Repository:
        with self.lock:
            found = self.repositories.get(full_name.lower())
            if found is None:
                raise ApiError(404, "Not Found")
            return found

    def user(self, login: str) -> User:
        with self.lock:
            found = self.users.get(login.lower())
            if found is None:
                raise ApiError(404, "Not Found")
            return found

    def issue(self, full_name: str, number: int) -> Issue:
        with self.lock:
            found = self.repository(full_name).issues.get(number)
            if found is None:
                raise ApiError(404, "Not Found")
            return found

    def pull(self, full_name: str, number: int) -> tuple[Issue, Pull]:
        with self.lock:
            issue = self.issue(full_name, number)
            if issue.pull is None:
                raise ApiError(404, "Not Found")
            return issue, issue.pull

    def comment(self, full_name: str, comment_id: int) -> Comment:
        with self.lock:
            found = self.repository(full_name).comments.get(comment_id)
            if found is None:
                raise ApiError(404, "Not Found")
            return found

    # repository ----------------------------------------------------------------------------

    def permission(self, full_name: str, login: str) -> tuple[User, str]:
        """The user and their role (admin, maintain, write, triage, read or none); 404 for
        someone GitHub does not know."""
        with self.lock:
            repository = self.repository(full_name)
            user = self.users.get(login.lower())
            if user is None:
                raise ApiError(404, f"{login} is not a user")
            return user, repository.permissions.get(login.lower(), "none")

    def branch_exists(self, full_name: str, name: str) -> bool:
        with self.lock:
            repository = self.repository(full_name)
            if name in repository.branches:
                return True
            bare = repository.bare_path
        if bare is None:
            return False
        ref = f"refs/heads/{name}"
        try:
            run_git(["--git-dir", str(bare), "rev-parse", "--verify", "--quiet", ref], None)
        except GitError:
            return False
        return True

    def contents(self, full_name: str, path: str, *, ref: str | None = None) -> Contents:
        """The file or folder at `path` on `ref` (default: the default branch), read from
        the bare repository; 404 without one or without such a path, as GitHub answers."""
        with self.lock:
            repository = self.repository(full_name)
            ref = repository.default_branch if ref is None else ref
            bare = repository.bare_path
        path = path.strip("/")
        if bare is None:
            raise ApiError(404, "Not Found")
        git_dir = ["--git-dir", str(bare)]
        try:
            kind = run_git([*git_dir, "cat-file", "-t", f"{ref}:{path}"], None).strip()
        except GitError:
            raise ApiError(404, "Not Found") from None
        if kind == "tree":
            names = run_git([*git_dir, "ls-tree", "--name-only", f"{ref}:{path}"], None).split()
            return Contents(path, ref, "dir", entries=tuple(names))
        data = run_git_bytes([*git_dir, "cat-file", "blob", f"{ref}:{path}"], None)
        sha = run_git([*git_dir, "rev-parse", f"{ref}:{path}"], None).strip()
        return Contents(path, ref, "file", data=data, sha=sha)

    # issues and comments -------------------------------------------------------------------

    def list_issues(
        self,
        full_name: str,
        *,
        state: str = "open",
        labels: Sequence[str] = (),
        sort: str = "created",
        direction: str = "desc",
    ) -> list[Issue]:
        """Issues and pulls (GitHub's issue list holds both) in `state`, carrying every one
        of `labels`, sorted by `sort` (created, updated, comments; ties by number) in
        `direction`; 422 for a word GitHub does not take."""
        with self.lock:
            repository = self.repository(full_name)
            _invalid("Issue", "state", state, ISSUE_STATES)
            _invalid("Issue", "sort", sort, ISSUE_SORTS)
            _invalid("Issue", "direction", direction, ISSUE_DIRECTIONS)
            comments: Counter[int] = Counter()
            if sort == "comments":
                comments.update(c.issue_number for c in repository.comments.values())

            def key(issue: Issue) -> tuple[Any, int]:
                # No edit times are kept: an issue was last updated when it was made.
                value = comments[issue.number] if sort == "comments" else issue.created_at
                return value, issue.number

            found = sorted(
                (i for i in repository.issues.values() if state in ("all", i.state)),
                key=key,
                reverse=direction == "desc",
            )
            wanted = [label.lower() for label in labels]
            return [i for i in found if all(w in {x.lower() for x in i.labels} for w in wanted)]

    def issue_comments(self, full_name: str, number: int) -> list[Comment]:
        """The comments of issue or pull `number`, oldest first."""
        with self.lock:
            repository = self.repository(full_name)
            issue = self.issue(full_name, number)
            return [c for c in repository.comments.values() if c.issue_number == issue.number]

    def create_comment(
        self, full_name: str, number: int, body: object, *, author: str | None = None
    ) -> Comment:
        with self.lock:
            repository = self.repository(full_name)
            issue = self.issue(full_name, number)
            _missing_body(body)
            assert isinstance(body, str)
            user = self.token_user if author is None else self._known_user(author)
            stamp = now()
            comment = Comment(self.next_id(), issue.number, body, user, stamp, stamp)
            repository.comments[comment.id] = comment
            return comment

    def edit_comment(self, full_name: str, comment_id: int, body: str) -> Comment:
        with self.lock:
            comment = self.comment(full_name, comment_id)
            comment.body = body
            comment.updated_at = now()
            return comment

    def delete_comment(self, full_name: str, comment_id: int) -> None:
        with self.lock:
            comment = self.comment(full_name, comment_id)
            del self.repository(full_name).comments[comment.id]

    # pulls ---------------------------------------------------------------------------------

    def create_pull(
        self, full_name: str, *, head: str, base: str, title: str, body: str, draft: bool
    ) -> Issue:
        """A pull request from branch `head` (which must exist) into `base`; 422 when an
        open one from `head` exists already."""
        with self.lock:
            repository = self.repository(full_name)
        if not self.branch_exists(full_name, head):
            raise ApiError(422, "Validation Failed", [{"field": "head", "code": "invalid"}])
        with self.lock:
            for issue in repository.issues.values():
                if issue.pull and issue.state == "open" and issue.pull.head == head:
                    message = f"A pull request already exists for {repository.owner}:{head}."
                    raise ApiError(
                        422, "Validation Failed", [{"code": "custom", "message": message}]
                    )
            number = self.add_pull(
                repository.full_name, head, base, title, body, draft, user=self.token_user.login
            )
            if self.pushes_start_workflows():  # `pull_request` `opened`
                self._actions_of(repository).pull_opened(head, base)
            return repository.issues[number]

    def list_pulls(self, full_name: str, *, state: str = "open", head: str = "") -> list[Issue]:
        """Pull requests in `state` (or `all`), newest first; with `head` (`owner:branch`),
        only those from that branch."""
        with self.lock:
            repository = self.repository(full_name)
            return [
                issue
                for issue in sorted(repository.issues.values(), key=lambda i: -i.number)
                if issue.pull
                and (state == "all" or issue.state == state)
                and (not head or f"{repository.owner}:{issue.pull.head}".lower() == head.lower())
            ]

    def pull_diff(self, full_name: str, number: int) -> str:
        """The pull's diff; 406 `too_large` over `max_diff_lines` lines."""
        with self.lock:
            _issue, pull = self.pull(full_name, number)
            diff = pull.diff or ""
            if diff.count("\n") > self.max_diff_lines:
                raise ApiError(
                    406,
                    f"Sorry, the diff exceeded the maximum number of lines ({self.max_diff_lines})",
                    [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                )
            return diff

    def pull_files(self, full_name: str, number: int) -> list[PatchedFile]:
        """The files the pull changes, at most `MAX_PULL_FILES`."""
        with self.lock:
            _issue, pull = self.pull(full_name, number)
            diff = pull.diff or ""
        return list(PatchSet(diff))[:MAX_PULL_FILES]

    def update_pull(
        self,
        full_name: str,
        number: int,
        *,
        title: object = None,
        body: object = None,
        state: object = None,
        base: object = None,
    ) -> Issue:
        """Pull `number` with what is given (None: unchanged)."""
        with self.lock:
            issue, pull = self.pull(full_name, number)
            issue.title = issue.title if title is None else str(title)
            issue.body = issue.body if body is None else str(body)
            issue.state = issue.state if state is None else str(state)
            pull.base = pull.base if base is None else str(base)
            return issue

    # reviews -------------------------------------------------------------------------------

    def _new_review(self, pull: Pull, body: str, state: str, *, author: User) -> Review:
        review = Review(self.next_id(), author, body, state, pull.head_sha, now())
        pull.reviews.append(review)
        return review

    def _add_inline(self, pull: Pull, review: Review, comments: Sequence[Json]) -> None:
        """Each of `comments` as a review comment of `review`, starting a thread."""
        review.comments = list(comments)
        for comment in comments:
            path, line = str(comment.get("path")), int(comment.get("line") or 0)
            side = str(comment.get("side", "RIGHT"))
            hunk, position = _hunk_up_to(pull.diff or "", path, line, side)
            stored = ReviewComment(
                self.next_id(),
                review.id,
                path,
                line,
                side,
                str(comment.get("body", "")),
                review.user,
                review.commit_id,
                now(),
                diff_hunk=hunk,
                position=position,
            )
            pull.review_comments[stored.id] = stored
            pull.threads.append(Thread(f"PRRT_{stored.id}", [stored.id]))

    def create_review(
        self,
        full_name: str,
        number: int,
        *,
        body: object = "",
        event: object = "PENDING",
        comments: Sequence[Json] = (),
        commit_id: str | None = None,
    ) -> Review:
        """A review by the token's user. GitHub refuses an unknown event, a comment or a
        request for changes without a body, and an inline comment on a line outside the
        pull's diff (when the diff is known)."""
        with self.lock:
            _issue, pull = self.pull(full_name, number)
            if event not in REVIEW_EVENTS:
                raise ApiError(422, "Validation Failed", [{"field": "event", "code": "invalid"}])
            if event in ("REQUEST_CHANGES", "COMMENT") and not body:
                raise ApiError(
                    422, "Unprocessable Entity", [f"Review Can not {event.lower()} without a body"]
                )
            if pull.diff is not None:
                allowed = _diff_lines(pull.diff)
                for comment in comments:
                    key = cast(tuple[str, str], (comment.get("path"), comment.get("side", "RIGHT")))
                    if comment.get("line") not in allowed.get(key, set()):
                        raise ApiError(
                            422,
                            "Unprocessable Entity",
                            ["Pull request review thread line must be part of the diff"],
                        )
            states = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}
            state = states.get(str(event)) or ("COMMENTED" if event == "COMMENT" else str(event))
            review = self._new_review(pull, str(body), state, author=self.token_user)
            review.commit_id = commit_id or pull.head_sha
            self._add_inline(pull, review, comments)
            return review

    def reviews(self, full_name: str, number: int) -> list[Review]:
        """The pull's reviews, oldest first."""
        with self.lock:
            return list(self.pull(full_name, number)[1].reviews)

    def review_comments(
        self, full_name: str, number: int, *, newest_first: bool = False
    ) -> list[ReviewComment]:
        """The pull's review comments (thread starts and replies), oldest first."""
        with self.lock:
            found = list(self.pull(full_name, number)[1].review_comments.values())
        return found[::-1] if newest_first else found

    def reply_to_review_comment(
        self,
        full_name: str,
        number: int,
        comment_id: int,
        body: object,
        *,
        author: str | None = None,
    ) -> ReviewComment:
        """A reply in the thread review comment `comment_id` starts, by the token's user (or
        `author`); GitHub answers 422 for a reply to a reply."""
        with self.lock:
            _issue, pull = self.pull(full_name, number)
            _missing_body(body)
            target = pull.review_comments.get(comment_id)
            if target is None:
                raise ApiError(404, "Not Found")
            if target.in_reply_to_id is not None:
                raise ApiError(422, "Validation Failed", ["Replies to replies are not supported"])
            user = self.token_user if author is None else self._known_user(author)
            # GitHub files each reply under a review of its own (COMMENTED, empty body).
            review = self._new_review(pull, "", "COMMENTED", author=user)
            reply = ReviewComment(
                self.next_id(),
                review.id,
                target.path,
                target.line,
                target.side,
                str(body),
                user,
                pull.head_sha,
                now(),
                in_reply_to_id=target.id,
                diff_hunk=target.diff_hunk,
                position=target.position,
            )
            pull.review_comments[reply.id] = reply
            for thread in pull.threads:
                if target.id in thread.comment_ids:
                    thread.comment_ids.append(reply.id)
            return reply

    # review threads (GraphQL) --------------------------------------------------------------

    def review_threads(self, full_name: str, number: int) -> tuple[Pull, list[Thread]]:
        """The pull and its review threads, oldest first; GraphQL's NOT_FOUND when there is
        no such repository or pull request."""
        with self.lock:
            repository = self.repositories.get(full_name.lower())
            issue = repository.issues.get(number) if repository else None
            if issue is None or issue.pull is None:
                raise GraphQLError(
                    f"Could not resolve to a Repository or PullRequest ({full_name})",
                    kind="NOT_FOUND",
                    path=["repository"],
                    data={"repository": None},
                )
            return issue.pull, list(issue.pull.threads)

    def resolve_review_thread(self, thread_id: str) -> Thread:
        """Thread `thread_id` resolved by the token's user; FORBIDDEN while
        `forbid_resolving`, NOT_FOUND for an unknown id."""
        path = ["resolveReviewThread"]
        data: Json = {"resolveReviewThread": None}
        with self.lock:
            if self.forbid_resolving:
                raise GraphQLError(
                    "Resource not accessible by integration", kind="FORBIDDEN", path=path, data=data
                )
            for repository in self.repositories.values():
                for issue in repository.issues.values():
                    for thread in issue.pull.threads if issue.pull else ():
                        if thread.id == thread_id:
                            thread.is_resolved = True
                            thread.resolved_by = self.token_user.login
                            return thread
        message = f"Could not resolve to a node with the global id of '{thread_id}'"
        raise GraphQLError(message, kind="NOT_FOUND", path=path, data=data)
