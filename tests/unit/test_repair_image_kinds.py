"""A repair changes the pixels of its box and nothing else, whatever kind of image the case
has: a transparent image stays transparent and a 16-bit one keeps its 16 bits everywhere
the repair did not reach (written as 8-bit RGB, one box made the whole image opaque over
white, or cut it to 8 bits)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sabre_desk.cli import main

PHOTOS = Path(__file__).parents[1] / "fixtures" / "photos"
BOX = (0.4, 0.4, 0.6, 0.6)


def photo() -> np.ndarray:
    """A real photo (grey brick) with a red square pasted in the box."""
    grey = np.asarray(Image.open(PHOTOS / "brick.png").convert("L"))[:120, :160]
    rgb = np.dstack([grey] * 3).copy()
    h, w = grey.shape
    rgb[int(0.45 * h) : int(0.55 * h), int(0.45 * w) : int(0.55 * w)] = (220, 20, 20)
    return rgb


def transparent() -> Image.Image:
    """RGBA: the left third fully transparent, the rest half transparent."""
    rgb = photo()
    alpha = np.full(rgb.shape[:2], 128, np.uint8)
    alpha[:, : rgb.shape[1] // 3] = 0
    return Image.fromarray(np.dstack([rgb, alpha]), "RGBA")


def sixteen_bit() -> Image.Image:
    """16-bit grey, with values no 8-bit image can hold (the low byte is not the high), and
    the square pasted white."""
    rgb = photo()
    grey = rgb.mean(axis=2)
    values = (grey * 257 + 91).clip(0, 65535).astype(np.uint16)
    values[(rgb == (220, 20, 20)).all(axis=2)] = 65535
    return Image.fromarray(values)


def png(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def native(path: Path) -> tuple[str, np.ndarray]:
    with Image.open(path) as img:
        return img.mode, np.array(img)


@pytest.mark.parametrize("make", [transparent, sixteen_bit], ids=["rgba", "16-bit"])
def test_a_repair_keeps_the_image_s_kind_and_every_pixel_outside_the_box(
    make: Callable[[], Image.Image],
    make_project: Callable[..., Path],
    add_case: Callable[..., Path],
) -> None:
    root = make_project()
    original = make()
    folder = add_case(
        root, "kinds", images={"base.png": png(original), "edited.png": png(original)}
    )
    before_mode, before = native(folder / "edited.png")
    code = main(
        ["repair", str(root), "kinds", "--role", "edited", "--reviewer", "alice",
         "--box", ",".join(map(str, BOX)), "--accept"]
    )  # fmt: skip
    assert code == 0
    after_mode, after = native(folder / "edited.png")
    assert after_mode == before_mode
    h, w = before.shape[:2]
    outside = np.ones((h, w), bool)
    # the patch the repair may touch: the box, its margin of half the box, the blend's reach
    outside[int(0.25 * h) : int(0.75 * h) + 1, int(0.25 * w) : int(0.75 * w) + 1] = False
    assert np.array_equal(after[outside], before[outside])
    middle = (slice(int(0.47 * h), int(0.53 * h)), slice(int(0.47 * w), int(0.53 * w)))
    if after.ndim == 3:  # the red square is gone, and what replaced it is opaque
        assert (after[middle][..., 0].astype(int) - after[middle][..., 1] < 60).all()
        assert (after[middle][..., 3] == 255).all()
    else:  # the white square is gone: brick, far darker, in its place
        assert (before[middle] == 65535).all()
        assert after[middle].max() < 200 * 257
