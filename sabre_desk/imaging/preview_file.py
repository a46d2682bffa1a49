"""The preview file: an image's reduced display levels, stored so a case opens at once.

Layout: the magic ``SABRE-PV1``, a 4-byte big-endian header length, a JSON header, then one
JPEG per level (quality 95, no chroma subsampling: at the size it is shown, no reviewer can
tell it from the level made from the full image). The header names the source file as
``stat`` saw it and by its SHA-256, the full image's size, and each level's size, length and
CRC-32. Decoding checks all of it: a file that is truncated, corrupt, for another source or
of another version is a miss (``None``), never an error and never a wrong picture.

The header also carries ``mac``: an HMAC-SHA256, under a secret of the user's, of the header
and every JPEG byte. Anyone can write into a shared project folder, and a header is easy to
copy, so without it a file naming case A's image (its ``stat`` and SHA-256) could carry case
B's pixels and be shown as A's. With it, only this user's own previews are shown; checking
it costs one pass over a megabyte or two.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from sabre_desk.ground.reading import loads
from sabre_desk.imaging.pyramid import Level

MAGIC = b"SABRE-PV1"
JPEG_QUALITY = 95
_LENGTH = struct.Struct(">I")
MAX_HEADER = 64 * 1024


@dataclass(frozen=True)
class Preview:
    """What a preview file holds: the full image's size and its reduced levels (BGRA)."""

    width: int
    height: int
    levels: list[Level]
    source: dict[str, int]
    sha256: str


def preview_mac(key: bytes, header: dict[str, Any], blobs: bytes | memoryview) -> str:
    """The MAC binding a header (without its ``mac``) to the JPEG bytes that follow it."""
    described = {k: v for k, v in header.items() if k != "mac"}
    canonical = json.dumps(described, sort_keys=True, separators=(",", ":")).encode()
    mac = hmac.new(key, _LENGTH.pack(len(canonical)) + canonical, hashlib.sha256)
    mac.update(blobs)
    return mac.hexdigest()


def encode_preview(
    width: int,
    height: int,
    levels: list[Level],
    source: dict[str, int],
    sha256: str,
    key: bytes | None = None,
) -> bytes:
    """The bytes of a preview file holding *levels* (reduced levels only, largest first),
    signed with *key* (see the module's docstring)."""
    import cv2  # loaded with the first image, not with the window

    params = [
        cv2.IMWRITE_JPEG_QUALITY,
        JPEG_QUALITY,
        cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
        cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444,
    ]
    blobs: list[bytes] = []
    described: list[dict[str, Any]] = []
    for scale, pixels in levels:
        ok, encoded = cv2.imencode(".jpg", cv2.cvtColor(pixels, cv2.COLOR_BGRA2BGR), params)
        if not ok:
            raise ValueError("JPEG encoding failed")
        blob = encoded.tobytes()
        blobs.append(blob)
        h, w = pixels.shape[:2]
        described.append(
            {
                "scale": scale,
                "width": w,
                "height": h,
                "length": len(blob),
                "crc32": zlib.crc32(blob),
            }
        )
    fields: dict[str, Any] = {
        "width": width,
        "height": height,
        "source": source,
        "sha256": sha256,
        "levels": described,
    }
    if key is not None:
        fields["mac"] = preview_mac(key, fields, b"".join(blobs))
    header = json.dumps(fields, separators=(",", ":")).encode()
    return b"".join([MAGIC, _LENGTH.pack(len(header)), header, *blobs])


def read_header(data: bytes) -> tuple[dict[str, Any], int] | None:
    """The header and where the JPEGs begin, or None when the bytes are not a preview."""
    start = len(MAGIC) + _LENGTH.size
    if len(data) < start or not data.startswith(MAGIC):
        return None
    (length,) = _LENGTH.unpack_from(data, len(MAGIC))
    if length > MAX_HEADER or start + length > len(data):
        return None
    try:  # strict and depth-bounded: a header nested 30,000 deep is a miss, not a crash
        header = loads(data[start : start + length])
    except ValueError:
        return None
    return (header, start + length) if isinstance(header, dict) else None


def signed_header(data: bytes, key: bytes | None) -> tuple[dict[str, Any], int] | None:
    """The header of a preview whose MAC under *key* holds (any header when *key* is
    None), and where its JPEGs begin; None otherwise."""
    found = read_header(data)
    if found is None or key is None:
        return found
    header, offset = found
    mac = header.get("mac")
    if not isinstance(mac, str):
        return None
    expected = preview_mac(key, header, memoryview(data)[offset:])
    return found if hmac.compare_digest(mac, expected) else None


def needed_level(scales: list[float], view_scale: float | None) -> int:
    """Which of the levels (scales largest first) paints a view at *view_scale* (image
    pixels to screen pixels): the smallest at least as detailed, else the most detailed;
    -1 (all of them) when the view is not known."""
    if view_scale is None:
        return -1
    enough = [i for i, scale in enumerate(scales) if scale >= view_scale]
    return enough[-1] if enough else 0


def decode_preview(
    data: bytes,
    source: dict[str, int] | None = None,
    view_scale: float | None = None,
    key: bytes | None = None,
) -> Preview | None:
    """The preview in *data*, or None if anything is wrong with it (or it names another
    *source* than the one given). With *view_scale* only the level that paints such a
    view is decoded: a 1366×768 laptop shows a 2048-pixel pair at about 0.2, where the
    512-pixel level is enough and the 1024 one (three quarters of the decoding) is waste;
    every level's checksum is still checked. With *key*, its MAC must hold too."""
    import cv2  # loaded with the first image, not with the window

    found = signed_header(data, key)
    if found is None:
        return None
    header, offset = found
    try:
        width, height = int(header["width"]), int(header["height"])
        stored_source = {str(k): int(v) for k, v in header["source"].items()}
        sha256 = str(header["sha256"])
        described = list(header["levels"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if source is not None and stored_source != source:
        return None
    try:
        wanted = needed_level([float(entry["scale"]) for entry in described], view_scale)
    except (KeyError, TypeError, ValueError):
        return None
    levels: list[Level] = []
    for index, entry in enumerate(described):
        try:
            scale, w, h = float(entry["scale"]), int(entry["width"]), int(entry["height"])
            length, crc = int(entry["length"]), int(entry["crc32"])
        except (KeyError, TypeError, ValueError):
            return None
        blob = data[offset : offset + length]
        offset += length
        if len(blob) != length or zlib.crc32(blob) != crc:
            return None
        if wanted not in (-1, index):
            continue
        if max(w, h) > PREVIEW_MAX_PX:
            return None  # not a level a preview keeps: never decoded
        try:
            pixels = cv2.imdecode(np.frombuffer(blob, np.uint8), cv2.IMREAD_COLOR)
        except cv2.error:
            return None
        if pixels is None or pixels.shape[:2] != (h, w):
            return None
        levels.append((scale, cv2.cvtColor(pixels, cv2.COLOR_BGR2BGRA)))
    if offset != len(data) or not levels or width <= 0 or height <= 0:
        return None
    return Preview(width, height, levels, stored_source, sha256)


#: The largest level a preview keeps (long side, pixels): enough to fill a laptop's or a
#: desktop's screen with one image of a pair; beyond it the canvas asks for the full image.
PREVIEW_MAX_PX = 1600


def preview_levels(levels: list[Level]) -> list[Level]:
    """The reduced levels of a display pyramid worth storing (none for a small image,
    which decodes fast enough by itself)."""
    return [(s, px) for s, px in levels if s < 1.0 and max(px.shape[:2]) <= PREVIEW_MAX_PX]
