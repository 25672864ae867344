"""Local servers speaking real wire protocols, for tests and `amelia demo`."""

from amelia.testing.anthropic_server import ScriptedAnthropicServer as ScriptedAnthropicServer
from amelia.testing.openai_server import ScriptedOpenAIServer as ScriptedOpenAIServer

__all__ = ["ScriptedAnthropicServer", "ScriptedOpenAIServer"]
