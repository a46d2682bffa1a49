"""Reading images the way a photo viewer shows them.

Every part of the app (canvas, boxes, repair, diff, export) gets pixels through this module,
so the EXIF orientation is applied exactly once and identically everywhere: a normalized box
drawn on a rotated phone JPEG lands on the same pixels in every tool. Decoding is guarded
against truncated files and decompression bombs; every failure is an ImageError naming the
file and the reason.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
from PIL import Image, ImageFile, UnidentifiedImageError

from sabre_desk.ground.errors import ImageError
from sabre_desk.ground.reading import open_regular

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp")
#: The formats a case's images may be in (Pillow's names), with the extension each is given.
FORMAT_SUFFIXES = {"PNG": ".png", "JPEG": ".jpg", "WEBP": ".webp"}
#: Largest image accepted, in pixels (≈ 10,000 × 10,000). Larger files are refused before
#: any pixel is decoded, so a hostile or mistaken file cannot exhaust a laptop's memory.
MAX_PIXELS = 100_000_000
EXIF_ORIENTATION_TAG = 0x0112
_SWAPS_AXES = {5, 6, 7, 8}
#: zlib level of the PNGs the app writes (repair previews, release copies). Measured on the
#: demo's renders and photo-like 2048² images: OpenCV at level 3 writes files 2 % smaller
#: than Pillow's default (level 6) in 0.29× the time; level 1 would be 0.15× the time but
#: 11 % larger files, and an accepted repair's PNG becomes the case's image for good.
PNG_LEVEL = 3
#: The last 12 bytes of every complete PNG: an empty IEND chunk and its checksum.
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
#: Beyond its raw pixels, what a PNG read whole may hold (zlib's framing, text, a profile).
_PNG_OVERHEAD_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class ImageInfo:
    """What an image's header says, in displayed (orientation-applied) terms."""

    path: Path
    width: int
    height: int
    format: str
    mode: str
    orientation: int

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height


@contextlib.contextmanager
def _open(path: Path, max_pixels: int = MAX_PIXELS) -> Iterator[Image.Image]:
    """Open an image file's header; only a regular file is opened (a FIFO named
    ``base.png`` or a link to a device must not block or stream forever)."""
    with _open_file(path, max_pixels) as (img, _, _):
        yield img


@contextlib.contextmanager
def _open_file(
    path: Path, max_pixels: int = MAX_PIXELS
) -> Iterator[tuple[Image.Image, IO[bytes], int]]:
    """``_open``, with the file and its size as well."""
    with (
        open_regular(path, ImageError, missing="image is missing") as (handle, size),
        _opened(handle, path, max_pixels) as img,
    ):
        yield img, handle, size


@contextlib.contextmanager
def _opened(
    handle: IO[bytes], path: Path | None, max_pixels: int = MAX_PIXELS
) -> Iterator[Image.Image]:
    """Pillow's image of *handle*, its failures as ImageError in a person's words."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(handle)
    except Image.DecompressionBombError as exc:
        # Pillow refuses far-too-large headers itself at open; say it in our words.
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(found.group(1)) / 1e6:.0f} MP" if found else "over Pillow's limit"
        raise ImageError(
            f"image is too large: {size}, the limit is {max_pixels / 1e6:.0f} MP "
            "(possible decompression bomb)",
            path,
        ) from exc
    except UnidentifiedImageError as exc:
        raise ImageError("not a readable image (unknown or corrupt format)", path) from exc
    except OSError as exc:
        if "truncated" in str(exc).lower():
            raise ImageError(
                "image file is truncated or corrupt (header incomplete)", path
            ) from exc
        raise ImageError(f"cannot read image ({exc.strerror or exc})", path) from exc
    with img:
        yield img


def _orientation(img: Image.Image) -> int:
    """The EXIF orientation as stored in the file's header, without decoding any pixel.

    Pillow's ``getexif()`` decodes a whole PNG to look for an eXIf chunk after the pixel
    data; reading only what the header carried keeps probing cheap, and using this one
    answer for both probing and decoding keeps the two consistent.
    """
    raw = img.info.get("exif")
    if not raw:
        return 1
    try:
        exif = Image.Exif()
        exif.load(raw)
        value = int(exif.get(EXIF_ORIENTATION_TAG, 1))
    except Exception:  # a broken EXIF block must not make the pixels unreadable
        return 1
    return value if 1 <= value <= 8 else 1


_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def _check_size(path: Path | None, width: int, height: int, max_pixels: int) -> None:
    if width <= 0 or height <= 0:
        raise ImageError(f"image has no pixels ({width}×{height})", path)
    if width * height > max_pixels:
        raise ImageError(
            f"image is too large: {width}×{height} = {width * height / 1e6:.0f} MP, "
            f"the limit is {max_pixels / 1e6:.0f} MP (possible decompression bomb)",
            path,
        )


def probe_image(path: Path, max_pixels: int = MAX_PIXELS) -> ImageInfo:
    """Read only the header: displayed size, format and orientation. No pixel is decoded."""
    path = Path(path)
    with _open(path, max_pixels) as img:
        return _info(img, path, max_pixels)


def _info(img: Image.Image, path: Path, max_pixels: int) -> ImageInfo:
    orientation = _orientation(img)
    width, height = img.size
    _check_size(path, width, height, max_pixels)
    if orientation in _SWAPS_AXES:
        width, height = height, width
    return ImageInfo(path, width, height, img.format or "?", img.mode, orientation)


def _to_rgb_array(img: Image.Image, path: Path | None) -> np.ndarray:
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img, dtype=np.uint32 if img.mode == "I" else np.uint16)
        top = 65535 if img.mode != "I" else max(int(arr.max()), 1)
        gray = (arr.astype(np.float64) * (255.0 / top) + 0.5).astype(np.uint8)
        return np.repeat(gray[:, :, None], 3, axis=2)
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        # Transparent pixels are shown over white, as image viewers do.
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, rgba)
    if img.mode != "RGB":
        img = img.convert("RGB")
    arr = np.asarray(img)
    if arr.ndim != 3 or arr.shape[2] != 3:
        raise ImageError(f"unexpected pixel layout {arr.shape}", path)
    return np.ascontiguousarray(arr)


def _decode(img: Image.Image, path: Path | None, max_pixels: int) -> None:
    """Decode every pixel of an opened image: a truncated or corrupt file only shows itself
    here, never in its header."""
    _check_size(path, img.size[0], img.size[1], max_pixels)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img.load()
    except Image.DecompressionBombError as exc:
        raise ImageError(f"image is too large ({exc})", path) from exc
    except (OSError, SyntaxError, ValueError) as exc:
        reason = str(exc) or type(exc).__name__
        if "truncated" in reason.lower():
            reason = "image file is truncated (incomplete download or copy?)"
        raise ImageError(f"cannot decode image: {reason}", path) from exc


def check_decodes(path: Path, max_pixels: int = MAX_PIXELS) -> ImageInfo:
    """What the header says, once every pixel of the image at *path* has decoded (what a
    model evaluated on it would need), or ImageError; nothing is converted or kept."""
    path = Path(path)
    with _open_file(path, max_pixels) as (img, handle, size):
        info = _info(img, path, max_pixels)
        if _whole_png(img, handle, size) is None:
            _decode(img, path, max_pixels)
        return info


def case_image_suffix(info: ImageInfo) -> str:
    """The extension a case's image gets: the one of the format its bytes decoded as
    (a PNG named ``photo.jpg`` or ``noext`` is written as ``.png``), or ImageError for a
    format a case does not hold."""
    suffix = FORMAT_SUFFIXES.get(info.format)
    if suffix is None:
        raise ImageError(
            f"is a {info.format} image; a case's images are PNG, JPEG or WebP", info.path
        )
    return suffix


def load_image(path: Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode an image fully to an RGB uint8 array (H, W, 3) as a photo viewer shows it."""
    return _load(Path(path), max_pixels, screen=False)


def load_bgra(path: Path, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The same pixels as ``load_image``, in the screen's byte order (H, W, 4: B, G, R and
    an opaque alpha, Qt's native 32-bit format).

    The window decodes every image it shows this way: OpenCV's decoder gives B, G, R, and
    going through R, G, B on the way cost a pass over 12 MB (and as many fresh pages) for
    every 2048² image, on the cold path the reviewer waits on."""
    return _load(Path(path), max_pixels, screen=True)


def _load(path: Path, max_pixels: int, screen: bool) -> np.ndarray:
    with _open_file(path, max_pixels) as (img, handle, size):
        _check_size(path, img.size[0], img.size[1], max_pixels)
        whole = _whole_png(img, handle, size, screen)
        if whole is not None:
            return whole
        rgb = _pixels(img, path, max_pixels)
    if not screen:
        return rgb
    import cv2  # loaded by the display pyramid anyway

    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGRA)


def _whole_png(
    img: Image.Image, handle: IO[bytes], size: int, screen: bool = False
) -> np.ndarray | None:
    """The pixels of an 8-bit RGB PNG without orientation (renders: most cases' images),
    decoded by OpenCV in one call that holds no interpreter lock; None for any other image,
    or a file OpenCV does not decode whole, which then takes Pillow's path (whose errors
    name the reason).

    Pillow's PNG decoder takes the interpreter lock back for every 64 KB it inflates and
    copies the pixels once more into the array: on two cores the window's thread waited
    for that lock while the next case decoded (``benchmarks/stall_scenarios.py``), and the
    decode itself is about a tenth slower. The pixels are the same (lossless: a test
    compares them). Call after the size check: the file is read whole, at most about its
    raw size. *screen*: in the screen's byte order (``load_bgra``)."""
    if img.format != "PNG" or img.mode != "RGB" or _orientation(img) != 1:
        return None
    tiles = img.tile if isinstance(img, ImageFile.ImageFile) else []
    if len(tiles) != 1 or tiles[0][3] != "RGB":  # 8 bits a channel, not 16
        return None
    width, height = img.size
    if size > height * (3 * width + 1) + _PNG_OVERHEAD_BYTES:
        return None  # more than raw pixels and room for metadata: Pillow reads it in blocks
    handle.seek(0)
    data = handle.read(size + 1)
    if len(data) != size or not data.endswith(_PNG_END):
        return None  # truncated (or grown meanwhile): Pillow names what is wrong
    import cv2  # loaded by the display pyramid anyway

    flags = cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if bgr is None or bgr.shape != (height, width, 3):
        return None
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA if screen else cv2.COLOR_BGR2RGB)


def image_from_bytes(data: bytes, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Decode image bytes (a model's reply, or a case's image read once to be hashed and
    repaired) under the same rules as a project's files: the same pixel limit and
    decompression-bomb refusal, the same orientation and RGB conversion, the same decoder
    for an 8-bit RGB PNG (``_whole_png``: Pillow's took a third more memory on a 100 MP
    image); every failure an ImageError with the reason."""
    handle = io.BytesIO(data)
    with _opened(handle, None, max_pixels) as img:
        _check_size(None, img.size[0], img.size[1], max_pixels)
        whole = _whole_png(img, handle, len(data))
        if whole is not None:
            return whole
        return _pixels(img, None, max_pixels)


def _pixels(img: Image.Image, path: Path | None, max_pixels: int) -> np.ndarray:
    orientation = _orientation(img)
    _decode(img, path, max_pixels)
    transpose = _TRANSPOSE.get(orientation)
    oriented = img.transpose(transpose) if transpose is not None else img
    return _to_rgb_array(oriented, path)


def find_image(folder: Path, role: str) -> Path | None:
    """The file for an image role in a case folder (role.png / .jpg / .jpeg / .webp)."""
    for ext in IMAGE_EXTENSIONS:
        candidate = folder / f"{role}{ext}"
        if candidate.exists():
            return candidate
    return None


def encode_png(rgb: np.ndarray) -> bytes:
    """The pixels (RGB, or one channel) as PNG bytes, lossless."""
    return _encode_png_bytes(np.ascontiguousarray(rgb[..., ::-1]) if rgb.ndim == 3 else rgb)


#: the kinds of image whose pixels hold more than 8-bit RGB does: transparency, 16-bit grey
_ALPHA_MODES = ("RGBA", "LA", "PA")
_SIXTEEN_BIT_MODES = ("I;16", "I;16B", "I;16L")


def encode_repaired(original: bytes, repaired: np.ndarray, max_pixels: int = MAX_PIXELS) -> bytes:
    """The repaired image as PNG bytes, in the original's own kind where 8-bit RGB would
    lose something of it: a transparent image stays transparent, a 16-bit grey one 16-bit.
    Only the pixels the repair changed (where ``repaired`` differs from the RGB view of
    ``original`` the repair was made on) take new values, opaque, as the reviewer saw
    them; every other pixel keeps the original's exact value. Written as 8-bit RGB, a
    repair of one box turned a transparent image opaque over white and cut a 16-bit one to
    8 bits, everywhere. Any other image is written as 8-bit RGB, which loses nothing of it
    (its RGB view is made here, from the one decode, only for the kinds kept: holding it
    through every repair took a third more memory on a 100 MP image)."""
    with _opened(io.BytesIO(original), None, max_pixels) as img:
        transparent = img.mode in _ALPHA_MODES or (img.mode == "P" and "transparency" in img.info)
        if not transparent and img.mode not in _SIXTEEN_BIT_MODES:
            return encode_png(repaired)
        _decode(img, None, max_pixels)
        transpose = _TRANSPOSE.get(_orientation(img))
        upright = img.transpose(transpose) if transpose is not None else img
        native = np.array(upright.convert("RGBA") if transparent else upright)
        seen = _to_rgb_array(upright, None)  # the view the repair was made on, as decoded
    if native.shape[:2] != repaired.shape[:2] or seen.shape != repaired.shape:
        return encode_png(repaired)
    changed = (repaired != seen).any(axis=2)
    if transparent:
        native[changed, :3] = repaired[changed]
        native[changed, 3] = 255
        return _encode_png_bytes(native[..., [2, 1, 0, 3]])
    # 16-bit grey: each changed pixel's grey, scaled as the reader scales it back (v·257)
    grey = repaired[changed].astype(np.float64).mean(axis=1)
    sixteen = native.astype(np.uint16)
    sixteen[changed] = np.rint(grey * 257).astype(np.uint16)
    return _encode_png_bytes(sixteen)


def _encode_png_bytes(pixels: np.ndarray) -> bytes:
    """OpenCV's PNG of pixels already in its channel order (BGR, BGRA or one channel)."""
    import cv2  # OpenCV loads in a third of a second: only when an image is encoded

    ok, encoded = cv2.imencode(".png", pixels, [cv2.IMWRITE_PNG_COMPRESSION, PNG_LEVEL])
    if not ok:
        raise ValueError(f"PNG encoding failed for pixels of shape {pixels.shape}")
    return encoded.tobytes()
