"""What the OpenAI and Anthropic stand-ins share: shipped in the package
(``sabre_desk.demo.fake_servers.http_fake``)."""

from sabre_desk.demo.fake_servers.http_fake import CHUNK, FakeHttp, Flood, Handled

__all__ = ["CHUNK", "FakeHttp", "Flood", "Handled"]
