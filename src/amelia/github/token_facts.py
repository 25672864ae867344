"""What GitHub says about the token amelia works with, and what that lets it push.

GitHub refuses a push that changes a workflow file (`.github/workflows/…`) unless the token
may change workflows. What a token may do can be read only for some tokens:

- a classic personal access token or an OAuth App's token: GitHub lists its scopes in the
  `X-OAuth-Scopes` header of every answer; it may change workflows with the `workflow`
  scope;
- the job's token (`GITHUB_TOKEN`, the `github_token` input's default) acts as
  `github-actions[bot]` (GraphQL `viewer`) and never has the `workflows` permission;
- any other token (a GitHub App's installation token, a fine-grained personal access
  token) does not show its permissions: amelia pushes workflow files with it, and GitHub's
  refusal, if it comes, is foreseen (the workflow files are held back and the rest pushed).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["JOB_TOKEN_LOGIN", "WORKFLOW_SCOPE", "TokenFacts", "may_push_workflows"]

JOB_TOKEN_LOGIN = "github-actions[bot]"  # noqa: S105 - a login, not a secret
"""Who the job's token acts as."""
WORKFLOW_SCOPE = "workflow"
"""The OAuth scope that lets a classic personal access token change workflow files."""


class TokenFacts(BaseModel):
    """Who the token acts as, and its OAuth scopes when GitHub lists them."""

    model_config = ConfigDict(frozen=True)

    login: str | None = None
    scopes: tuple[str, ...] | None = None
    """None: GitHub sent no `X-OAuth-Scopes` (not a classic or OAuth token)."""


def may_push_workflows(facts: TokenFacts) -> bool | None:
    """Whether a push with this token may change workflow files: True or False when GitHub
    tells, None when it does not (see the module docstring)."""
    if facts.scopes is not None:
        return WORKFLOW_SCOPE in facts.scopes
    if facts.login == JOB_TOKEN_LOGIN:
        return False
    return None
