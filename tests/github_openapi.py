"""Requests to the local GitHub checked against GitHub's REST API description
(`@octokit/openapi`, fetched by `scripts.github_openapi`).

A request is valid when its method and path match an operation of the description, its
path parameters have the declared shape, every query parameter is declared and of the
declared type, and its JSON body validates against the operation's `requestBody` schema
(no body where none is described, one where it is required). An answer is valid when its
status is one the operation describes (a `304` to a conditional request too) and, where
asked, its JSON body validates against the response's schema.

Where the description is: `AMELIA_GITHUB_OPENAPI` names the file (then it must be there:
`.ci/run` sets it, so a missing description fails the run); without it, the cached copy
of the pinned version, if `python -m scripts.github_openapi` has fetched it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from jsonschema import Draft4Validator
from referencing import Registry
from referencing.jsonschema import DRAFT4
from scripts.github_openapi import DESCRIPTION

from amelia.testing.github import RecordedAnswer, RecordedRequest
from tests.pinned_files import pinned_path, required_path

__all__ = [
    "CI_PATHS",
    "ENV",
    "Description",
    "Operation",
    "description_path",
    "load_description",
    "required_description",
]

ENV = "AMELIA_GITHUB_OPENAPI"
CI_PATHS = re.compile(r"/actions/|/check-suites|/check-runs")
"""The REST paths of GitHub Actions and checks (the CI amelia runs and waits for)."""
_URI = "urn:github-openapi"
_METHODS = ("get", "put", "post", "patch", "delete", "head")
_NOT_REST = re.compile(r"/graphql|/_job-logs/.*")
"""Paths of the local GitHub that are no REST operation: GraphQL, and where a job-log
redirect leads (GitHub's is a storage URL on another host)."""
_ENTERPRISE_PREFIX = "/api/v3"
_SLASHED = frozenset({"path", "ref", "branch", "basehead"})
"""Path parameters whose values hold slashes (a file's path, `heads/<branch>`)."""


def description_path() -> Path | None:
    """The description's file: the one `AMELIA_GITHUB_OPENAPI` names (even when it is
    missing), else the cached copy if there is one."""
    return pinned_path(ENV, DESCRIPTION)


def required_description() -> Description:
    """The description, or the test fails (`AMELIA_GITHUB_OPENAPI` set, file missing) or
    skips (not set, not fetched) saying how to get it."""
    path = required_path(
        ENV, DESCRIPTION, what="GitHub's API description", script="scripts.github_openapi"
    )
    return load_description(str(path))


@functools.cache
def load_description(path: str) -> Description:
    return Description(json.loads(Path(path).read_text(encoding="utf-8")))


def _nullable_as_jsonschema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` spelled as JSON Schema (draft 4) can check it."""
    if isinstance(node, list):
        return [_nullable_as_jsonschema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _nullable_as_jsonschema(value) for key, value in node.items()}
    if converted.pop("nullable", False) is not True:
        return converted
    if "type" in converted and "$ref" not in converted:
        converted["type"] = [converted["type"], "null"]
        if "enum" in converted:
            converted["enum"] = [*converted["enum"], None]
        return converted
    return {"anyOf": [{"type": "null"}, converted]}


def _pointer(*parts: str) -> str:
    escaped = (part.replace("~", "~0").replace("/", "~1") for part in parts)
    return "#/" + "/".join(quote(part, safe="~") for part in escaped)


@dataclass(frozen=True)
class Parameter:
    name: str
    where: str
    schema_pointer: str
    schema: dict[str, Any]
    required: bool


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    operation_id: str
    strict: re.Pattern[str]
    loose: re.Pattern[str]
    literal: int
    """Characters of the template outside its parameters (more: a more specific match)."""
    parameters: dict[tuple[str, str], Parameter]
    body_pointer: str | None
    body_required: bool
    responses: dict[str, str | None]
    """Status (or `default`) → the pointer of its JSON schema, if it has one."""

    def key(self) -> str:
        return f"{self.method.upper()} {self.template}"


@dataclass
class Checked:
    """What a check saw: the operations matched, and every problem found."""

    operations: set[str] = field(default_factory=set)
    requests: int = 0
    problems: list[str] = field(default_factory=list)

    def merge(self, other: Checked) -> None:
        self.operations |= other.operations
        self.requests += other.requests
        self.problems += other.problems


class Description:
    """GitHub's REST API description, as a lookup of operations and validators."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = _nullable_as_jsonschema(document)
        self.registry: Registry[Any] = Registry().with_resource(
            _URI, DRAFT4.create_resource(self.document)
        )
        self.operations = list(self._operations())

    def _resolve(self, node: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node, None
        target: Any = self.document
        for part in ref.removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        return target, ref

    def _operations(self) -> Iterator[Operation]:
        for template, item in self.document["paths"].items():
            shared = item.get("parameters", [])
            for method in _METHODS:
                operation = item.get(method)
                if operation is None:
                    continue
                yield self._operation(template, method, operation, shared)

    def _operation(
        self, template: str, method: str, operation: dict[str, Any], shared: list[Any]
    ) -> Operation:
        parameters: dict[tuple[str, str], Parameter] = {}
        for index, raw in enumerate([*shared, *operation.get("parameters", [])]):
            parameter, ref = self._resolve(raw)
            if ref is not None:
                pointer = f"{ref}/schema"
            elif index < len(shared):
                pointer = _pointer("paths", template, "parameters", str(index), "schema")
            else:
                at = index - len(shared)
                pointer = _pointer("paths", template, method, "parameters", str(at), "schema")
            parameters[(parameter["in"], parameter["name"])] = Parameter(
                name=parameter["name"],
                where=parameter["in"],
                schema_pointer=pointer,
                schema=parameter.get("schema", {}),
                required=bool(parameter.get("required")),
            )
        body_pointer: str | None = None
        body_required = False
        if "requestBody" in operation:
            body, ref = self._resolve(operation["requestBody"])
            base = ref or _pointer("paths", template, method, "requestBody")
            if "application/json" in body.get("content", {}):
                body_pointer = base + "/content/" + quote("application~1json") + "/schema"
            body_required = bool(body.get("required"))
        responses: dict[str, str | None] = {}
        for status, raw in operation.get("responses", {}).items():
            response, ref = self._resolve(raw)
            base = ref or _pointer("paths", template, method, "responses", status)
            content = response.get("content", {})
            responses[status] = (
                base + "/content/" + quote("application~1json") + "/schema"
                if "schema" in content.get("application/json", {})
                else None
            )
        names = re.findall(r"\{([^}]+)\}", template)
        pattern = re.escape(template)
        strict, loose = pattern, pattern
        for name in names:
            escaped = re.escape("{" + name + "}")
            group = re.sub(r"\W", "_", name)
            strict = strict.replace(escaped, f"(?P<{group}>[^/]+)")
            wide = ".+" if name in _SLASHED else "[^/]+"
            loose = loose.replace(escaped, f"(?P<{group}>{wide})")
        return Operation(
            method=method,
            template=template,
            operation_id=str(operation.get("operationId", "")),
            strict=re.compile(strict),
            loose=re.compile(loose),
            literal=len(re.sub(r"\{[^}]+\}", "", template)),
            parameters=parameters,
            body_pointer=body_pointer,
            body_required=body_required,
            responses=responses,
        )

    def find(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The most specific operation for `method path`, with its path parameters."""
        method = method.lower()
        for kind in ("strict", "loose"):
            found = [
                (operation, match)
                for operation in self.operations
                if operation.method == method
                and (match := getattr(operation, kind).fullmatch(path)) is not None
            ]
            if found:
                operation, match = max(found, key=lambda pair: pair[0].literal)
                values = {
                    name: unquote(match.group(re.sub(r"\W", "_", name)))
                    for name in re.findall(r"\{([^}]+)\}", operation.template)
                }
                return operation, values
        return None

    def errors(self, pointer: str, instance: Any) -> list[str]:
        validator = Draft4Validator({"$ref": f"{_URI}{pointer}"}, registry=self.registry)
        return [
            f"{'/'.join(str(p) for p in error.absolute_path) or '(value)'}: {error.message}"
            for error in sorted(validator.iter_errors(instance), key=lambda e: e.path)
        ][:5]

    # requests -------------------------------------------------------------------------------

    def check_request(self, request: RecordedRequest) -> tuple[str | None, list[str]]:
        """The operation `request` is (None for what is no REST operation or unknown), and
        what about it is not valid against the description."""
        path = request.path.removeprefix(_ENTERPRISE_PREFIX)
        if _NOT_REST.fullmatch(path):
            return None, []
        where = f"{request.method} {request.path}"
        found = self.find(request.method, path)
        if found is None:
            return None, [f"{where}: no operation of GitHub's REST API has this method and path"]
        operation, values = found
        problems = [
            f"{where} ({operation.key()}): {problem}"
            for problem in self._parameters(operation, values, request.query)
            + self._body(operation, request.body)
        ]
        return operation.key(), problems

    def _parameters(
        self, operation: Operation, values: dict[str, str], query: dict[str, list[str]]
    ) -> list[str]:
        problems: list[str] = []
        for name, value in values.items():
            parameter = operation.parameters.get(("path", name))
            if parameter is None:
                problems.append(f"path parameter {name} is not described")
                continue
            problems += [
                f"path parameter {name}={value!r}: {error}"
                for error in self.errors(parameter.schema_pointer, _typed(value, parameter.schema))
            ]
        for name, given in query.items():
            parameter = operation.parameters.get(("query", name))
            if parameter is None:
                problems.append(f"query parameter {name} is not described")
                continue
            for value in given:
                typed = _typed(value, parameter.schema)
                problems += [
                    f"query parameter {name}={value!r}: {error}"
                    for error in self.errors(parameter.schema_pointer, typed)
                ]
        for (where, name), parameter in operation.parameters.items():
            if where == "query" and parameter.required and name not in query:
                problems.append(f"required query parameter {name} is missing")
        return problems

    def _body(self, operation: Operation, body: Any) -> list[str]:
        if body is None or body == "":
            return ["the required body is missing"] if operation.body_required else []
        if operation.body_pointer is None:
            return [f"a body where none is described: {json.dumps(body)[:200]}"]
        return [f"body {error}" for error in self.errors(operation.body_pointer, body)]

    # answers --------------------------------------------------------------------------------

    def check_answer(self, answer: RecordedAnswer, *, bodies: bool) -> list[str]:
        """What about the local GitHub's answer is not as described: a status below 400
        the operation does not describe, or (`bodies`) a 2xx JSON body its schema refuses.
        Refusals (4xx, 5xx) are left alone: GitHub answers more of them than it describes."""
        request = answer.request
        path = request.path.removeprefix(_ENTERPRISE_PREFIX)
        if answer.status >= 400 or _NOT_REST.fullmatch(path):
            return []
        found = self.find(request.method, path)
        if found is None:
            return []  # the request's own problem
        operation, _ = found
        where = f"{request.method} {request.path} ({operation.key()}) answered {answer.status}"
        status = str(answer.status)
        if status == "304" and request.headers.get("if-none-match"):
            return []
        if status not in operation.responses:
            described = ", ".join(operation.responses)
            return [f"{where}: the description has no such status (only {described})"]
        pointer = operation.responses[status]
        if not bodies or pointer is None or not 200 <= answer.status < 300:
            return []
        return [f"{where}: {error}" for error in self.errors(pointer, answer.body)]

    def check(
        self,
        requests: Iterable[RecordedRequest],
        answers: Iterable[RecordedAnswer] = (),
        *,
        bodies: re.Pattern[str] | None = None,
    ) -> Checked:
        """Every request and answer checked; `bodies`: the paths whose answers' bodies
        are checked against the response schema too."""
        checked = Checked()
        for request in requests:
            key, problems = self.check_request(request)
            if key is not None:
                checked.operations.add(key)
                checked.requests += 1
            checked.problems += problems
        for answer in answers:
            check_body = bodies is not None and bodies.search(answer.request.path) is not None
            checked.problems += self.check_answer(answer, bodies=check_body)
        return checked


def _typed(value: str, schema: dict[str, Any]) -> Any:
    """A path or query string as the value its schema's type describes."""
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "integer" in kinds and re.fullmatch(r"-?\d+", value):
        return int(value)
    if "number" in kinds and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return float(value)
    if "boolean" in kinds and value in ("true", "false"):
        return value == "true"
    if "array" in kinds:
        return value.split(",")
    return value
