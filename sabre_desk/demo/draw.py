"""Drawing primitives for the demo scenes (numpy + OpenCV, RGB uint8, deterministic).

Objects are drawn in a slightly stylised, shaded way so that a reviewer can recognise
them and so that the edits (an object replaced, a material changed, a count changed) are
real pixel changes confined to where a real edit would be.
"""

from __future__ import annotations

import cv2
import numpy as np

RGB = tuple[int, int, int]
AA = cv2.LINE_AA


def canvas(width: int, height: int, color: RGB) -> np.ndarray:
    img = np.empty((height, width, 3), np.uint8)
    img[:] = color
    return img


def vertical_gradient(img: np.ndarray, y0: int, y1: int, top: RGB, bottom: RGB) -> None:
    t = np.linspace(0.0, 1.0, max(1, y1 - y0))[:, None, None]
    band = (1 - t) * np.array(top, float) + t * np.array(bottom, float)
    img[y0:y1] = np.broadcast_to(band, (y1 - y0, img.shape[1], 3)).astype(np.uint8)


def add_noise(img: np.ndarray, rng: np.random.Generator, amount: float = 4.0) -> None:
    """Fine sensor-like grain so flat areas do not look synthetic (and diffs see real noise)."""
    noise = rng.normal(0.0, amount, img.shape[:2])[:, :, None]
    img[:] = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def wood(
    img: np.ndarray,
    rect: tuple[int, int, int, int],
    rng: np.random.Generator,
    base: RGB = (170, 120, 75),
    horizontal: bool = True,
) -> None:
    """Wood planks with grain lines inside rect (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = rect
    h, w = y1 - y0, x1 - x0
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along, across = (xx, yy) if horizontal else (yy, xx)
    phase = rng.uniform(0, 6.28)
    grain = np.sin(across * 0.45 + 2.2 * np.sin(along * 0.013 + phase) + 0.6 * np.sin(along * 0.05))
    shade = 1.0 + 0.07 * grain + 0.03 * np.sin(across * 0.09 + phase)
    patch = np.array(base, np.float32)[None, None, :] * shade[:, :, None]
    img[y0:y1, x0:x1] = np.clip(patch, 0, 255).astype(np.uint8)
    plank = 46
    for k in range(1, (h if horizontal else w) // plank + 1):
        if horizontal:
            cv2.line(img, (x0, y0 + k * plank), (x1, y0 + k * plank), (110, 75, 45), 2, AA)
        else:
            cv2.line(img, (x0 + k * plank, y0), (x0 + k * plank, y1), (110, 75, 45), 2, AA)


def shadow(
    img: np.ndarray, center: tuple[int, int], axes: tuple[int, int], strength: float = 0.35
) -> None:
    """A soft contact shadow under an object."""
    mask: np.ndarray = np.zeros(img.shape[:2], np.float32)
    cv2.ellipse(mask, center, axes, 0, 0, 360, 1.0, -1, AA)
    k = max(3, (max(axes) // 2) | 1)
    mask = cv2.GaussianBlur(mask, (k, k), 0)
    img[:] = (img.astype(np.float32) * (1.0 - strength * mask[:, :, None])).astype(np.uint8)


def shaded(color: RGB, factor: float) -> RGB:
    return tuple(int(np.clip(c * factor, 0, 255)) for c in color)  # type: ignore[return-value]


def cylinder_upright(
    img: np.ndarray, cx: int, bottom: int, rx: int, ry: int, height: int, color: RGB
) -> None:
    """An upright cylinder seen from slightly above (mug body, bottle, can)."""
    top = bottom - height
    cv2.ellipse(img, (cx, bottom), (rx, ry), 0, 0, 180, shaded(color, 0.75), -1, AA)
    cv2.rectangle(img, (cx - rx, top), (cx + rx, bottom), color, -1)
    # side shading: darker towards the right edge
    band = img[top:bottom, cx + rx // 3 : cx + rx].astype(np.float32)
    ramp = np.linspace(1.0, 0.72, band.shape[1])[None, :, None]
    img[top:bottom, cx + rx // 3 : cx + rx] = (band * ramp).astype(np.uint8)
    cv2.ellipse(
        img,
        (cx - rx // 2, (top + bottom) // 2),
        (max(2, rx // 8), height // 3),
        0,
        0,
        360,
        shaded(color, 1.25),
        -1,
        AA,
    )
    cv2.ellipse(img, (cx, top), (rx, ry), 0, 0, 360, shaded(color, 1.1), -1, AA)


def tape_roll(img: np.ndarray, cx: int, cy: int, r: int = 42) -> None:
    ry = int(r * 0.62)
    shadow(img, (cx + 6, cy + r // 2), (r + 6, ry))
    side = (196, 172, 118)
    cv2.ellipse(img, (cx, cy + 14), (r, ry), 0, 0, 180, shaded(side, 0.8), -1, AA)
    cv2.rectangle(img, (cx - r, cy), (cx + r, cy + 14), shaded(side, 0.85), -1)
    cv2.ellipse(img, (cx, cy), (r, ry), 0, 0, 360, (226, 206, 150), -1, AA)
    for k in range(4, r - r // 2, 5):  # wound layers
        cv2.ellipse(img, (cx, cy), (r - k, ry - int(k * 0.62)), 0, 0, 360, (210, 188, 132), 1, AA)
    cv2.ellipse(img, (cx, cy), (r // 2, ry // 2), 0, 0, 360, (140, 110, 72), -1, AA)
    cv2.ellipse(img, (cx, cy), (r // 2 - 5, ry // 2 - 4), 0, 0, 360, (120, 84, 52), -1, AA)


def bagel(img: np.ndarray, cx: int, cy: int, r: int, rng: np.random.Generator) -> None:
    ry = int(r * 0.68)
    shadow(img, (cx + 6, cy + r // 2), (r + 8, ry))
    cv2.ellipse(img, (cx, cy + 6), (r, ry), 0, 0, 360, (150, 92, 40), -1, AA)
    for k in range(6):
        c = shaded((214, 150, 78), 0.85 + 0.05 * k)
        cv2.ellipse(img, (cx, cy - k // 2), (r - k * 2, ry - k * 2), 0, 0, 360, c, -1, AA)
    cv2.ellipse(
        img, (cx - r // 4, cy - ry // 3), (r // 2, ry // 4), -15, 0, 360, (236, 184, 112), -1, AA
    )
    cv2.ellipse(img, (cx, cy), (r // 3, ry // 3), 0, 0, 360, (150, 95, 50), -1, AA)
    for _ in range(26):
        a, d = rng.uniform(0, 2 * np.pi), rng.uniform(0.45, 0.9)
        x, y = int(cx + np.cos(a) * r * d), int(cy + np.sin(a) * ry * d)
        cv2.ellipse(img, (x, y), (3, 2), float(np.degrees(a)), 0, 360, (248, 240, 215), -1, AA)


def hammer(img: np.ndarray, x: int, y: int, length: int = 190) -> None:
    shadow(img, (x + length // 2, y + 16), (length // 2, 14))
    cv2.rectangle(img, (x, y - 9), (x + length, y + 9), (150, 98, 52), -1)
    cv2.rectangle(img, (x, y - 9), (x + 60, y + 9), (40, 40, 44), -1)  # rubber grip
    cv2.rectangle(img, (x + length - 18, y - 40), (x + length + 16, y + 30), (120, 124, 132), -1)
    cv2.rectangle(img, (x + length - 18, y - 40), (x + length + 16, y - 30), (170, 174, 182), -1)
    cv2.ellipse(img, (x + length + 16, y - 26), (22, 12), 0, 180, 270, (120, 124, 132), 8, AA)


def screwdriver(img: np.ndarray, x: int, y: int, handle: RGB = (230, 190, 30)) -> None:
    shadow(img, (x + 90, y + 12), (95, 10))
    cv2.rectangle(img, (x, y - 11), (x + 70, y + 11), handle, -1)
    for k in range(5):
        cv2.line(img, (x + 8 + k * 12, y - 9), (x + 8 + k * 12, y + 9), shaded(handle, 0.7), 2)
    cv2.rectangle(img, (x + 70, y - 3), (x + 180, y + 3), (175, 178, 185), -1)
    cv2.line(img, (x + 70, y - 1), (x + 180, y - 1), (220, 222, 228), 1)


def wrench(img: np.ndarray, x: int, y: int, length: int = 170) -> None:
    shadow(img, (x + length // 2, y + 14), (length // 2 + 10, 14))
    steel = (150, 156, 166)
    cv2.rectangle(img, (x + 14, y - 8), (x + length - 14, y + 8), steel, -1)
    cv2.line(img, (x + 14, y - 4), (x + length - 14, y - 4), (196, 200, 208), 2)
    cv2.circle(img, (x + length - 6, y), 22, steel, -1, AA)
    cv2.circle(img, (x + length - 6, y), 11, (0, 0, 0), -1, AA)  # ring end, filled later
    cv2.circle(img, (x + 6, y), 22, steel, -1, AA)
    pts = np.array([[x - 18, y - 9], [x + 6, y - 9], [x + 6, y + 9], [x - 18, y + 9]], np.int32)
    cv2.fillConvexPoly(img, pts, (0, 0, 0), AA)  # open jaw, filled later


def fill_holes_from(img: np.ndarray, background: np.ndarray) -> None:
    """Pure-black pixels (cut-outs such as a wrench's ring) show the background again."""
    holes = np.all(img == 0, axis=2)
    img[holes] = background[holes]


def banana(img: np.ndarray, cx: int, cy: int, size: int = 80) -> None:
    shadow(img, (cx, cy + size // 3), (size + 10, size // 4))
    outer = np.asarray(cv2.ellipse2Poly((cx, cy - size // 2), (size, size), 0, 25, 155, 4))
    inner = cv2.ellipse2Poly(
        (cx, cy - size // 2 - 26), (int(size * 0.92), size - 6), 0, 30, 150, 4
    )[::-1]
    poly = np.vstack([outer, inner]).astype(np.int32)
    cv2.fillPoly(img, [poly], (236, 202, 48), AA)
    cv2.polylines(img, [outer.astype(np.int32)], False, (200, 160, 30), 3, AA)
    tip = tuple(int(v) for v in outer[0])
    end = tuple(int(v) for v in outer[-1])
    cv2.circle(img, tip, 5, (90, 70, 30), -1, AA)
    cv2.circle(img, end, 6, (110, 120, 40), -1, AA)


def plate(img: np.ndarray, cx: int, cy: int, r: int) -> None:
    ry = int(r * 0.55)
    shadow(img, (cx + 5, cy + 8), (r + 4, ry + 4), 0.3)
    cv2.ellipse(img, (cx, cy), (r, ry), 0, 0, 360, (236, 236, 232), -1, AA)
    cv2.ellipse(img, (cx, cy), (int(r * 0.7), int(ry * 0.7)), 0, 0, 360, (222, 222, 218), 2, AA)


def apple(img: np.ndarray, cx: int, cy: int, r: int = 26, color: RGB = (196, 30, 36)) -> None:
    shadow(img, (cx + 4, cy + r - 4), (r, r // 3))
    cv2.circle(img, (cx - r // 3, cy), r, color, -1, AA)
    cv2.circle(img, (cx + r // 3, cy), r, shaded(color, 0.9), -1, AA)
    cv2.ellipse(
        img, (cx - r // 2, cy - r // 3), (r // 4, r // 3), 30, 0, 360, shaded(color, 1.45), -1, AA
    )
    cv2.line(img, (cx, cy - r + 4), (cx + 4, cy - r - 10), (90, 60, 30), 3, AA)
    cv2.ellipse(img, (cx + 12, cy - r - 6), (10, 5), -20, 0, 360, (60, 140, 50), -1, AA)


def tennis_ball(img: np.ndarray, cx: int, cy: int, r: int = 28) -> None:
    shadow(img, (cx + 4, cy + r - 4), (r, r // 3))
    cv2.circle(img, (cx, cy), r, (206, 226, 60), -1, AA)
    cv2.circle(img, (cx - r // 3, cy - r // 3), r // 3, (226, 240, 120), -1, AA)
    cv2.ellipse(img, (cx - r, cy), (int(r * 0.8), r), 0, -60, 60, (250, 250, 245), 3, AA)
    cv2.ellipse(img, (cx + r, cy), (int(r * 0.8), r), 0, 120, 240, (250, 250, 245), 3, AA)


def mug(
    img: np.ndarray,
    cx: int,
    bottom: int,
    color: RGB = (240, 240, 236),
    handle_side: int = 1,
    height: int = 74,
    rx: int = 34,
) -> None:
    shadow(img, (cx + 8, bottom + 4), (rx + 14, 12))
    hx = cx + handle_side * rx
    cv2.ellipse(
        img,
        (hx, bottom - height // 2),
        (18, 22),
        0,
        -90 if handle_side > 0 else 90,
        90 if handle_side > 0 else 270,
        shaded(color, 0.85),
        8,
        AA,
    )
    cylinder_upright(img, cx, bottom, rx, 10, height, color)
    cv2.ellipse(img, (cx, bottom - height), (rx - 4, 7), 0, 0, 360, (70, 42, 26), -1, AA)


def textured_mug(
    img: np.ndarray, cx: int, bottom: int, texture: np.ndarray, height: int = 74, rx: int = 34
) -> None:
    """A mug whose body carries a material texture (for the Texture cases).

    The mug is drawn in neutral grey for its shading, then the body takes the texture
    modulated by that shading, so the shape and light stay while the material changes.
    """
    body = np.zeros(img.shape[:2], np.uint8)
    cv2.rectangle(body, (cx - rx, bottom - height), (cx + rx, bottom), 255, -1)
    cv2.ellipse(body, (cx, bottom), (rx, 10), 0, 0, 180, 255, -1, AA)
    mug(img, cx, bottom, (200, 200, 200), 1, height, rx)
    h, w = img.shape[:2]
    tex = cv2.resize(texture, (w, h), interpolation=cv2.INTER_NEAREST)
    light = img.astype(np.float32).mean(axis=2, keepdims=True) / 200.0
    textured = np.clip(tex.astype(np.float32) * light, 0, 255).astype(np.uint8)
    inside = body > 0
    img[inside] = textured[inside]
    cv2.ellipse(
        img, (cx, bottom - height), (rx, 10), 0, 0, 360, shaded((200, 200, 200), 1.1), 3, AA
    )
    cv2.ellipse(img, (cx, bottom - height), (rx - 4, 7), 0, 0, 360, (70, 42, 26), -1, AA)


def brick_texture(width: int, height: int, rng: np.random.Generator, brick: int = 14) -> np.ndarray:
    tex = canvas(width, height, (205, 200, 190))  # mortar
    for row, y in enumerate(range(0, height, brick)):
        offset = (row % 2) * brick
        for x in range(-offset, width, brick * 2):
            tone = rng.uniform(0.85, 1.1)
            cv2.rectangle(
                tex,
                (x + 1, y + 1),
                (x + brick * 2 - 2, y + brick - 2),
                shaded((170, 70, 50), tone),
                -1,
            )
    return tex


def marble_texture(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    turb = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 9) * 40
    veins = np.abs(np.sin((xx * 0.6 + yy * 0.9) * 0.05 + turb))
    v = (0.78 + 0.22 * veins**0.25)[:, :, None]
    return np.asarray(np.clip(np.array([236, 236, 240], np.float32) * v, 0, 255), np.uint8)


def cardboard_box(
    img: np.ndarray, x: int, y: int, w: int, h: int, label: str | None = None
) -> None:
    shadow(img, (x + w // 2 + 8, y + h), (w // 2 + 10, 12))
    cv2.rectangle(img, (x, y), (x + w, y + h), (186, 142, 92), -1)
    top = np.array([[x, y], [x + 22, y - 18], [x + w + 22, y - 18], [x + w, y]], np.int32)
    cv2.fillConvexPoly(img, top, (206, 164, 112), AA)
    side = np.array(
        [[x + w, y], [x + w + 22, y - 18], [x + w + 22, y + h - 18], [x + w, y + h]], np.int32
    )
    cv2.fillConvexPoly(img, side, (150, 112, 70), AA)
    cv2.line(img, (x + 11, y - 9), (x + w + 11, y - 9), (160, 120, 78), 2, AA)  # closed flaps
    if label:
        cv2.putText(
            img, label, (x + 10, y + h // 2 + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (60, 40, 20), 1, AA
        )


def bottle(img: np.ndarray, cx: int, bottom: int, color: RGB = (60, 130, 70)) -> None:
    shadow(img, (cx + 4, bottom + 2), (22, 6))
    cylinder_upright(img, cx, bottom, 18, 5, 80, color)
    cv2.rectangle(img, (cx - 6, bottom - 112), (cx + 6, bottom - 80), color, -1)
    cv2.rectangle(img, (cx - 7, bottom - 118), (cx + 7, bottom - 110), (200, 170, 60), -1)
    cv2.rectangle(img, (cx - 14, bottom - 56), (cx + 14, bottom - 30), (236, 226, 200), -1)


def shape(img: np.ndarray, kind: str, cx: int, cy: int, size: int, color: RGB) -> None:
    """A flat coloured shape with a darker outline (lattice scenes)."""
    outline = shaded(color, 0.6)
    if kind == "circle":
        cv2.circle(img, (cx, cy), size, color, -1, AA)
        cv2.circle(img, (cx, cy), size, outline, 2, AA)
    elif kind == "square":
        cv2.rectangle(img, (cx - size, cy - size), (cx + size, cy + size), color, -1)
        cv2.rectangle(img, (cx - size, cy - size), (cx + size, cy + size), outline, 2)
    else:
        pts = np.array(
            [[cx, cy - size], [cx + size, cy + size - 2], [cx - size, cy + size - 2]], np.int32
        )
        cv2.fillConvexPoly(img, pts, color, AA)
        cv2.polylines(img, [pts], True, outline, 2, AA)


def lamp(img: np.ndarray, cx: int, bottom: int) -> None:
    shadow(img, (cx + 6, bottom + 2), (40, 8))
    cv2.ellipse(img, (cx, bottom), (36, 9), 0, 0, 360, (50, 52, 60), -1, AA)
    cv2.line(img, (cx, bottom), (cx + 20, bottom - 90), (60, 62, 70), 6, AA)
    cv2.line(img, (cx + 20, bottom - 90), (cx - 20, bottom - 150), (60, 62, 70), 6, AA)
    pts = np.array(
        [[cx - 20, bottom - 160], [cx - 62, bottom - 120], [cx + 10, bottom - 118]], np.int32
    )
    cv2.fillConvexPoly(img, pts, (230, 120, 40), AA)


def book(img: np.ndarray, x: int, bottom: int, color: RGB = (40, 80, 150)) -> None:
    shadow(img, (x + 60, bottom + 2), (70, 8))
    cv2.rectangle(img, (x, bottom - 26), (x + 120, bottom), color, -1)
    cv2.rectangle(img, (x + 4, bottom - 22), (x + 116, bottom - 4), (240, 236, 220), -1)
    cv2.rectangle(img, (x, bottom - 34), (x + 120, bottom - 24), shaded(color, 1.2), -1)


def smear(img: np.ndarray, rect: tuple[int, int, int, int], rng: np.random.Generator) -> None:
    """A generation artifact: a blurred, colour-streaked smudge inside rect."""
    x0, y0, x1, y1 = rect
    region = img[y0:y1, x0:x1].astype(np.float32)
    streak = cv2.GaussianBlur(region, (0, 0), sigmaX=14, sigmaY=2)
    h, w = region.shape[:2]
    mask: np.ndarray = np.zeros((h, w), np.float32)
    cv2.ellipse(mask, (w // 2, h // 2), (w // 2 - 2, h // 2 - 2), -12, 0, 360, 1.0, -1, AA)
    mask = cv2.GaussianBlur(mask, (0, 0), 4)[:, :, None]
    tint = np.array([150, 110, 170], np.float32) + rng.normal(0, 6, (h, w, 3))
    out = region * (1 - mask) + (0.55 * streak + 0.45 * tint) * mask
    img[y0:y1, x0:x1] = np.clip(out, 0, 255).astype(np.uint8)


def traffic_light(img: np.ndarray, cx: int, top: int, lamps: list[RGB]) -> None:
    """A traffic light on a pole with one lamp per colour given, top to bottom."""
    pitch, r = 54, 20
    height = pitch * len(lamps) + 16
    cv2.rectangle(img, (cx - 8, top + height), (cx + 8, img.shape[0]), (70, 72, 76), -1)
    cv2.rectangle(img, (cx - 36, top), (cx + 36, top + height), (34, 36, 40), -1)
    cv2.rectangle(img, (cx - 36, top), (cx + 36, top + height), (12, 12, 14), 2)
    for i, color in enumerate(lamps):
        cy = top + 8 + pitch // 2 + i * pitch
        cv2.circle(img, (cx, cy), r + 4, (18, 18, 20), -1, AA)  # the visor
        cv2.circle(img, (cx, cy), r, color, -1, AA)
        cv2.circle(img, (cx - 6, cy - 6), 5, shaded(color, 1.4), -1, AA)  # a glint
