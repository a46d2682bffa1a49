"""What the Gemini engine asks for and how it reads the reply, through the real google-genai
client against the local fake server: the aspect ratio, thoughts, every finish reason, and
one client per engine."""

from __future__ import annotations

import time
from importlib.metadata import requires, version
from typing import Any

import pytest
from factories import rgb_array
from fakes.gemini_server import FakeGemini, Reply, finish_reply, png_b64
from test_gemini_engine import KEY, fake

from sabre_desk.engines.gemini import FINISH_REASONS, GeminiEngine, nearest_aspect_ratio
from sabre_desk.engines.pipeline import RepairOrder, RepairOutcome, run_repair
from sabre_desk.ground.errors import RepairError

BOX = (0.4, 0.4, 0.6, 0.6)
__all__ = ["fake"]  # the fixture: the fake server of test_gemini_engine, its key in the env


def repair(engine: GeminiEngine, width: int = 200, height: int = 200) -> RepairOutcome:
    return run_repair(rgb_array(width, height), RepairOrder(BOX, "remove", "x"), engine)


@pytest.mark.parametrize(
    ("width", "height", "ratio"),
    [(100, 100, "1:1"), (400, 300, "4:3"), (300, 400, "3:4"), (1920, 1080, "16:9"),
     (1000, 400, "21:9"), (500, 340, "3:2"), (10, 1000, "9:16")],
)  # fmt: skip
def test_the_nearest_supported_aspect_ratio(width: int, height: int, ratio: str) -> None:
    assert nearest_aspect_ratio(width, height) == ratio


def test_the_reply_is_asked_for_in_the_patch_s_aspect_ratio(fake: FakeGemini) -> None:
    fake.script = [Reply(body=_image_parts(_image(400, 300)))]
    outcome = repair(GeminiEngine(), 800, 400)
    r = outcome.plan.rect
    config = fake.requests[0]["body"]["generationConfig"]
    assert config["imageConfig"]["aspectRatio"] == nearest_aspect_ratio(r.width, r.height)
    assert config["responseModalities"] == ["IMAGE", "TEXT"]


def _image(width: int, height: int, color: tuple[int, int, int] = (30, 160, 60)) -> dict[str, Any]:
    return {"inlineData": {"mimeType": "image/png", "data": png_b64(width, height, color)}}


def _image_parts(*parts: dict[str, Any], finish: str = "STOP") -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": finish}]
    }


def test_a_thought_is_never_taken_for_the_result(fake: FakeGemini) -> None:
    draft = {**_image(64, 64, (250, 0, 250)), "thought": True}
    thinking = {"text": "Let me sketch it first.", "thought": True}
    fake.script = [Reply(body=_image_parts(thinking, draft, _image(64, 64)))]
    outcome = repair(GeminiEngine())
    assert tuple(outcome.image[100, 100]) == (30, 160, 60)  # the answer, not the magenta draft
    assert not any("sketch" in note for note in outcome.notes)


def test_a_reply_with_only_a_thought_has_no_image(fake: FakeGemini) -> None:
    fake.script = [Reply(body=_image_parts({**_image(64, 64), "thought": True}))]
    with pytest.raises(RepairError, match="no image came back"):
        repair(GeminiEngine())


def test_every_finish_reason_of_the_sdk_is_named() -> None:
    from google.genai import types

    assert {m.name for m in types.FinishReason} <= set(FINISH_REASONS)


@pytest.mark.parametrize("reason", ["IMAGE_RECITATION", "SPII", "IMAGE_SAFETY", "LANGUAGE"])
def test_a_reply_stopped_for_a_reason_says_which(fake: FakeGemini, reason: str) -> None:
    fake.script = [finish_reply(reason)]
    with pytest.raises(RepairError) as info:
        repair(GeminiEngine())
    assert info.value.message.endswith(f"{FINISH_REASONS[reason]} ({reason})")


def test_one_client_serves_every_repair_of_an_engine_each_under_its_own_deadline(
    fake: FakeGemini,
) -> None:
    engine = GeminiEngine(timeout_s=1.0, deadline_s=1.0)
    with engine:
        repair(engine)
        client = engine._shared._client
        assert client is not None
        time.sleep(1.2)  # the first repair's deadline is long past
        repair(engine)  # still fine: its client obeys this repair's own budget
        assert engine._shared._client is client
    assert engine._shared._client is None  # closed with the engine
    repair(engine)  # a closed engine makes a new client when used again
    engine.close()
    assert len(fake.requests) == 3


def test_the_declared_google_genai_floor_has_what_the_engine_uses() -> None:
    """The engine hands the SDK an httpx2 client (HttpOptions.httpx_client accepts one from
    google-genai 2.18 on), asks for an ImageConfig aspect ratio, reads response.parts and
    Part.thought, and closes the client. Installed below the declared floor, this fails."""
    import httpx2
    from google import genai
    from google.genai import types

    floor = next(r for r in requires("sabre-desk") or [] if r.startswith("google-genai"))
    assert floor.replace(" ", "") == "google-genai>=2.18"
    with httpx2.Client() as http:
        options = types.HttpOptions(httpx_client=http, timeout=1000)
        client = genai.Client(api_key=KEY, http_options=options)
        client.close()
    assert types.ImageConfig(aspect_ratio="4:3").aspect_ratio == "4:3"
    assert "thought" in types.Part.model_fields
    assert isinstance(types.GenerateContentResponse.parts, property)
    assert tuple(int(p) for p in version("google-genai").split(".")[:2]) >= (2, 18)
