"""What keeps credentials out of every agent's reach.

- `handoff`: amelia restarts itself without the credential-holding variables
  (`amelia.redaction.names` says which), receiving their values through an
  inherited pipe, so no `/proc/<pid>/environ` of amelia holds one.
- `inspection`: amelia forbids inspection of its own process (memory, environ, fds) by
  processes without CAP_SYS_PTRACE.
- `proxy`: a local credential proxy; the model clients hold only a per-run token for it,
  never the real key (over its socket, or in this process through its httpx transport).

This package imports nothing on import: `handoff` must run before anything heavy loads.
"""

__all__: list[str] = []
