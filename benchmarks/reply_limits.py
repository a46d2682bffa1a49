"""What a flood costs: each provider's official client against a stand-in that answers
every question with 300 MB (its length announced, or not), peak memory before and after,
and how much of each flood went out before the client hung up.

Usage: python benchmarks/reply_limits.py [--floods 5] [--mb 300]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakes.anthropic_server import FakeAnthropic  # noqa: E402
from fakes.http_fake import Flood  # noqa: E402
from fakes.openai_server import FakeOpenAI  # noqa: E402

from sabre_desk.engines.answers import AnswerRequest  # noqa: E402
from sabre_desk.engines.providers import answerer_for  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--floods", type=int, default=5)
    parser.add_argument("--mb", type=int, default=300)
    args = parser.parse_args()
    openai_fake, anthropic_fake = FakeOpenAI(), FakeAnthropic()
    os.environ.update(
        OPENAI_API_KEY="sk-bench-" + "o" * 30,
        OPENAI_BASE_URL=openai_fake.url,
        ANTHROPIC_API_KEY="sk-ant-bench-" + "a" * 30,
        ANTHROPIC_BASE_URL=anthropic_fake.url,
    )
    print(f"{'model':28} {'announced':>9} {'peak RSS before':>16} {'after':>8} {'sent':>8}")
    for name, fake in (("openai:gpt-5.4", openai_fake), ("anthropic:claude", anthropic_fake)):
        engine = answerer_for(name)
        request = AnswerRequest(b"\x89PNG", "image/png", "Is it there?", engine.config_for(16))
        for announce in (True, False):
            fake.rule = lambda body, a=announce: (200, Flood(args.mb * 1024 * 1024, a))
            fake.flooded.clear()
            engine.answer(request, threading.Event())  # imports and the first connection
            before = peak_mb()
            answers = [engine.answer(request, threading.Event()) for _ in range(args.floods)]
            assert all(a.failure and "refused" in a.failure for a in answers), answers[0]
            sent = max(fake.flooded, default=0) / 2**20
            print(f"{name:28} {announce!s:>9} {before:13.0f} MB {peak_mb():5.0f} MB {sent:5.0f} MB")
    print(answers[0].failure)
    openai_fake.close()
    anthropic_fake.close()


if __name__ == "__main__":
    main()
