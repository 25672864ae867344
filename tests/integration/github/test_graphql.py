"""The local GitHub's GraphQL endpoint answers what a query selects, as GitHub does, and
refuses what GitHub refuses, with GitHub's error shapes."""

from __future__ import annotations

import pytest

from amelia.testing.github.graphql import Field, Variable, execute, parse
from amelia.testing.github.records import GraphQLError
from amelia.testing.github.state import GitHubState

REPO = "octo/app"
DIFF = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x\n+y\n"
THREADS = """
query Threads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 1, after: $cursor) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 5) { nodes { databaseId author { login } } } }
      }
    }
  }
}
"""


@pytest.fixture
def state() -> GitHubState:
    state = GitHubState()
    state.add_repo(REPO)
    number = state.add_pull(REPO, head="feature", diff=DIFF)
    state.add_review_comment(REPO, number, user="alice", path="a.py", line=2, body="why y?")
    state.add_review_comment(REPO, number, user="bob", path="a.py", line=1, body="and x?")
    return state


def test_the_parser_reads_operations_arguments_variables_and_aliases() -> None:
    operation = parse(
        "mutation M($id: ID!) {"
        " done: resolveReviewThread(input: {threadId: $id}) { thread { id } } }"
    )
    (field,) = operation.selections
    assert operation.kind == "mutation"
    assert (field.name, field.key) == ("resolveReviewThread", "done")
    assert field.arguments == {"input": {"threadId": Variable("id")}}
    assert field.selections == (Field("thread", selections=(Field("id"),)),)
    assert parse(
        '{ a(s: "x\\"y", n: -2, f: 1.5, l: [1, 2], b: true, z: null, e: OPEN) }'
    ).selections[0].arguments == {
        "s": 'x"y',
        "n": -2,
        "f": 1.5,
        "l": [1, 2],
        "b": True,
        "z": None,
        "e": "OPEN",
    }


@pytest.mark.parametrize(
    "query", ["{ viewer { login }", "query { viewer ( }", "{ viewer } }", "{ ^ }"]
)
def test_what_graphql_cannot_parse_is_a_parse_error(query: str) -> None:
    with pytest.raises(GraphQLError, match="Parse error"):
        parse(query)
    (error,) = execute(GitHubState(), query, {})["errors"]
    assert error["message"].startswith("Parse error")


def test_review_threads_answer_the_selected_fields_a_page_at_a_time(state: GitHubState) -> None:
    variables = {"owner": "octo", "name": "app", "number": 1, "cursor": None}
    first = execute(state, THREADS, variables)["data"]["repository"]["pullRequest"]["reviewThreads"]
    assert set(first) == {"totalCount", "pageInfo", "nodes"}
    assert first["totalCount"] == 2
    assert first["pageInfo"] == {"hasNextPage": True, "endCursor": "cursor:1"}
    ((node),) = first["nodes"]
    assert set(node) == {"id", "isResolved", "comments"}
    assert node["comments"]["nodes"][0]["author"] == {"login": "alice"}
    variables["cursor"] = first["pageInfo"]["endCursor"]
    second = execute(state, THREADS, variables)["data"]["repository"]["pullRequest"][
        "reviewThreads"
    ]
    assert second["pageInfo"] == {"hasNextPage": False, "endCursor": "cursor:2"}
    assert second["nodes"][0]["comments"]["nodes"][0]["author"] == {"login": "bob"}


def test_a_connection_without_first_and_an_unknown_field_are_refused(state: GitHubState) -> None:
    pull = '{ repository(owner: "octo", name: "app") { pullRequest(number: 1) { %s } } }'
    query = pull % "reviewThreads { totalCount }"
    (error,) = execute(state, query, {})["errors"]
    assert "You must provide a `first` or `last` value" in error["message"]
    unknown = pull % "title"
    (error,) = execute(state, unknown, {})["errors"]
    assert error["message"] == "Field 'title' doesn't exist on type 'PullRequest'"
    (error,) = execute(state, "{ rateLimit { cost } }", {})["errors"]
    assert "answers only viewer" in error["message"]


def test_a_missing_pull_and_a_forbidden_resolve_come_with_data_and_a_typed_error(
    state: GitHubState,
) -> None:
    missing = execute(state, THREADS, {"owner": "octo", "name": "app", "number": 9})
    assert missing["data"] == {"repository": None}
    assert [(e["type"], e["path"]) for e in missing["errors"]] == [("NOT_FOUND", ["repository"])]
    resolve = (
        'mutation { resolveReviewThread(input: {threadId: "PRRT_1"}) { thread { isResolved } } }'
    )
    unknown = execute(state, resolve, {})
    assert unknown["data"] == {"resolveReviewThread": None}
    assert unknown["errors"][0]["type"] == "NOT_FOUND"
    state.forbid_resolving = True
    thread = state.review_threads(REPO, 1)[1][0].id
    forbidden = execute(state, resolve.replace("PRRT_1", thread), {})
    assert forbidden["errors"][0]["message"] == "Resource not accessible by integration"
    state.forbid_resolving = False
    done = execute(state, resolve.replace("PRRT_1", thread), {})
    assert done == {"data": {"resolveReviewThread": {"thread": {"isResolved": True}}}}
    assert state.review_threads(REPO, 1)[1][0].resolved_by == "github-actions[bot]"
