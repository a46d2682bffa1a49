"""New Case's Make Edited: the Edited image of a paired case made from the reviewer's own
Base photo by one whole-image edit of an image model.

The photo is sent as it is shown (EXIF orientation applied), scaled down when it is larger
than any image the model returns, with the supported aspect ratio nearest its own and the
output size nearest its resolution, so the reply needs little scaling. The reply is fitted
to the Base's size exactly as `generate images` fits an Edited image (another shape is
refused, never stretched) and written, as PNG, to a file the draft points at; the call is
entered in the cost ledger (stage ``images``) whatever came of it.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from PIL import Image

from sabre_desk.core.case.review import utc_now
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.making.authoring import MadeImage
from sabre_desk.core.making.image_maker import STAGE, CaseFailedError, ImageMaker, fit_to
from sabre_desk.engines.gemini_image import nearest_aspect_ratio
from sabre_desk.engines.gemini_make import MakeFailedError, png_bytes
from sabre_desk.ground.storage import atomic_write_bytes
from sabre_desk.imaging.io import load_image

#: Output sizes the image models make, by the long side of the image they return.
SIZES = (("1K", 1024), ("2K", 2048), ("4K", 4096))
#: The largest photo sent as it is: a request carries at most 20 MB inline, and a photo as PNG
#: takes about 2 bytes a pixel, a third more in base64. A larger one is sent scaled down (the
#: model needs the scene, not every pixel; the reply is fitted to the Base's own size).
MAX_SENT_PIXELS = 4_000_000


def nearest_size(width: int, height: int) -> str:
    """The smallest output size that covers the photo's long side (to within a fifth), so the
    Edited image is not a blurred enlargement beside a sharp Base; else the largest."""
    long_side = max(width, height)
    return next((name for name, side in SIZES if side * 1.25 >= long_side), SIZES[-1][0])


def _sent(pixels: np.ndarray) -> np.ndarray:
    h, w = pixels.shape[:2]
    if w * h <= MAX_SENT_PIXELS:
        return pixels
    scale = (MAX_SENT_PIXELS / (w * h)) ** 0.5
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return np.asarray(Image.fromarray(pixels).resize(size, Image.Resampling.LANCZOS))


def make_edited(
    base: Path,
    prompt: str,
    maker: ImageMaker,
    cancel: threading.Event,
    ledger: Ledger,
    out: Path,
    case_id: str | None = None,
) -> MadeImage:
    """Edit the photo at *base* by *prompt*; the result, at the Base's size, in *out*.

    MakeFailedError says why nothing came (a safety stop, no image, a timeout, another
    shape); MakeCancelledError when *cancel* was set; ImageError when the photo does not
    decode."""
    pixels = load_image(base)
    h, w = pixels.shape[:2]
    ratio, size = nearest_aspect_ratio(w, h), nearest_size(w, h)
    try:
        made = maker.make(prompt, cancel, source=_sent(pixels), aspect_ratio=ratio, image_size=size)
    except MakeFailedError as exc:
        ledger.add(STAGE, "gemini", maker.model, exc.usage, case_id=case_id)
        raise
    ledger.add(STAGE, "gemini", maker.model, made.usage, case_id=case_id)
    try:
        fitted, note = fit_to(made.pixels, pixels)
    except CaseFailedError as exc:
        raise MakeFailedError(exc.reason) from None
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"edited-{len(list(out.glob('edited-*.png'))) + 1}.png"
    atomic_write_bytes(path, png_bytes(fitted))
    notes = [*made.notes, *([note] if note else [])]
    return MadeImage(path, maker.model, prompt, utc_now(), ratio, size, (w, h), notes)
