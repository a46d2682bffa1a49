"""Previews in the window: a case shows at once from its stored preview, looks the same as
from the full image, and zooming in swaps the full image in without moving anything."""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
from factories import yes_no_spec
from PIL import Image
from PySide6.QtGui import QImage

from sabre_desk.core.case.preview_cache import PreviewStore, cache_folder
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.ground import hashing
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.gui.machinery.image_loader import image_key
from sabre_desk.gui.machinery.qimage import decode_for_display, preview_image
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.imaging.io import load_image

BASE, EDITED = ImageRole.BASE, ImageRole.EDITED


def scene(width: int, height: int, seed: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    img = np.stack([xx / width * 220, yy / height * 220, 90 + 40 * np.sin(xx / 37)], axis=2)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        x, y = int(rng.integers(0, width - 200)), int(rng.integers(0, height - 200))
        img[y : y + 150, x : x + 180] = rng.integers(0, 255, 3)
    return img.astype(np.uint8)


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8, image.bytesPerLine() * h)
    return data.reshape(h, image.bytesPerLine())[:, : w * 3].reshape(h, w, 3).copy()


@pytest.fixture
def big_project(make_project, tmp_path: Path) -> Path:
    """Three paired cases of 1600×1200 images, the edited one a phone JPEG turned by EXIF."""
    root = make_project("big")
    for i in range(3):
        folder = root / "cases" / f"case{i}"
        folder.mkdir()
        (folder / "spec.json").write_text(json.dumps(yes_no_spec(concept_id=f"c{i}")))
        Image.fromarray(scene(1600, 1200, 2 * i)).save(folder / "base.png", compress_level=1)
        exif = Image.Exif()
        exif[0x0112] = 6  # shown turned a quarter clockwise: 1200 wide, 1600 tall
        Image.fromarray(scene(1600, 1200, 2 * i + 1)).save(
            folder / "edited.jpg", quality=95, exif=exif.tobytes()
        )
    return root


def make_previews(root: Path) -> PreviewStore:
    store = PreviewStore(cache_folder(root))
    for path in sorted((root / "cases").glob("*/*.*")):
        if path.suffix in (".png", ".jpg"):
            store.make(path)
    return store


def test_a_preview_paints_the_same_pixels_as_the_full_image_at_fit_zoom(
    qtbot, big_project: Path
) -> None:
    """Same geometry, EXIF orientation applied: a reviewer cannot see the swap."""
    path = big_project / "cases" / "case0" / "edited.jpg"
    preview = make_previews(big_project).read(path)
    assert preview is not None
    canvas = ImageCanvas()
    qtbot.addWidget(canvas)
    canvas.resize(520, 600)
    canvas.show()
    qtbot.waitExposed(canvas)
    canvas.set_image(decode_for_display(path))
    full_view, full_shot = canvas.view_state(), pixels(canvas.viewport().grab().toImage())
    canvas.set_image(preview_image(preview))
    assert canvas.display_image.is_preview and canvas.image_size == (1200, 1600)
    assert canvas.view_state() == full_view
    shot = pixels(canvas.viewport().grab().toImage())
    assert shot.shape == full_shot.shape
    diff = np.abs(shot.astype(int) - full_shot)
    assert diff.mean() < 1.0 and np.percentile(diff, 99.5) < 16


def _show(qtbot, window: MainWindow, case_id: str) -> None:
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select(case_id)


@pytest.fixture
def jumped(qtbot, make_window, open_case, big_project: Path) -> MainWindow:
    """A window that opened case0, then jumped to case2 (both with stored previews)."""
    make_previews(big_project)
    window = make_window()
    open_case(window, big_project, "case0")
    _show(qtbot, window, "case2")
    return window


def test_a_jump_shows_the_preview_and_zooming_in_swaps_in_full_resolution(
    qtbot, jumped: MainWindow
) -> None:
    window = jumped
    canvas = window.compare.canvases[EDITED]
    assert canvas.display_image.is_preview  # shown from the cache: no full decode yet
    path = window.controller.case.images[EDITED]
    views: list[tuple] = []
    upgrade = canvas.upgrade_image

    def watched(image):  # the view just before and just after the swap
        views.append((canvas.transform(), canvas.mapToScene(canvas.viewport().rect().center())))
        done = upgrade(image)
        views.append((canvas.transform(), canvas.mapToScene(canvas.viewport().rect().center())))
        return done

    canvas.upgrade_image = watched
    canvas.actual_size()  # 100 %: the reviewer wants to see every pixel
    qtbot.waitUntil(lambda: not canvas.display_image.is_preview, timeout=10000)
    assert len(views) == 2 and views[0] == views[1] and canvas.image_size == (1200, 1600)
    canvas.viewport().repaint()
    shot = pixels(canvas.viewport().grab().toImage())
    center = canvas.mapToScene(canvas.viewport().rect().center())
    x, y = int(center.x()), int(center.y())
    top_left = canvas.mapFromScene(float(x), float(y))
    full = load_image(path)
    region = shot[top_left.y() + 1 : top_left.y() + 9, top_left.x() + 1 : top_left.x() + 9]
    assert np.array_equal(region, full[y + 1 : y + 9, x + 1 : x + 9])  # real pixels, 1:1


def test_a_jump_reads_only_the_preview_level_each_view_paints_from(jumped: MainWindow) -> None:
    """Decoding a level nobody looks at is most of a preview's reading time."""
    window = jumped
    pair = window.compare.view_scale  # the pair's most detailed view
    assert pair is not None and pair <= 0.5
    for role in (BASE, EDITED):  # Base landscape, Edited portrait: each at its own zoom
        canvas = window.compare.canvases[role]
        # one level, the one its own view or the pair's most detailed view paints from
        wanted = {0.25 if view <= 0.25 else 0.5 for view in (canvas.screen_zoom, pair)}
        image = canvas.display_image
        assert image.is_preview and len(image.levels) == 1 and image.levels[0][0] in wanted
        assert not canvas._pixmap_item.lacks_detail(canvas.screen_zoom)  # sharp: no full decode


def test_a_case_left_keeps_only_its_preview_in_memory(
    qtbot, make_window, open_case, big_project: Path
) -> None:
    window = make_window()
    open_case(window, big_project, "case0")  # no previews yet: decoded in full
    first = window.controller.case.images[BASE]
    assert not window.loader.cached(image_key(first)).is_preview
    _show(qtbot, window, "case1")
    held = window.loader.cached(image_key(first))
    assert held is not None and held.is_preview  # the full image is let go
    current = window.controller.case.images[BASE]
    assert not window.loader.cached(image_key(current)).is_preview


def test_cases_flipped_past_are_not_hashed_and_the_case_stayed_on_is(
    qtbot, make_window, open_case, big_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking a shown preview against its image, and binding the decisions to the
    images, read every byte of the image: only for a case the reviewer stays on, not for
    each case flipped past at key-repeat speed (8 MB of reading each, competing with the
    window for the cores)."""
    make_previews(big_project)
    monkeypatch.setattr(hashing, "_memory", OrderedDict())  # nothing remembered yet
    read: list[Path] = []
    real = hashing.sha256_file

    def recorded(path: Path) -> str:
        read.append(Path(path))
        return real(path)

    monkeypatch.setattr(hashing, "sha256_file", recorded)
    window = make_window()
    open_case(window, big_project, "case0")
    _show(qtbot, window, "case1")
    _show(qtbot, window, "case2")  # case1 left the moment it was painted
    folder = big_project / "cases" / "case2"
    wanted = {folder / "base.png", folder / "edited.jpg"}
    qtbot.waitUntil(lambda: wanted <= set(read), timeout=10000)  # stayed on: checked
    assert window.wait_for_background(10000)
    assert not [p for p in read if p.parent.name == "case1"]


def test_damaged_previews_show_the_right_image_and_no_error(
    qtbot, make_window, open_case, big_project: Path
) -> None:
    store = make_previews(big_project)
    for file in store.folder.rglob("*.preview"):
        data = file.read_bytes()
        file.write_bytes(data[: len(data) // 3])
    window = make_window()
    open_case(window, big_project, "case1")
    for role in (BASE, EDITED):
        canvas = window.compare.canvases[role]
        assert canvas.message == "" and canvas.display_image is not None
        assert not canvas.display_image.is_preview  # decoded from the image itself
    assert window.statusBar().currentMessage().find("⚠") < 0


def test_the_idle_sweep_stores_a_preview_of_every_image(
    qtbot, make_window, open_case, big_project: Path
) -> None:
    window = make_window()
    open_case(window, big_project, "case0")
    store = window.loader.store
    assert store is not None and store.folder == cache_folder(big_project)
    qtbot.waitUntil(lambda: store.info().files == 6, timeout=30000)
    # (a neighbour's decode queued before its preview existed has landed, then is forgotten)
    assert window.wait_for_background(15000)
    qtbot.wait(10)
    window.loader.clear()
    _show(qtbot, window, "case2")
    assert all(window.compare.canvases[r].display_image.is_preview for r in (BASE, EDITED))


def test_an_image_shown_for_the_first_time_gets_its_preview_at_once(
    qtbot, make_window, open_case, big_project: Path
) -> None:
    """Without waiting for the sweep: an image just decoded (a case opened, an accepted
    repair shown) is stored as a preview from the pixels already decoded."""
    window = make_window()
    open_case(window, big_project, "case1")
    window.previews.sweep.stop()
    store = window.loader.store
    images = window.controller.case.images
    qtbot.waitUntil(lambda: all(store.has(images[r]) for r in (BASE, EDITED)), timeout=10000)


def test_a_preview_nested_30000_deep_shows_the_base_and_is_made_again(
    qtbot, make_window, open_case, big_project: Path
) -> None:
    """Not "maximum recursion depth exceeded" on every open: a preview the cache cannot read
    is a miss, the image itself is shown, and the bad file is gone."""
    from sabre_desk.core.case.preview_cache import stamp
    from sabre_desk.imaging.preview_file import MAGIC

    store = make_previews(big_project)
    base = big_project / "cases" / "case2" / "base.png"
    bad = store.file_for(stamp(base))  # type: ignore[arg-type]
    deep = b"[" * 30_000 + b"]" * 30_000
    bad.write_bytes(MAGIC + len(deep).to_bytes(4, "big") + deep)
    window = make_window()
    open_case(window, big_project, "case0")
    _show(qtbot, window, "case2")
    canvas = window.compare.canvases[BASE]
    assert canvas.message == "" and canvas.image_size == (1600, 1200)
    qtbot.waitUntil(lambda: store.read(base) is not None, timeout=10000)
