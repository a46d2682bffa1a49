"""One stand-in model service, started for a person (`sabre-desk fake-server KIND`): which
server each kind is, and the variable that points the official client at it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sabre_desk.demo.fake_servers import KINDS
from sabre_desk.demo.fake_servers.anthropic_server import FakeAnthropic, message
from sabre_desk.demo.fake_servers.gemini_server import FakeGemini, text_reply
from sabre_desk.demo.fake_servers.openai_server import FakeOpenAI, completion
from sabre_desk.demo.fake_servers.pipeline import PipelineModels


@dataclass
class Running:
    kind: str
    #: what the client's base URL is set to
    url: str
    #: the variables that point the official clients at it
    variables: tuple[str, ...]
    close: Callable[[], object]


def _pipeline(port: int, answer: str) -> Running:
    gemini = FakeGemini(answer=PipelineModels(filter_answer=answer), port=port, keep_bodies=False)
    return Running("pipeline", gemini.url, ("GOOGLE_GEMINI_BASE_URL",), gemini.close)


def _gemini(port: int, answer: str) -> Running:
    gemini = FakeGemini(default=text_reply(answer), port=port, keep_bodies=False)
    return Running("gemini", gemini.url, ("GOOGLE_GEMINI_BASE_URL",), gemini.close)


def _openai(port: int, answer: str) -> Running:
    openai = FakeOpenAI(rule=lambda body: completion(answer), port=port)
    variables = ("OPENAI_BASE_URL", "SABRE_DESK_LOCAL_BASE_URL")
    return Running("openai", openai.url, variables, openai.close)


def _anthropic(port: int, answer: str) -> Running:
    anthropic = FakeAnthropic(rule=lambda body: message(answer), port=port)
    return Running("anthropic", anthropic.url, ("ANTHROPIC_BASE_URL",), anthropic.close)


#: how each kind of KINDS is started, in KINDS' order
STARTERS: tuple[Callable[[int, str], Running], ...] = (_pipeline, _gemini, _openai, _anthropic)


def start(kind: str, port: int = 0, answer: str = "Yes") -> Running:
    """Start the stand-in of *kind* on 127.0.0.1:*port* (0: any free port), answering every
    question with *answer*; it serves on its own threads until ``close``."""
    starters = dict(zip(KINDS, STARTERS, strict=True))
    if kind not in starters:
        raise ValueError(f"no stand-in {kind!r}; one of {', '.join(KINDS)}")
    return starters[kind](port, answer)
