"""The change map on textured scenes: planted changes found, harmless ones ignored."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from sabre_desk.imaging.diff import change_map, overlay, score_outside


def textured(width: int = 640, height: int = 480, seed: int = 3) -> np.ndarray:
    """A busy, photo-like scene: shaded background, many shapes, fine grain."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    img = np.dstack(
        [
            110 + 60 * np.sin(xx / 37.0),
            100 + 50 * np.cos(yy / 23.0),
            130 + 40 * np.sin((xx + yy) / 51.0),
        ]
    ).astype(np.uint8)
    for _ in range(120):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        cv2.circle(
            img,
            (int(rng.integers(0, width)), int(rng.integers(0, height))),
            int(rng.integers(3, 25)),
            c,
            -1,
            cv2.LINE_AA,
        )
    noise = rng.normal(0, 2.5, img.shape[:2])[:, :, None]
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def plant(img: np.ndarray, box_px: tuple[int, int, int, int], seed: int) -> np.ndarray:
    """Replace a rectangle with other content (a new object), like a real local edit."""
    out = img.copy()
    x0, y0, x1, y1 = box_px
    other = textured(img.shape[1], img.shape[0], seed)
    out[y0:y1, x0:x1] = np.clip(other[y0:y1, x0:x1].astype(int) + 40, 0, 255)
    return out


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union


def norm(box_px: tuple[int, int, int, int], w: int = 640, h: int = 480) -> tuple[float, ...]:
    return (box_px[0] / w, box_px[1] / h, box_px[2] / w, box_px[3] / h)


@pytest.mark.parametrize("box_px", [(200, 150, 320, 260), (20, 30, 90, 110), (500, 360, 630, 470)])
def test_a_planted_change_is_found_with_its_box(box_px: tuple[int, int, int, int]) -> None:
    base = textured()
    result = change_map(base, plant(base, box_px, seed=9))
    assert len(result.regions) == 1, [r.box for r in result.regions]
    assert iou(result.regions[0].box, norm(box_px)) >= 0.8


def test_two_changes_are_two_regions_and_the_outside_one_is_flagged() -> None:
    base = textured()
    edit, moved = (200, 150, 320, 260), (480, 40, 560, 120)
    edited = plant(plant(base, edit, seed=9), moved, seed=11)
    result = score_outside(change_map(base, edited), norm(edit), "reviewer's box")
    assert len(result.regions) == 2
    outside = result.outside_regions
    assert len(outside) == 1 and iou(outside[0].box, norm(moved)) >= 0.8
    assert 0.2 < result.outside_share < 0.5
    assert result.possibly_scene_changed
    alone = score_outside(change_map(base, plant(base, edit, seed=9)), norm(edit), "box")
    assert alone.outside_share < 0.05 and not alone.possibly_scene_changed


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "JPEG", quality=quality)
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))


def test_a_jpeg_re_encode_at_quality_85_shows_no_change() -> None:
    base = textured()
    assert change_map(base, jpeg(base, 85)).regions == []


def test_a_two_percent_brightness_shift_shows_no_change() -> None:
    base = textured()
    brighter = np.clip(base.astype(np.float32) * 1.02, 0, 255).astype(np.uint8)
    assert change_map(base, brighter).regions == []


def test_images_of_different_sizes_are_compared_and_it_is_said() -> None:
    base = textured()
    box_px = (200, 150, 320, 260)
    edited = cv2.resize(plant(base, box_px, seed=9), (576, 432), interpolation=cv2.INTER_AREA)
    result = change_map(base, edited)
    assert any("common size" in n for n in result.notes)
    assert len(result.regions) == 1 and iou(result.regions[0].box, norm(box_px)) >= 0.8


def test_without_an_edit_box_the_largest_change_is_taken_as_the_edit() -> None:
    base = textured()
    edited = plant(plant(base, (200, 150, 320, 260), 9), (480, 40, 530, 90), 11)
    result = score_outside(change_map(base, edited), None, "")
    assert "largest change" in result.edit_box_source
    assert len(result.outside_regions) == 1


def test_the_overlay_marks_regions_on_the_edited_image() -> None:
    base = textured()
    edited = plant(base, (200, 150, 320, 260), 9)
    result = score_outside(change_map(base, edited), None, "")
    picture = overlay(edited, result)
    assert picture.shape == edited.shape
    assert not np.array_equal(picture[150:260, 200:320], edited[150:260, 200:320])
    assert np.array_equal(picture[400:470, 20:100], edited[400:470, 20:100])
