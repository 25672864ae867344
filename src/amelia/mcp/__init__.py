"""MCP servers for the agents, with their credentials out of the agents' reach.

- `config`: the `mcp` section of `.github/amelia.yml`: servers by name (a command with
  arguments, or a URL), the values each needs (taken from named secrets or inputs, never
  written in the file), and which agent gets which of their tools.
- `values`: where those values come from (the `mcp_secrets` input, the step's secret
  variables, the Action's inputs).
- `servers`: starting each server (a command as the MCP user, `amelia.isolation.mcp_user`;
  a URL from amelia's own process), checking it answers, stopping it.
- `gateway`: one local streamable-HTTP endpoint per run, with a token per agent, through
  which the agents reach every server and only the tools they were given.
- `runtime`: all of it for one run (`mcp_runtime`).

This package imports nothing heavy on import: the MCP SDK loads only when a run starts
servers.
"""

__all__: list[str] = []
