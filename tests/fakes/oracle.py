"""A fake Filtering VLM's mind: answers by (image, question), for the fake Gemini server.

``Oracle.rule`` is the fake's ``answer`` callable: it decodes the image the request carries
(the client sends URL-safe base64 without padding), looks up what to say for that image and
the question, and otherwise says the default.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from fakes.gemini_server import Reply, asked_text, text_reply


def request_image_sha(body: dict[str, Any]) -> str | None:
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            inline = part.get("inlineData") or part.get("inline_data")
            if inline:
                data = inline["data"]
                raw = base64.b64decode(data + "=" * (-len(data) % 4), altchars=b"-_")
                return hashlib.sha256(raw).hexdigest()
    return None


def asked_question(body: dict[str, Any]) -> str:
    match = re.search(r"Question: (.*)", asked_text(body))
    return match.group(1).strip() if match else ""


@dataclass
class Oracle:
    default: str = "Yes."
    #: (image sha256, question) → reply text; (None, question) matches any image
    says: dict[tuple[str | None, str], str | Reply] = field(default_factory=dict)
    asked: list[tuple[str | None, str]] = field(default_factory=list)

    def rule(self, body: dict[str, Any]) -> Reply:
        key = (request_image_sha(body), asked_question(body))
        self.asked.append(key)
        said = self.says.get(key, self.says.get((None, key[1]), self.default))
        return said if isinstance(said, Reply) else text_reply(said)
