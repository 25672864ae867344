"""What `amelia action` imports before its first GitHub request: PyGithub without the
modules only its App authentication and secret encryption use, and no model SDK."""

import json
import subprocess
import sys

_BEFORE_FIRST_REQUEST = """
import json, sys, types
import amelia.action.engine._engine
from amelia.action.modes import load_mode
load_mode("plan")
import amelia.github.client
executed = sorted(
    name for name, module in sys.modules.items() if type(module) is types.ModuleType
)
print(json.dumps(executed))
"""


def test_action_before_its_first_request_leaves_unused_modules_unrun() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", _BEFORE_FIRST_REQUEST], capture_output=True, text=True, check=True
    )
    executed = set(json.loads(completed.stdout))
    assert {"github", "github.Auth", "pydantic_settings", "amelia.github.client"} <= executed
    roots = {name.split(".")[0] for name in executed}
    assert not roots & {"jwt", "cryptography", "pydantic_ai", "claude_agent_sdk", "yaml"}
    assert "nacl.public" not in executed
    assert "nacl.bindings" not in executed


def test_a_deferred_module_still_works_when_used() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from github import Auth
    from nacl import public

    import amelia.github.client  # noqa: F401  (defers PyGithub's unused imports)

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    token = Auth.AppAuth(123, pem).create_jwt()
    assert token.count(".") == 2
    box = public.SealedBox(public.PrivateKey.generate().public_key)
    assert len(box.encrypt(b"x")) == 49
