"""Local servers speaking real wire protocols, for tests and `amelia demo`."""

from amelia.testing.openai_server import ScriptedOpenAIServer as ScriptedOpenAIServer
