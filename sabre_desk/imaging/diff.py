"""Change map: what differs between Base and Edited, robust to what does not matter.

Both images are compared in CIELAB after a small blur, with a global colour shift removed
(its median), and the threshold taken from the pair's own noise level (a robust spread of
the per-pixel colour difference), so JPEG re-encoding, a slight exposure change or
resampling do not light up; morphology cleans the map and connected components become
regions. Work is done at most ``WORK_SIDE`` pixels on the long side: regions are reported
normalized, like boxes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sabre_desk.imaging.patch import as_rgb8

WORK_SIDE = 1024
MIN_THRESHOLD = 6.0  # ΔE below this is never a change (just noticeable difference ≈ 2.3)
NOISE_FACTOR = 6.0
MIN_REGION_FRACTION = 0.0004  # regions smaller than this share of the image are dropped
#: Colour (a*, b*) differences count less than lightness: JPEG stores colour at half
#: resolution, so colour edges are where re-encoding errs most.
CHROMA_WEIGHT = 0.6


@dataclass
class Region:
    box: tuple[float, float, float, float]  # normalized, like review boxes
    area: float  # share of the image
    mean_change: float  # mean ΔE inside the region
    outside: bool = False  # lies outside the edit

    def to_json(self) -> dict[str, Any]:
        return {
            "box": [round(v, 4) for v in self.box],
            "area": round(self.area, 5),
            "mean_change": round(self.mean_change, 2),
            "outside": self.outside,
        }


@dataclass
class ChangeMap:
    size: tuple[int, int]  # (width, height) the comparison was made at
    threshold: float
    delta: np.ndarray  # ΔE per pixel (float32, work size)
    changed: np.ndarray  # cleaned binary map (bool, work size)
    regions: list[Region]
    notes: list[str] = field(default_factory=list)
    edit_box: tuple[float, float, float, float] | None = None
    edit_box_source: str = ""
    outside_share: float = 0.0  # share of the changed area that lies outside the edit

    @property
    def outside_regions(self) -> list[Region]:
        return [r for r in self.regions if r.outside]

    @property
    def possibly_scene_changed(self) -> bool:
        """A hint, never a decision: clearly more changed than the marked edit."""
        outside_area = sum(r.area for r in self.outside_regions)
        return bool(self.outside_share > 0.2 and outside_area > 0.001)

    def to_json(self) -> dict[str, Any]:
        return {
            "size": list(self.size),
            "threshold": round(self.threshold, 2),
            "regions": [r.to_json() for r in self.regions],
            "edit_box": list(self.edit_box) if self.edit_box else None,
            "edit_box_source": self.edit_box_source,
            "outside_share": round(self.outside_share, 4),
            "possibly_scene_changed": self.possibly_scene_changed,
            "notes": self.notes,
        }


def _work_size(width: int, height: int) -> tuple[int, int]:
    scale = min(1.0, WORK_SIDE / max(width, height))
    return max(1, round(width * scale)), max(1, round(height * scale))


def _lab(rgb: np.ndarray, size: tuple[int, int], sigma: float) -> np.ndarray:
    import cv2  # loaded with the first change map, not with the window

    if rgb.shape[1::-1] != size:
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(rgb.astype(np.float32) / 255.0, cv2.COLOR_RGB2Lab)
    return cv2.GaussianBlur(lab, (0, 0), sigma)


def _aligned_delta(
    lab_e: np.ndarray, lab_b: np.ndarray, threshold: float, reach: int = 1
) -> np.ndarray:
    """Per-pixel colour distance to the best-matching Base pixel within *reach* pixels.

    Resampling and JPEG ringing move edges by a pixel or so; matching within that reach
    makes them vanish while a real change, which has no match nearby, stays. Only pixels
    already above *threshold* without shifting can change the outcome, so only they are
    matched (a few percent of the image instead of all of it, nine times over).
    """
    import cv2  # loaded with the first change map, not with the window

    d = lab_e - lab_b
    delta = np.sqrt(np.einsum("ijk,ijk->ij", d, d)).astype(np.float32)
    ys, xs = np.nonzero(delta > threshold)
    if ys.size == 0:
        return np.asarray(delta, np.float32)
    padded = cv2.copyMakeBorder(lab_b, reach, reach, reach, reach, cv2.BORDER_REPLICATE)
    target = lab_e[ys, xs]
    best = delta[ys, xs] ** 2
    for dy in range(2 * reach + 1):
        for dx in range(2 * reach + 1):
            diff = target - padded[ys + dy, xs + dx]
            np.minimum(best, np.einsum("ij,ij->i", diff, diff), out=best)
    delta[ys, xs] = np.sqrt(best)
    return np.asarray(delta, np.float32)


def change_map(base: np.ndarray, edited: np.ndarray) -> ChangeMap:
    import cv2  # loaded with the first change map, not with the window

    base, edited = as_rgb8(base), as_rgb8(edited)
    notes: list[str] = []
    bh, bw = base.shape[:2]
    eh, ew = edited.shape[:2]
    if (bw, bh) != (ew, eh):
        notes.append(f"Edited is {ew}×{eh}, Base {bw}×{bh}: compared at a common size")
    size = _work_size(bw, bh)
    sigma = max(1.0, size[0] / 700.0)
    lab_e, lab_b = _lab(edited, size, sigma), _lab(base, size, sigma)
    shift = np.median((lab_e[::4, ::4] - lab_b[::4, ::4]).reshape(-1, 3), axis=0)
    lab_e -= shift  # a global colour or exposure change is not an edit
    lab_e[..., 1:] *= CHROMA_WEIGHT
    lab_b[..., 1:] *= CHROMA_WEIGHT
    sample = lab_e[::2, ::2] - lab_b[::2, ::2]  # the noise level, from a quarter of the pixels
    plain = np.sqrt(np.einsum("ijk,ijk->ij", sample, sample))
    median = float(np.median(plain))
    spread = 1.4826 * float(np.median(np.abs(plain - median)))
    threshold = max(MIN_THRESHOLD, median + NOISE_FACTOR * spread)
    delta = _aligned_delta(lab_e, lab_b, threshold)
    raw = (delta > threshold).astype(np.uint8)
    k = max(3, (min(size) // 200) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    cleaned = cv2.morphologyEx(raw, cv2.MORPH_OPEN, kernel)
    cleaned = cv2.morphologyEx(
        cleaned, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3 * k, 3 * k))
    )
    count, labels, stats, _ = cv2.connectedComponentsWithStats(cleaned)
    w, h = size
    min_area = MIN_REGION_FRACTION * w * h
    regions: list[Region] = []
    keep = np.zeros_like(cleaned, dtype=bool)
    for i in range(1, count):
        x, y, rw, rh, area = stats[i]
        if area < min_area:
            continue
        inside = labels == i
        keep |= inside
        regions.append(
            Region(
                (x / w, y / h, (x + rw) / w, (y + rh) / h),
                area / (w * h),
                float(delta[inside].mean()),
            )
        )
    regions.sort(key=lambda r: r.area, reverse=True)
    return ChangeMap(size, threshold, delta, keep, regions, notes)


def _grow(box: tuple[float, float, float, float], by: float) -> tuple[float, ...]:
    x0, y0, x1, y1 = box
    return (max(0.0, x0 - by), max(0.0, y0 - by), min(1.0, x1 + by), min(1.0, y1 + by))


def score_outside(
    result: ChangeMap,
    edit_box: tuple[float, float, float, float] | None,
    source: str,
    tolerance: float = 0.02,
) -> ChangeMap:
    """Mark regions outside the edit and the share of changed area there.

    Without an edit box the largest change is taken to be the edit (and said so).
    """
    if edit_box is None and result.regions:
        edit_box, source = result.regions[0].box, "the largest change (no edit box yet)"
    result.edit_box, result.edit_box_source = edit_box, source if edit_box else ""
    if edit_box is None or not result.changed.any():
        result.outside_share = 0.0
        return result
    w, h = result.size
    x0, y0, x1, y1 = _grow(edit_box, tolerance)
    inside = np.zeros((h, w), bool)
    inside[int(y0 * h) : int(np.ceil(y1 * h)), int(x0 * w) : int(np.ceil(x1 * w))] = True
    changed = result.changed
    result.outside_share = float((changed & ~inside).sum()) / float(changed.sum())
    for region in result.regions:
        rx0, ry0, rx1, ry1 = region.box
        ix = max(0.0, min(rx1, x1) - max(rx0, x0))
        iy = max(0.0, min(ry1, y1) - max(ry0, y0))
        region_area = max(1e-9, (rx1 - rx0) * (ry1 - ry0))
        region.outside = bool(ix * iy / region_area < 0.5)
    return result


def overlay(edited: np.ndarray, result: ChangeMap, alpha: float = 0.55) -> np.ndarray:
    """A picture for people: the Edited image with the change heat and region boxes."""
    import cv2  # loaded with the first change map, not with the window

    edited = as_rgb8(edited)
    h, w = edited.shape[:2]
    heat: np.ndarray = np.clip(result.delta / (2.0 * result.threshold), 0.0, 1.0)
    heat = cv2.resize(heat, (w, h), interpolation=cv2.INTER_LINEAR)
    changed = cv2.resize(
        result.changed.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST
    ).astype(bool)
    colored = cv2.applyColorMap((heat * 255).astype(np.uint8), cv2.COLORMAP_INFERNO)[..., ::-1]
    out = edited.copy()
    out[changed] = (edited[changed] * (1 - alpha) + colored[changed] * alpha).astype(np.uint8)
    thickness = max(2, min(w, h) // 300)
    if result.edit_box is not None:
        x0, y0, x1, y1 = result.edit_box
        cv2.rectangle(
            out,
            (int(x0 * w), int(y0 * h)),
            (int(x1 * w), int(y1 * h)),
            (255, 170, 0),
            thickness,
            cv2.LINE_AA,
        )
    for region in result.regions:
        x0, y0, x1, y1 = region.box
        color = (230, 30, 60) if region.outside else (40, 200, 255)
        cv2.rectangle(
            out,
            (int(x0 * w), int(y0 * h)),
            (int(x1 * w), int(y1 * h)),
            color,
            thickness,
            cv2.LINE_AA,
        )
    return out


def heat_rgba(result: ChangeMap) -> np.ndarray:
    """The changed pixels coloured by how much they changed (RGBA), transparent elsewhere:
    the overlay the window draws over Edited."""
    import cv2  # loaded with the first change map, not with the window

    level = np.clip(result.delta / (2.0 * result.threshold), 0.0, 1.0)
    colored = cv2.applyColorMap((level * 255).astype(np.uint8), cv2.COLORMAP_INFERNO)
    rgba = cv2.cvtColor(colored, cv2.COLOR_BGR2RGBA)
    rgba[..., 3] = np.where(result.changed, 150, 0).astype(np.uint8)
    return rgba
