"""The Gemini engine through the real google-genai client, against a local fake server."""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from factories import rgb_array
from fakes.gemini_server import (
    FakeGemini,
    corrupt_reply,
    error_reply,
    finish_reply,
    image_reply,
    serving,
    text_reply,
)
from PIL import Image

from sabre_desk.engines.gemini import GeminiEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.ground.errors import RepairError

KEY = "test-key-" + "x" * 24
BOX = (0.4, 0.4, 0.6, 0.6)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with serving(monkeypatch, KEY) as server:
        yield server


def engine(**kw: Any) -> GeminiEngine:
    return GeminiEngine(model="gemini-3.1-flash-image", initial_delay_s=0.05, **kw)


def test_a_reply_of_another_size_is_fitted_into_the_patch(fake: FakeGemini) -> None:
    image = rgb_array(400, 300)
    outcome = run_repair(image, RepairOrder(BOX, "swap", "replace it"), engine())
    assert outcome.model == "gemini-3.1-flash-image"
    assert any("fitted" in n for n in outcome.notes)
    centre = outcome.image[150, 200]
    assert tuple(centre) == (30, 160, 60)  # the fake's colour, inside the box
    request = fake.requests[0]
    assert request["path"].endswith("/models/gemini-3.1-flash-image:generateContent")
    parts = request["body"]["contents"][0]["parts"]
    sent = next(p for p in parts if "inlineData" in p)["inlineData"]
    data = sent["data"]  # the client sends URL-safe base64 without padding
    sent_image = Image.open(
        io.BytesIO(base64.b64decode(data + "=" * (-len(data) % 4), altchars=b"-_"))
    )
    r = outcome.plan.rect
    assert sent_image.size[0] / sent_image.size[1] == pytest.approx(r.width / r.height, rel=0.02)
    assert sent_image.size != image.shape[1::-1]  # the patch, not the full image
    assert any("replace it" in p.get("text", "") for p in parts)


def test_429_then_success_is_retried(fake: FakeGemini) -> None:
    fake.script = [error_reply(429, "quota"), image_reply()]
    run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine())
    assert len(fake.requests) == 2


def test_a_server_error_after_retries_is_reported(fake: FakeGemini) -> None:
    fake.script = [error_reply(500, "boom")] * 3
    with pytest.raises(RepairError, match="500") as info:
        run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine(attempts=3))
    assert len(fake.requests) == 3
    assert KEY not in info.value.message


def test_a_timeout_is_reported_with_the_limit(fake: FakeGemini) -> None:
    fake.script = [image_reply()]
    fake.script[0].delay_s = 3.0
    with pytest.raises(
        RepairError, match=r"within 1 s, the limit per attempt \(1 attempt, at most 300 s in all\)"
    ):
        run_repair(
            rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine(timeout_s=1.0, attempts=1)
        )


def test_a_text_only_reply_is_an_error_quoting_the_text(fake: FakeGemini) -> None:
    fake.script = [text_reply("I can't help with that.")]
    with pytest.raises(RepairError, match=r"no image came back.*can.t help"):
        run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine())


def test_a_safety_stop_is_named(fake: FakeGemini) -> None:
    fake.script = [finish_reply("IMAGE_SAFETY")]
    with pytest.raises(RepairError, match=r"safety filter.*IMAGE_SAFETY"):
        run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine())


def test_corrupt_image_bytes_are_an_error(fake: FakeGemini) -> None:
    fake.script = [corrupt_reply()]
    with pytest.raises(RepairError, match="do not decode"):
        run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine())


def test_a_wrong_declared_mime_type_still_decodes(fake: FakeGemini) -> None:
    fake.script = [image_reply(mime="image/jpeg")]  # the bytes are PNG
    outcome = run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine())
    assert outcome.reply.shape[:2] == (outcome.plan.rect.height, outcome.plan.rect.width)


def test_without_a_key_the_engine_says_how_to_enable_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    assert "GEMINI_API_KEY" in (engine().unavailable_reason() or "")
    with pytest.raises(RepairError, match="GEMINI_API_KEY"):
        run_repair(rgb_array(100, 100), RepairOrder(BOX, "remove", "x"), engine())


def test_the_key_never_appears_in_messages_or_logs(
    fake: FakeGemini, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    fake.script = [error_reply(400, f"bad key {KEY}")]  # even a server echoing it back
    with pytest.raises(RepairError) as info:
        run_repair(rgb_array(100, 100), RepairOrder(BOX, "remove", "x"), engine(attempts=1))
    assert KEY not in info.value.message
    assert KEY not in caplog.text
    assert fake.requests[0]["headers"].get("x-goog-api-key") == KEY  # sent only as a header
    assert KEY not in str(fake.requests[0]["body"])


def test_the_marker_left_in_a_reply_is_flagged(fake: FakeGemini) -> None:
    """A model that returns the marked patch unchanged leaves the red outline in."""
    import json

    image = np.full((300, 300, 3), 128, np.uint8)
    outcome_ok = run_repair(image, RepairOrder(BOX, "remove", "x"), engine())
    assert not outcome_ok.warnings
    sent = fake.requests[-1]["body"]["contents"][0]["parts"]
    marked = next(p for p in sent if "inlineData" in p)["inlineData"]["data"]
    fake.script = [image_reply()]
    fake.script[0].body["candidates"][0]["content"]["parts"][1]["inlineData"]["data"] = marked
    outcome = run_repair(image, RepairOrder(BOX, "remove", "x"), engine())
    assert any("red marker" in w for w in outcome.warnings), json.dumps(outcome.warnings)


def test_a_reply_quoting_the_key_does_not_show_it_in_the_notes(fake: FakeGemini) -> None:
    """The model's words become notes the CLI prints; a model can repeat anything."""
    reply = image_reply()
    assert reply.body is not None
    reply.body["candidates"][0]["content"]["parts"][0]["text"] = f"Done with {KEY}."
    fake.script = [reply]
    outcome = run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine())
    assert "Done with ***." in outcome.notes
    assert not any(KEY in note for note in outcome.notes)


@pytest.mark.parametrize(
    "said",
    [f"my key is {KEY}", "y" * 180 + " " + KEY],  # the second is cut to 200 mid-key
    ids=["whole", "cut"],
)
def test_a_text_only_reply_quoting_the_key_does_not_show_it_in_the_error(
    fake: FakeGemini, said: str
) -> None:
    fake.script = [text_reply(said)]
    with pytest.raises(RepairError, match="no image came back") as info:
        run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), engine())
    assert KEY[:8] not in info.value.message  # not the key, nor what is left of it after a cut
