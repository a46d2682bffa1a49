"""The stand-in for OpenAI's API (and any OpenAI-compatible server): shipped in the package
(``sabre_desk.demo.fake_servers.openai_server``, what `sabre-desk fake-server openai` runs)."""

from sabre_desk.demo.fake_servers.openai_server import FakeOpenAI, completion

__all__ = ["FakeOpenAI", "completion"]
