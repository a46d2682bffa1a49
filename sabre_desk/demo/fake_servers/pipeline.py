"""A stand-in for the three models of the pipeline behind one fake Gemini: the design model
(structured output: a Context specification), the image model (a drawn scene for a prompt;
the same scene with one object changed for an edit) and the Filtering VLM (a yes/no answer).

Its pictures are real images, made with Pillow, at the size the request's ``imageConfig``
asks for, so what comes out can be screened, reviewed and released. Run it as a server for a
walk through the pipeline by hand (see docs/guide/making-cases.md):

    sabre-desk fake-server pipeline --port 8765
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from sabre_desk.demo.fake_servers.gemini_server import USAGE, Reply, asked_text, text_reply
from sabre_desk.demo.waiting import waiting_spec

#: Pairs the design model chooses from: (scene, usual object, unexpected object).
SCENES = [
    ("workbench in a bicycle repair shop", "adjustable wrench", "banana"),
    ("dentist's instrument tray", "dental mirror", "teaspoon"),
    ("office desk by a window", "stapler", "garden trowel"),
    ("kitchen counter", "whisk", "screwdriver"),
    ("library reading table", "bookmark", "fork"),
    ("garden shed shelf", "flower pot", "computer mouse"),
    ("hospital bedside table", "pill bottle", "golf ball"),
    ("artist's easel tray", "paintbrush", "spoon"),
]
SIZES = {
    "1:1": (1024, 1024),
    "4:3": (1184, 864),
    "3:4": (864, 1184),
    "16:9": (1344, 768),
    "9:16": (768, 1344),
    "3:2": (1248, 832),
    "2:3": (832, 1248),
    "21:9": (1536, 672),
}


def context_spec(number: int, scene: tuple[str, str, str]) -> dict[str, Any]:
    place, source, target = scene
    slug = f"ctx{number:02d}_{source.split()[-1]}_{target.split()[-1]}".replace("'", "")
    return waiting_spec(slug, f"a {place}", source, target)


def _colour(text: str) -> tuple[int, int, int]:
    digest = hashlib.sha256(text.encode()).digest()
    return (digest[0] // 2 + 64, digest[1] // 2 + 64, digest[2] // 2 + 64)


def scene_png(prompt: str, size: tuple[int, int]) -> bytes:
    """A scene for *prompt*: a floor, a wall, shelves and an object in the middle."""
    w, h = size
    img = Image.new("RGB", size, _colour(prompt))
    draw = ImageDraw.Draw(img)
    draw.rectangle([0, int(h * 0.62), w, h], fill=(120, 96, 70))
    for i in range(6):
        x = int(w * (0.08 + i * 0.15))
        draw.rectangle([x, int(h * 0.2), x + w // 14, int(h * 0.6)], fill=_colour(f"{prompt}{i}"))
    draw.ellipse([int(w * 0.42), int(h * 0.45), int(w * 0.58), int(h * 0.6)], fill=(40, 40, 48))
    return _png(img)


def edited_png(source: bytes, prompt: str) -> bytes:
    """*source* with the middle object swapped for another (the rest untouched)."""
    with Image.open(io.BytesIO(source)) as opened:
        img = opened.convert("RGB")
    w, h = img.size
    draw = ImageDraw.Draw(img)
    draw.rectangle([int(w * 0.42), int(h * 0.45), int(w * 0.58), int(h * 0.6)], fill=(120, 96, 70))
    draw.ellipse([int(w * 0.44), int(h * 0.47), int(w * 0.56), int(h * 0.58)], fill=(230, 200, 40))
    return _png(img)


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def image_body(png: bytes, words: str = "Here it is.") -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": words},
                        {
                            "inlineData": {
                                "mimeType": "image/png",
                                "data": base64.b64encode(png).decode(),
                            }
                        },
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 300,
            "candidatesTokenCount": 1290,
            "totalTokenCount": 1590,
        },
    }


@dataclass
class PipelineModels:
    """Answers every generateContent request the way the model it was meant for would."""

    numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    #: the image the filter is asked about → its answer; by default it says "yes" to
    #: everything, so it gets every Context case wrong (base_target is "no")
    filter_answer: str = "yes"
    #: replies that come before the right ones: ("spec", text) replaces a spec reply once
    spec_script: list[str] = field(default_factory=list)
    image_script: list[Reply] = field(default_factory=list)
    #: the aspect ratio and size each image request asked for
    image_configs: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> Reply:
        config = body.get("generationConfig", {})
        if config.get("responseMimeType") == "application/json":
            return self._spec(body)
        if "IMAGE" in config.get("responseModalities", []):
            return self._image(body, config)
        return text_reply(self.filter_answer)

    def _spec(self, body: dict[str, Any]) -> Reply:
        with self.lock:
            if self.spec_script:
                return text_reply(self.spec_script.pop(0))
            number = next(self.numbers)
        asked = asked_text(body)
        scene = next(
            (
                s
                for s in itertools.islice(itertools.cycle(SCENES), number - 1, number + 7)
                if f"_{s[1].split()[-1]}_{s[2].split()[-1]}" not in asked
            ),
            SCENES[(number - 1) % len(SCENES)],
        )
        reply = text_reply(json.dumps(context_spec(number, scene)))
        assert reply.body is not None
        reply.body["usageMetadata"] = USAGE
        return reply

    def _image(self, body: dict[str, Any], config: dict[str, Any]) -> Reply:
        image_config = config.get("imageConfig", {})
        with self.lock:
            self.image_configs.append(image_config)
            if self.image_script:
                return self.image_script.pop(0)
        parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
        source = next((p["inlineData"]["data"] for p in parts if "inlineData" in p), None)
        prompt = asked_text(body)
        if source is not None:
            png = edited_png(base64.urlsafe_b64decode(source + "=" * (-len(source) % 4)), prompt)
        else:
            png = scene_png(prompt, SIZES.get(image_config.get("aspectRatio", "1:1"), (1024, 1024)))
        return Reply(body=image_body(png))
