"""The preview cache on disk: right pixels or a miss, never an error or a wrong picture;
bounded, clearable, out of the way of everything a release or validation reads."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from factories import read_only, rgb_array, run_cli
from PIL import Image

from sabre_desk.core.case.preview_cache import PROJECT_CACHE_DIR, PreviewStore, cache_folder, stamp
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.release.export import export
from sabre_desk.core.release.release import verify
from sabre_desk.imaging.io import load_image
from sabre_desk.imaging.pyramid import display_levels

EXIF_ROTATE_90_CW = 6


def photo(width: int, height: int, seed: int = 0) -> np.ndarray:
    """Smooth shading with a few sharp shapes (compresses like a render, not like noise)."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    img = np.stack([xx / width * 200, yy / height * 200, (xx + yy) % 97 + 60], axis=2)
    rng = np.random.default_rng(seed)
    for _ in range(12):
        x, y = int(rng.integers(0, width - 60)), int(rng.integers(0, height - 60))
        img[y : y + 50, x : x + 50] = rng.integers(0, 255, 3)
    return img.astype(np.uint8)


def save(path: Path, pixels: np.ndarray, orientation: int | None = None) -> Path:
    image = Image.fromarray(pixels)
    if orientation is None:
        image.save(path)
    else:
        exif = Image.Exif()
        exif[0x0112] = orientation
        image.save(path, quality=95, exif=exif.tobytes())
    return path


@pytest.fixture
def store(tmp_path: Path) -> PreviewStore:
    return PreviewStore(tmp_path / "cache" / "previews")


def test_a_preview_holds_the_levels_the_window_would_make_from_the_full_image(
    store: PreviewStore, tmp_path: Path
) -> None:
    """EXIF orientation applied, the full image's size, levels within JPEG rounding."""
    source = save(tmp_path / "phone.jpg", photo(1600, 1200), EXIF_ROTATE_90_CW)
    assert store.make(source)
    preview = store.read(source)
    assert preview is not None
    assert (preview.width, preview.height) == (1200, 1600)  # turned as a viewer shows it
    expected = display_levels(load_image(source))[1:]
    assert [s for s, _ in preview.levels] == [s for s, _ in expected] == [0.5, 0.25]
    for (_, got), (_, want) in zip(preview.levels, expected, strict=True):
        assert got.shape == want.shape
        diff = np.abs(got[..., :3].astype(int) - want[..., :3])
        assert diff.mean() < 1.5 and np.percentile(diff, 99) < 12
    assert not store.make(source)  # made once


@pytest.mark.parametrize(
    ("view_scale", "level"),
    [(0.19, 0.25), (0.25, 0.25), (0.3, 0.5), (0.5, 0.5), (2.0, 0.5)],
)
def test_a_preview_is_read_at_the_one_level_the_view_paints_from(
    store: PreviewStore, tmp_path: Path, view_scale: float, level: float
) -> None:
    """A laptop showing a 2048-pixel pair at 0.19 gets the 512 level, not the 1024 one too;
    a view zoomed past the preview gets its most detailed level (and then the full image)."""
    source = save(tmp_path / "scene.png", photo(2048, 1536))
    store.make(source)
    whole = store.read(source)
    preview = store.read(source, view_scale)
    assert whole is not None and preview is not None
    assert [s for s, _ in preview.levels] == [level]
    assert (preview.width, preview.height) == (2048, 1536)
    assert np.array_equal(preview.levels[0][1], dict(whole.levels)[level])


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated (a full disk, a killed writer)
        lambda data: data[:-100] + bytes(100),  # the end zeroed
        lambda data: b"not a preview at all",
        lambda data: b"",
    ],
)
def test_a_damaged_preview_is_a_miss_never_an_error(store: PreviewStore, tmp_path: Path, damage):
    source = save(tmp_path / "base.png", photo(1024, 768))
    store.make(source)
    file = store.file_for(stamp(source))
    file.write_bytes(damage(file.read_bytes()))
    assert store.read(source) is None
    assert not file.exists()  # removed, made again by the next sweep
    assert store.make(source) and store.read(source) is not None


def test_an_image_that_changes_never_shows_its_old_preview(
    store: PreviewStore, tmp_path: Path
) -> None:
    source = save(tmp_path / "edited.png", photo(1024, 768, seed=1))
    store.make(source)
    save(source, photo(1024, 768, seed=2))  # rewritten in place (another tool, a repair)
    assert store.read(source) is None
    store.make(source)
    preview = store.read(source)
    want = display_levels(load_image(source))[1][1]
    assert np.abs(preview.levels[0][1].astype(int) - want).mean() < 1.5


def test_a_preview_of_other_bytes_under_the_same_stat_is_caught_by_its_hash(
    store: PreviewStore, tmp_path: Path
) -> None:
    """A tool that rewrites a file and puts its times back keeps what stat says; the hash
    recorded in the preview does not match the bytes and the preview is dropped."""
    source = save(tmp_path / "base.png", photo(1024, 768, seed=3))
    before = stamp(source)
    levels = display_levels(photo(1024, 768, seed=4))  # pixels of another image
    assert store.write(source, (1024, 768), levels, before, "0" * 64)
    assert store.read(source) is not None
    assert not store.verify(source)
    assert store.read(source) is None
    assert store.make(source) and store.verify(source)


def test_the_cache_stays_under_its_limit_dropping_the_least_recently_used(
    tmp_path: Path,
) -> None:
    sources = [save(tmp_path / f"img{i}.png", photo(1024, 768, seed=i)) for i in range(6)]
    probe = PreviewStore(tmp_path / "probe")
    probe.make(sources[0])
    one = probe.info().bytes
    store = PreviewStore(tmp_path / "cache", limit_bytes=int(one * 4.5))
    for i, source in enumerate(sources):
        store.make(source)
        os.utime(store.file_for(stamp(source)), ns=(i * 10**9, i * 10**9))
        if i == 3:
            assert store.read(sources[0]) is not None  # used again: now the most recent
    info = store.info()
    assert info.bytes <= store.limit_bytes
    assert store.read(sources[0]) is not None and store.read(sources[5]) is not None
    assert store.read(sources[1]) is None  # the least recently used went first


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_preview_files_get_the_permissions_the_umask_allows(
    store: PreviewStore, tmp_path: Path, umask: int
) -> None:
    source = save(tmp_path / "base.png", photo(1024, 768))
    old = os.umask(umask)
    try:
        store.make(source)
    finally:
        os.umask(old)
    mode = stat.S_IMODE(store.file_for(stamp(source)).stat().st_mode)
    assert mode == 0o666 & ~umask


def test_a_read_only_project_keeps_its_previews_in_the_user_cache_folder(
    demo_project: Path, tmp_path: Path
) -> None:
    with read_only(demo_project):
        folder = cache_folder(demo_project)
        store = PreviewStore(folder)
        source = demo_project / "cases" / "ctx01_tape_bagel" / "base.png"
        assert store.make(source)
        assert store.read(source) is not None
    assert folder.is_relative_to(Path(os.environ["SABRE_DESK_CACHE_DIR"]))
    assert not (demo_project / PROJECT_CACHE_DIR).exists()
    assert cache_folder(demo_project) == demo_project / PROJECT_CACHE_DIR / "previews"


def _previews_everywhere(root: Path) -> PreviewStore:
    """Previews of every image of the project, plus a damaged one and a stray file."""
    store = PreviewStore(cache_folder(root))
    for path in sorted((root / "cases").glob("*/*.png")):
        store.make(path)
    damaged = next(store.folder.rglob("*.preview"))
    damaged.write_bytes(damaged.read_bytes()[:50])
    (store.folder / "stray.txt").write_text("not a preview")
    return store


def test_validate_export_and_verify_never_see_the_cache(demo_project: Path, tmp_path: Path):
    before = validate_project(Project.open(demo_project, "alice"))
    for case in ("ctx01_tape_bagel", "count01_apples"):
        review = demo_project / "cases" / case / "reviews" / "alice.json"
        review.parent.mkdir(exist_ok=True)
        review.write_text(json.dumps({"case_id": case, "reviewer": "alice", "decision": "keep"}))
    store = _previews_everywhere(demo_project)
    assert store.info().files > 10
    after = validate_project(Project.open(demo_project, "alice"))
    assert after.to_json() == before.to_json()
    out = tmp_path / "release"
    summary = export(Project.open(demo_project, "alice"), out)
    assert summary.cases == 2
    shipped = [p.relative_to(out).as_posix() for p in out.rglob("*")]
    assert not [name for name in shipped if "preview" in name or "cache" in name]
    assert PROJECT_CACHE_DIR not in (out / "MANIFEST.sha256").read_text()
    assert verify(out).ok


def test_cache_info_and_clear_on_the_command_line(demo_project: Path, tmp_path: Path) -> None:
    store = PreviewStore(cache_folder(demo_project))
    for path in sorted((demo_project / "cases").glob("*/*.png"))[:4]:
        store.make(path)
    info = run_cli("cache", "info", str(demo_project), home=tmp_path / "home")
    assert info.returncode == 0, info.stderr
    assert "previews 4" in info.stdout and str(store.folder) in info.stdout
    cleared = run_cli("cache", "clear", str(demo_project), home=tmp_path / "home")
    assert cleared.returncode == 0 and "removed 4 preview(s)" in cleared.stdout
    assert store.info().files == 0
    assert (demo_project / "sabre-project.json").exists()
    again = run_cli("cache", "info", str(tmp_path), home=tmp_path / "home")
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "sabre-project.json" in again.stderr


def test_a_png_is_decoded_the_same_with_or_without_a_cache(tmp_path: Path) -> None:
    """The cache never changes what the image is: the decoder reads the file as before."""
    pixels = rgb_array(64, 48, seed=5)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "PNG")
    source = tmp_path / "image.png"
    source.write_bytes(buf.getvalue())
    PreviewStore(tmp_path / "cache").make(source)  # too small for a preview: none stored
    assert PreviewStore(tmp_path / "cache").info().files == 0
    assert np.array_equal(load_image(source), pixels)


def test_a_cache_folder_that_is_a_link_is_never_written_through(
    demo_project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (demo_project / PROJECT_CACHE_DIR).symlink_to(elsewhere)
    store = PreviewStore(cache_folder(demo_project))
    assert store.make(demo_project / "cases" / "ctx01_tape_bagel" / "base.png")
    assert not any(elsewhere.iterdir())
    assert store.folder.is_relative_to(Path(os.environ["SABRE_DESK_CACHE_DIR"]))
