"""The stand-in for Anthropic's API: shipped in the package
(``sabre_desk.demo.fake_servers.anthropic_server``, what `sabre-desk fake-server anthropic`
runs)."""

from sabre_desk.demo.fake_servers.anthropic_server import (
    COUNTS,
    FakeAnthropic,
    message,
    tool_call,
)

__all__ = ["COUNTS", "FakeAnthropic", "message", "tool_call"]
