"""GitHub's GraphQL endpoint over a `GitHubState`, for the fields amelia asks for: the
token's `viewer`, a pull request's `reviewThreads` and the `resolveReviewThread` mutation.

A query is parsed (a small parser of GraphQL's operation syntax: selections, arguments,
variables, inline objects) and answered with the fields it selects, as GitHub answers;
connections need `first` and take `after` cursors. Errors are GitHub's: status 200, an
`errors` list, and `data` with the failed field as null where GitHub sends it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from amelia.testing.github.records import GraphQLError, Json, Pull, ReviewComment, Thread
from amelia.testing.github.state import GitHubState

__all__ = ["Field", "Operation", "Variable", "execute", "parse"]

_TOKEN = re.compile(
    r"""
    (?P<skip>[\s,]+|\#[^\n]*)
    | (?P<punct>\.\.\.|[{}()\[\]:!$=@|&])
    | (?P<string>"(?:[^"\\]|\\.)*")
    | (?P<number>-?\d+(?:\.\d+)?)
    | (?P<name>[_A-Za-z][_0-9A-Za-z]*)
    """,
    re.VERBOSE,
)
_ROOT_FIELDS = "viewer, reviewThreads and resolveReviewThread"
Resolver = Callable[["Field"], Any]
"""How one field of an object is answered, given its selection."""


def _value(value: Any) -> Resolver:
    """A field whose answer is `value`, whatever it selects."""
    return lambda _selected: value


@dataclass(frozen=True)
class Variable:
    """`$name` in an argument: its value comes from the request's `variables`."""

    name: str


@dataclass(frozen=True)
class Field:
    """A selected field: its name, the key it answers under, its arguments (values, or a
    `Variable` to look up), and its own selections."""

    name: str
    alias: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    selections: tuple[Field, ...] = ()

    @property
    def key(self) -> str:
        return self.alias or self.name


@dataclass(frozen=True)
class Operation:
    kind: str
    """`query` or `mutation`."""
    selections: tuple[Field, ...]


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = list(self._tokenize(text))
        self.at = 0

    @staticmethod
    def _tokenize(text: str) -> Iterator[tuple[str, str]]:
        position = 0
        while position < len(text):
            found = _TOKEN.match(text, position)
            if found is None:
                raise GraphQLError(f"Parse error on {text[position]!r} (unexpected character)")
            position = found.end()
            kind = found.lastgroup or ""
            if kind != "skip":
                yield kind, found.group()

    def peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.at >= len(self.tokens):
            raise GraphQLError("Parse error on end of query")
        kind, text = self.tokens[self.at]
        if expected is not None and text != expected:
            raise GraphQLError(f'Parse error on "{text}" (expected "{expected}")')
        self.at += 1
        return kind, text

    def name(self) -> str:
        kind, text = self.take()
        if kind != "name":
            raise GraphQLError(f'Parse error on "{text}" (expected a name)')
        return text

    def operation(self) -> Operation:
        kind = "query"
        if self.peek() in ("query", "mutation"):
            kind = self.take()[1]
            if self.peek() not in ("{", "("):
                self.name()  # the operation's name
            if self.peek() == "(":
                self.variable_definitions()
        selections = self.selection_set()
        if self.peek() is not None:
            raise GraphQLError(f'Parse error on "{self.peek()}" (one operation expected)')
        return Operation(kind, selections)

    def variable_definitions(self) -> None:
        self.take("(")
        while self.peek() != ")":
            self.take("$")
            self.name()
            self.take(":")
            self.type_reference()
            if self.peek() == "=":
                self.take("=")
                self.value()
        self.take(")")

    def type_reference(self) -> None:
        if self.peek() == "[":
            self.take("[")
            self.type_reference()
            self.take("]")
        else:
            self.name()
        if self.peek() == "!":
            self.take("!")

    def selection_set(self) -> tuple[Field, ...]:
        self.take("{")
        fields: list[Field] = []
        while self.peek() != "}":
            fields.append(self.field())
        self.take("}")
        return tuple(fields)

    def field(self) -> Field:
        alias, name = None, self.name()
        if self.peek() == ":":
            self.take(":")
            alias, name = name, self.name()
        arguments: dict[str, Any] = {}
        if self.peek() == "(":
            self.take("(")
            while self.peek() != ")":
                argument = self.name()
                self.take(":")
                arguments[argument] = self.value()
            self.take(")")
        selections = self.selection_set() if self.peek() == "{" else ()
        return Field(name, alias, arguments, selections)

    def value(self) -> Any:
        kind, text = self.take()
        if text == "$":
            return Variable(self.name())
        if kind == "string":
            return str(json.loads(text))
        if kind == "number":
            return float(text) if "." in text else int(text)
        if text == "{":
            found: dict[str, Any] = {}
            while self.peek() != "}":
                key = self.name()
                self.take(":")
                found[key] = self.value()
            self.take("}")
            return found
        if text == "[":
            items = []
            while self.peek() != "]":
                items.append(self.value())
            self.take("]")
            return items
        if kind == "name":
            return {"null": None, "true": True, "false": False}.get(text, text)
        raise GraphQLError(f'Parse error on "{text}" (expected a value)')


def parse(query: str) -> Operation:
    """The one operation of `query`; `GraphQLError` for what GraphQL's grammar refuses."""
    return _Parser(query).operation()


def _resolved(value: Any, variables: Json) -> Any:
    if isinstance(value, Variable):
        return variables.get(value.name)
    if isinstance(value, dict):
        return {key: _resolved(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolved(item, variables) for item in value]
    return value


class _Answer:
    """Resolves the selections of one operation against the state."""

    def __init__(self, state: GitHubState, variables: Json) -> None:
        self.state = state
        self.variables = variables

    def argument(self, selected: Field, name: str) -> Any:
        return _resolved(selected.arguments.get(name), self.variables)

    def select(self, selected: Field, type_name: str, fields: dict[str, Resolver]) -> Json:
        """The answer of `selected`'s selections on an object of GraphQL type `type_name`."""
        answer: Json = {}
        for child in selected.selections:
            resolve = fields.get(child.name)
            if resolve is None:
                raise GraphQLError(f"Field '{child.name}' doesn't exist on type '{type_name}'")
            answer[child.key] = resolve(child)
        return answer

    def page(self, selected: Field, connection: str) -> tuple[int, int]:
        """(first, offset) of a connection; GitHub requires `first` (or `last`)."""
        first = self.argument(selected, "first")
        if not isinstance(first, int):
            raise GraphQLError(
                f"You must provide a `first` or `last` value to properly paginate the "
                f"`{connection}` connection."
            )
        after = self.argument(selected, "after")
        offset = int(after.removeprefix("cursor:")) if isinstance(after, str) else 0
        return min(first, 100), offset

    # query ---------------------------------------------------------------------------------

    def viewer(self, selected: Field) -> Json:
        return self.select(selected, "User", {"login": _value(self.state.token_user.login)})

    def repository(self, selected: Field) -> Json:
        full_name = f"{self.argument(selected, 'owner')}/{self.argument(selected, 'name')}"
        return self.select(
            selected,
            "Repository",
            {"pullRequest": lambda child: self.pull_request(child, full_name)},
        )

    def pull_request(self, selected: Field, full_name: str) -> Json:
        pull, threads = self.state.review_threads(full_name, int(self.argument(selected, "number")))
        return self.select(
            selected,
            "PullRequest",
            {"reviewThreads": lambda child: self.review_threads(child, pull, threads)},
        )

    def review_threads(self, selected: Field, pull: Pull, threads: list[Thread]) -> Json:
        first, offset = self.page(selected, "reviewThreads")
        chosen = threads[offset : offset + first]
        end = offset + len(chosen)
        page_info = {
            "hasNextPage": end < len(threads),
            "endCursor": f"cursor:{end}" if chosen else None,
            "hasPreviousPage": offset > 0,
            "startCursor": f"cursor:{offset}" if chosen else None,
        }
        return self.select(
            selected,
            "PullRequestReviewThreadConnection",
            {
                "totalCount": _value(len(threads)),
                "pageInfo": lambda child: self.select(
                    child, "PageInfo", {key: _value(value) for key, value in page_info.items()}
                ),
                "nodes": lambda child: [self.thread(child, pull, t) for t in chosen],
            },
        )

    def thread(self, selected: Field, pull: Pull, thread: Thread) -> Json:
        root = pull.review_comments[thread.comment_ids[0]]
        return self.select(
            selected,
            "PullRequestReviewThread",
            {
                "id": _value(thread.id),
                "isResolved": _value(thread.is_resolved),
                "isOutdated": _value(False),
                "path": _value(root.path),
                "line": _value(root.line),
                "comments": lambda child: self.thread_comments(child, pull, thread),
            },
        )

    def thread_comments(self, selected: Field, pull: Pull, thread: Thread) -> Json:
        first, offset = self.page(selected, "comments")
        comments = [pull.review_comments[i] for i in thread.comment_ids][offset : offset + first]
        return self.select(
            selected,
            "PullRequestReviewCommentConnection",
            {
                "totalCount": _value(len(thread.comment_ids)),
                "nodes": lambda child: [self.review_comment(child, c) for c in comments],
            },
        )

    def review_comment(self, selected: Field, comment: ReviewComment) -> Json:
        return self.select(
            selected,
            "PullRequestReviewComment",
            {
                "id": _value(f"PRRC_{comment.id}"),
                "databaseId": _value(comment.id),
                "body": _value(comment.body),
                "author": lambda author: self.select(
                    author, "Actor", {"login": _value(comment.user.login)}
                ),
            },
        )

    # mutation ------------------------------------------------------------------------------

    def resolve_review_thread(self, selected: Field) -> Json:
        given = self.argument(selected, "input")
        thread_id = str((given or {}).get("threadId"))
        thread = self.state.resolve_review_thread(thread_id)
        return self.select(
            selected,
            "ResolveReviewThreadPayload",
            {
                "thread": lambda child: self.select(
                    child,
                    "PullRequestReviewThread",
                    {"id": _value(thread.id), "isResolved": _value(thread.is_resolved)},
                )
            },
        )


def execute(state: GitHubState, query: str, variables: Json) -> Json:
    """GitHub's answer (the JSON of a 200) to `query` with `variables`."""
    answer = _Answer(state, variables)
    roots: dict[str, dict[str, Resolver]] = {
        "query": {"viewer": answer.viewer, "repository": answer.repository},
        "mutation": {"resolveReviewThread": answer.resolve_review_thread},
    }
    try:
        operation = parse(query)
        data: Json = {}
        for selected in operation.selections:
            resolve = roots[operation.kind].get(selected.name)
            if resolve is None:
                raise GraphQLError(f"the local GitHub answers only {_ROOT_FIELDS}")
            data[selected.key] = resolve(selected)
    except GraphQLError as error:
        if error.data is None:
            return {"errors": [error.as_json()]}
        return {"data": error.data, "errors": [error.as_json()]}
    return {"data": data}
