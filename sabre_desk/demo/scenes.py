"""Backgrounds of the demo scenes: a workbench, a kitchen table, a desk, a shelf, a board."""

from __future__ import annotations

import cv2
import numpy as np

from sabre_desk.demo import draw

W, H = 768, 512


def workbench(rng: np.random.Generator) -> np.ndarray:
    """A pegboard wall above a wooden bench, with a hammer and a screwdriver on it."""
    img = draw.canvas(W, H, (0, 0, 0))
    draw.vertical_gradient(img, 0, 230, (196, 204, 212), (170, 178, 188))
    cv2.rectangle(img, (40, 20), (W - 40, 200), (200, 170, 130), -1)
    for y in range(36, 196, 22):
        for x in range(56, W - 48, 22):
            cv2.circle(img, (x, y), 3, (120, 96, 70), -1, draw.AA)
    cv2.line(img, (140, 40), (140, 150), (60, 60, 64), 4, draw.AA)  # a hanging saw blade
    pts = np.array([[120, 60], [160, 60], [175, 180], [105, 180]], np.int32)
    cv2.fillConvexPoly(img, pts, (176, 180, 188), draw.AA)
    cv2.rectangle(img, (118, 44), (162, 62), (40, 90, 160), -1)
    draw.wood(img, (0, 230, W, H), rng)
    draw.vertical_gradient(img, 230, 244, (120, 80, 48), (150, 102, 62))
    draw.hammer(img, 70, 420)
    draw.screwdriver(img, 520, 455)
    draw.add_noise(img, rng, 2.5)
    return img


def kitchen_table(rng: np.random.Generator, glass_x: int = 620) -> np.ndarray:
    """A tiled wall, a table with a gingham cloth, a plate and a glass."""
    img = draw.canvas(W, H, (230, 226, 214))
    for y in range(0, 200, 40):
        for x in range(0, W, 40):
            cv2.rectangle(img, (x + 1, y + 1), (x + 38, y + 38), (240, 238, 230), -1)
    cloth = draw.canvas(W, H - 200, (236, 232, 226))
    for k in range(0, W, 48):
        cloth[:, k : k + 24] = (cloth[:, k : k + 24] * np.array([0.75, 0.82, 0.95])).astype(
            np.uint8
        )
    for k in range(0, H - 200, 48):
        band = cloth[k : k + 24].astype(np.float32) * np.array([0.8, 0.86, 0.97])
        cloth[k : k + 24] = band.astype(np.uint8)
    img[200:] = cloth
    draw.plate(img, 380, 360, 120)
    draw.cylinder_upright(img, glass_x, 330, 26, 8, 90, (214, 226, 232))  # a glass of water
    cv2.ellipse(img, (glass_x, 270), (22, 6), 0, 0, 360, (190, 210, 226), -1, draw.AA)
    draw.add_noise(img, rng, 2.5)
    return img


def desk(rng: np.random.Generator) -> np.ndarray:
    img = draw.canvas(W, H, (0, 0, 0))
    draw.vertical_gradient(img, 0, 260, (226, 222, 210), (204, 198, 186))
    cv2.rectangle(img, (520, 40), (700, 170), (90, 110, 140), -1)  # a framed picture
    cv2.rectangle(img, (532, 52), (688, 158), (150, 190, 220), -1)
    cv2.fillConvexPoly(img, np.array([[532, 158], [600, 90], [650, 158]], np.int32), (80, 130, 80))
    draw.wood(img, (0, 260, W, H), rng, base=(120, 84, 56))
    draw.add_noise(img, rng, 2.5)
    return img


def shelf(rng: np.random.Generator) -> np.ndarray:
    img = draw.canvas(W, H, (0, 0, 0))
    draw.vertical_gradient(img, 0, H, (220, 214, 200), (190, 182, 168))
    draw.wood(img, (30, 330, W - 30, 356), rng, base=(150, 105, 66))
    cv2.rectangle(img, (30, 356), (W - 30, 366), (100, 70, 44), -1)
    draw.wood(img, (30, 150, W - 30, 170), rng, base=(150, 105, 66))
    draw.add_noise(img, rng, 2.5)
    return img


def board(rng: np.random.Generator) -> np.ndarray:
    """A light felt board for lattices of coloured shapes."""
    img = draw.canvas(W, H, (232, 230, 222))
    draw.add_noise(img, rng, 5.0)
    return cv2.GaussianBlur(img, (3, 3), 0)


def street(rng: np.random.Generator) -> np.ndarray:
    """A sky over a row of house fronts and a pavement."""
    img = draw.canvas(W, H, (0, 0, 0))
    draw.vertical_gradient(img, 0, 300, (150, 190, 230), (200, 220, 236))
    for i, x in enumerate(range(0, W, 150)):
        color = ((188, 150, 120), (206, 196, 170), (160, 120, 100))[i % 3]
        cv2.rectangle(img, (x, 180 - 20 * (i % 2)), (x + 146, 380), color, -1)
        for wx in (x + 24, x + 86):
            cv2.rectangle(img, (wx, 230), (wx + 36, 290), (70, 90, 110), -1)
    cv2.rectangle(img, (0, 380), (W, H), (128, 128, 124), -1)
    draw.add_noise(img, rng, 2.5)
    return img
