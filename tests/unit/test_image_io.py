"""Images are read as a photo viewer shows them, and bad files are refused clearly."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from factories import png_bytes, rgb_array
from PIL import Image

from sabre_desk.ground.errors import ImageError
from sabre_desk.imaging.io import encode_png, load_bgra, load_image, probe_image


def _jpeg_with_orientation(upright: np.ndarray, orientation: int) -> bytes:
    """Store pixels the way a phone does: rotated, with the tag that undoes the rotation."""
    stored = {
        6: np.rot90(upright, 1),
        8: np.rot90(upright, -1),
        3: np.rot90(upright, 2),
        1: upright,
    }[orientation]
    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(stored)).save(buf, "JPEG", quality=95, exif=exif.tobytes())
    return buf.getvalue()


def _marked_upright(width: int = 120, height: int = 80) -> np.ndarray:
    img = np.full((height, width, 3), 255, np.uint8)
    img[:20, :30] = (255, 0, 0)  # red block in the top-left corner, as the viewer shows it
    return img


@pytest.mark.parametrize("orientation", [1, 3, 6, 8])
def test_exif_orientation_is_applied_for_size_and_pixels(tmp_path: Path, orientation: int) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(_jpeg_with_orientation(_marked_upright(), orientation))
    info = probe_image(path)
    pixels = load_image(path)
    assert (info.width, info.height) == (120, 80)
    assert pixels.shape == (80, 120, 3)
    assert info.orientation == orientation
    # a normalized box over the top-left 25% x 25% lands on the red block
    corner = pixels[: 80 // 4, : 120 // 4].astype(int)
    assert corner[5, 5, 0] > 200 and corner[5, 5, 1] < 60
    assert pixels[70, 110].min() > 200  # opposite corner is white
    assert np.array_equal(load_bgra(path)[..., 2::-1], pixels)  # the window turns it alike


def _png_with_header_size(width: int, height: int) -> bytes:
    data = bytearray(png_bytes(8, 8))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    return bytes(data)


@pytest.mark.parametrize(
    ("width", "height", "size"), [(40_000, 40_000, "1600 MP"), (12_000, 10_000, "120 MP")]
)
def test_a_decompression_bomb_is_refused_before_decoding(
    tmp_path: Path, width: int, height: int, size: str
) -> None:
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_with_header_size(width, height))
    for read in (probe_image, load_image):
        with pytest.raises(ImageError) as info:
            read(path)
        assert "too large" in info.value.reason and size in info.value.reason
        assert info.value.path == path


def test_a_truncated_png_is_reported_as_truncated(tmp_path: Path) -> None:
    path = tmp_path / "cut.png"
    buf = io.BytesIO()
    Image.fromarray(rgb_array(300, 200)).save(buf, "PNG")
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    probe_image(path)  # the header is intact: indexing stays cheap and does not notice
    with pytest.raises(ImageError, match="truncated"):
        load_image(path)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"this is not an image", "not a readable image"),
        (b"", "not a readable image"),
    ],
)
def test_an_undecodable_file_is_refused(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "edited.png"
    path.write_bytes(content)
    with pytest.raises(ImageError, match=reason):
        load_image(path)


def test_a_missing_image_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ImageError) as info:
        load_image(tmp_path / "base.png")
    assert info.value.reason == "image is missing"


def test_rgba_is_shown_over_white_and_16_bit_is_scaled(tmp_path: Path) -> None:
    rgba = np.zeros((4, 4, 4), np.uint8)
    rgba[..., 0] = 255
    rgba[:2, :, 3] = 255  # top half opaque red, bottom half transparent
    Image.fromarray(rgba, "RGBA").save(tmp_path / "a.png")
    out = load_image(tmp_path / "a.png")
    assert tuple(out[0, 0]) == (255, 0, 0) and tuple(out[3, 0]) == (255, 255, 255)

    gray16 = np.full((4, 4), 65535, np.uint16)
    gray16[0, 0] = 0
    Image.fromarray(gray16).save(tmp_path / "g.png")
    out = load_image(tmp_path / "g.png")
    assert out.dtype == np.uint8 and tuple(out[1, 1]) == (255, 255, 255)
    assert tuple(out[0, 0]) == (0, 0, 0)


def test_a_png_with_exif_orientation_is_probed_and_decoded_alike(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    stored = np.ascontiguousarray(np.rot90(_marked_upright(), 1))
    Image.fromarray(stored).save(tmp_path / "p.png", exif=exif.tobytes())
    info = probe_image(tmp_path / "p.png")
    pixels = load_image(tmp_path / "p.png")
    assert info.size == (120, 80) and pixels.shape == (80, 120, 3)
    assert pixels[5, 5, 0] > 200 and pixels[5, 5, 1] < 60


def test_a_png_the_app_writes_reads_back_as_the_same_pixels_in_the_same_colours(
    tmp_path: Path,
) -> None:
    """Repair previews and release copies: lossless, red stays red (OpenCV works in BGR)."""
    rng = np.random.default_rng(3)
    pixels = _marked_upright()
    pixels[40:, 60:] = rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)
    path = tmp_path / "written.png"
    path.write_bytes(encode_png(pixels))
    back = load_image(path)
    assert probe_image(path).format == "PNG"
    assert np.array_equal(back, pixels) and tuple(back[0, 0]) == (255, 0, 0)


@pytest.mark.parametrize("kind", ["plain", "with text", "16-bit", "palette"])
def test_every_png_reads_as_pillow_decodes_it(tmp_path: Path, kind: str) -> None:
    """8-bit RGB PNGs are decoded by OpenCV in one call (no interpreter lock held), the
    rest by Pillow: whichever decodes it, a file gives the pixels Pillow gives."""
    from PIL import PngImagePlugin

    pixels = (np.random.default_rng(3).random((61, 83, 3)) * 255).astype(np.uint8)
    path = tmp_path / "image.png"
    image = Image.fromarray(pixels)
    if kind == "with text":
        info = PngImagePlugin.PngInfo()
        info.add_text("Comment", "x" * 10_000)
        image.save(path, pnginfo=info)
    elif kind == "16-bit":
        wide = pixels.astype(np.uint16) * 257
        import cv2

        assert cv2.imwrite(str(path), wide[..., ::-1])
    elif kind == "palette":
        image.quantize(16).save(path)
    else:
        image.save(path)
    with Image.open(path) as pil:
        expected = np.asarray(pil.convert("RGB"))
    assert np.array_equal(load_image(path), expected)
    # The window's own decode (B, G, R, opaque alpha): the very same pixels.
    bgra = load_bgra(path)
    assert bgra.shape == (*expected.shape[:2], 4) and (bgra[..., 3] == 255).all()
    assert np.array_equal(bgra[..., 2::-1], expected)


def test_a_png_cut_short_by_its_last_bytes_is_still_named_truncated(tmp_path: Path) -> None:
    """A PNG missing only its end chunk is not decoded whole by OpenCV: Pillow's path says
    what is wrong, as for any other cut."""
    buf = io.BytesIO()
    Image.fromarray(rgb_array(64, 48)).save(buf, "PNG")
    data = buf.getvalue()
    path = tmp_path / "cut.png"
    path.write_bytes(data[:-12])
    try:
        load_image(path)
    except ImageError as exc:
        assert "truncat" in exc.reason
        with pytest.raises(ImageError, match="truncat"):
            load_bgra(path)  # the window's decode says the same
    else:  # Pillow reads every pixel without the end chunk: the same pixels, no error
        with Image.open(io.BytesIO(data)) as pil:
            assert np.array_equal(load_image(path), np.asarray(pil.convert("RGB")))
