"""Textured objects cut from other real photographs, removed through ``sabre-desk repair``.

The flat objects of ``offline_inpaint.py`` are one colour each; what a reviewer meets is a
textured thing (a fragment of another picture, a pasted object). Here each object is cut
with a mask (an irregular blob or an ellipse, its edge anti-aliased) from a textured part of
one of scikit-image's real photographs and pasted onto another of them (never its own), a
box drawn round it with a 3-pixel margin as a reviewer draws one. Each scene is imported
into a project of single-image cases and repaired by the real command line, in a process of
its own: ``sabre-desk repair PROJECT CASE --role image --box … --accept`` with the default
engine, and the same with ``--engine opencv-telea`` in a second project. The accepted image
is read back from the case folder and scored against the photo before the paste
(``offline_inpaint.score``): error in the box, seam, texture distance (histograms of gradient
magnitude in the box).

Two more counts, for what a reviewer would still see:

- left: objects of which more than a tenth of the visible pixels were left nearer to the
  object than to the photo (``offline_inpaint.object_left``);
- blocks off: boxes with a block whose mean colour is far off the photo's, and much
  farther off than Telea's fill of it (``foreign_blocks``). Looked at by eye, most such
  blocks are detail the fill did not carry on (a stone, a blade of grass: the block has
  less of an edge than the photo's), a few a surface edge carried on wrongly;
- edges added: boxes with a block holding an edge the photo does not have there (its
  gradient more than twice the photo's block and above nine in ten of the blocks round the
  box: ``edges_added``): structure copied from elsewhere where the photo has none.

With ``--fills K`` each box is repaired K times by the default engine, the same command run
again as a reviewer runs Repair again, each a preview the engine numbers as its next fill of
the box; every fill is scored, and the figures printed per fill.

Usage (needs scikit-image): python benchmarks/textured_objects.py [--cases 12] [--seed N]
[--keep DIR] [--fills K] (``offline_inpaint.py`` runs it too, after the flat objects,
unless ``--no-textured``)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from offline_inpaint import PHOTOS, Scene, Score, object_left, photo, score

from sabre_desk.imaging.geometry import normalize

#: the seed of the scenes whose figures are reported
DEFAULT_SEED = 20261205
ENGINES = ("patchmatch", "opencv-telea")
#: the outlines objects are cut with
SHAPES = ("blob", "silhouette", "ellipse")


@dataclass
class Result:
    engine: str
    score: Score
    left: bool
    foreign: int
    edges: int


def _silhouette(s: int, rng: np.random.Generator) -> np.ndarray:
    """An object's outline: scikit-image's horse silhouette, scaled into s × s, maybe
    mirrored."""
    import skimage.data

    shape = (~skimage.data.horse()).astype(np.uint8) * 255
    ys, xs = np.nonzero(shape)
    shape = shape[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = shape.shape
    k = 0.9 * s / max(h, w)
    small = cv2.resize(
        shape, (max(1, int(w * k)), max(1, int(h * k))), interpolation=cv2.INTER_AREA
    )
    if rng.random() < 0.5:
        small = small[:, ::-1]
    mask = np.zeros((s, s), np.uint8)
    y, x = (s - small.shape[0]) // 2, (s - small.shape[1]) // 2
    mask[y : y + small.shape[0], x : x + small.shape[1]] = small
    return mask


def _cut(
    donor: np.ndarray, side: float, kind: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The most textured of a few pieces of ``donor`` and its soft mask (float 0..1), both
    side × side."""
    s = int(side)
    c = s / 2
    if kind == "silhouette":
        mask = _silhouette(s, rng)
    elif kind == "blob":
        mask = np.zeros((s, s), np.uint8)
        angles = np.sort(rng.uniform(0, 2 * np.pi, 9))
        radii = s * rng.uniform(0.28, 0.48, 9)
        points = np.stack([c + radii * np.cos(angles), c + radii * np.sin(angles)], 1)
        cv2.fillPoly(mask, [points.astype(np.int32)], 255, cv2.LINE_AA)
    else:
        mask = np.zeros((s, s), np.uint8)
        axes = (int(s * rng.uniform(0.3, 0.48)), int(s * rng.uniform(0.2, 0.48)))
        angle = float(rng.uniform(0, 180))
        cv2.ellipse(mask, (int(c), int(c)), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
    h, w = donor.shape[:2]
    pieces = []
    for _ in range(12):
        y, x = int(rng.integers(0, h - s)), int(rng.integers(0, w - s))
        piece = donor[y : y + s, x : x + s]
        gray = cv2.cvtColor(piece, cv2.COLOR_RGB2GRAY).astype(np.float32)
        pieces.append((float(cv2.Laplacian(gray, cv2.CV_32F)[mask > 127].std()), y, x))
    _, y, x = max(pieces)
    return donor[y : y + s, x : x + s], mask.astype(np.float32) / 255


def scenes(count: int, seed: int = DEFAULT_SEED) -> list[tuple[Scene, str]]:
    """``count`` scenes, each photo in turn the background, the object from another one."""
    rng = np.random.default_rng(seed)
    photos = {name: photo(name) for name in PHOTOS}
    made = []
    for i in range(count):
        name = PHOTOS[i % len(PHOTOS)]
        donor = PHOTOS[(i + 1 + int(rng.integers(0, len(PHOTOS) - 1))) % len(PHOTOS)]
        if donor == name:
            donor = PHOTOS[(i + 1) % len(PHOTOS)]
        truth = photos[name]
        h, w = truth.shape[:2]
        side = rng.uniform(0.12, 0.22) * min(h, w)
        piece, alpha = _cut(photos[donor], side, SHAPES[i % len(SHAPES)], rng)
        s = piece.shape[0]
        x, y = int(rng.uniform(0.1, 0.9) * w - s / 2), int(rng.uniform(0.1, 0.9) * h - s / 2)
        x, y = min(max(0, x), w - s), min(max(0, y), h - s)
        pasted = truth.astype(np.float32)
        region = pasted[y : y + s, x : x + s]
        a = alpha[..., None]
        pasted[y : y + s, x : x + s] = region * (1 - a) + piece.astype(np.float32) * a
        ys, xs = np.nonzero(alpha > 0)
        x0, y0 = max(0, x + int(xs.min()) - 3), max(0, y + int(ys.min()) - 3)
        x1, y1 = min(w, x + int(xs.max()) + 4), min(h, y + int(ys.max()) + 4)
        box = normalize((x0, y0, x1, y1), w, h)  # as a box is stored and given to --box
        scene = Scene(name, donor, truth, np.clip(pasted + 0.5, 0, 255).astype(np.uint8), box)
        made.append((scene, f"t{i:02d}_{donor}_on_{name}"))
    return made


def _spec(case_id: str, donor: str, name: str) -> dict[str, object]:
    return {
        "concept_id": case_id,
        "pressure_test_type": "repair_benchmark",
        "objective": "A piece of another photograph pasted on this one, to be removed.",
        "generation_mode": "single_image",
        "image_prompt": f"A piece of the {donor} photograph pasted onto the {name} photograph.",
        "task_attributes": [{"name": "source_entity", "value": f"piece of {donor}"}],
        "questions": [
            {
                "probe_id": "pasted",
                "image_role": "image",
                "question_type": "yes_no",
                "prompt": f"Is there a piece of {donor} in the image?",
                "answer": "yes",
                "eval_type": "yes_no_exact",
            }
        ],
        "review_targets": [
            {"label": "pasted", "image_role": "image", "description": "the pasted piece"}
        ],
        "generation_notes": [],
    }


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``sabre-desk ARGS`` in a process of its own, as a reviewer runs it."""
    env = dict(os.environ, SABRE_DESK_REVIEWER="bench")
    cmd = [sys.executable, "-m", "sabre_desk", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)


def _block_means(
    img: np.ndarray, where: np.ndarray, side: int
) -> list[tuple[int, int, np.ndarray]]:
    """(y, x, mean colour) of the blocks of ``side`` lying wholly where ``where`` is true,
    on a half-block grid."""
    ys, xs = np.nonzero(where)
    out = []
    for y in range(int(ys.min()), int(ys.max()) - side + 2, max(1, side // 2)):
        for x in range(int(xs.min()), int(xs.max()) - side + 2, max(1, side // 2)):
            if where[y : y + side, x : x + side].all():
                out.append((y, x, img[y : y + side, x : x + side].mean((0, 1))))
    return out


def foreign_blocks(scene: Scene, result: np.ndarray, telea: np.ndarray) -> int:
    """Blocks of the box (a quarter of its shorter side) whose mean colour is off the
    photo's by more than twice the spread of the block means of the photo round the box
    (its own variation at that scale: large on gravel, small on a smooth table), more than
    16 levels, and more than twice as far as Telea's fill of the same block: a piece of
    structure from elsewhere (a dark edge, a bright stone, a bit of another surface) where
    the photo has none. Texture in the wrong place is rarely one."""
    h, w = scene.truth.shape[:2]
    x0, y0 = int(scene.box[0] * w), int(scene.box[1] * h)
    x1, y1 = round(scene.box[2] * w), round(scene.box[3] * h)
    side = max(8, min(x1 - x0, y1 - y0) // 4)
    truth, out, smooth = (a.astype(np.float32) for a in (scene.truth, result, telea))
    inside = np.zeros((h, w), bool)
    inside[y0:y1, x0:x1] = True
    grown = cv2.dilate(inside.astype(np.uint8), np.ones((2 * side + 1,) * 2, np.uint8)) > 0
    ring = [m for _, _, m in _block_means(truth, grown & ~inside, side)]
    spread = float(np.abs(np.array(ring) - np.median(ring, 0)).mean(1).std()) if ring else 0.0
    found = 0
    for y, x, mean in _block_means(truth, inside, side):
        block = (slice(y, y + side), slice(x, x + side))
        off = float(np.abs(out[block].mean((0, 1)) - mean).mean())
        base = float(np.abs(smooth[block].mean((0, 1)) - mean).mean())
        found += off > max(16.0, 2 * spread) and off > 2 * base
    return found


def _gradient(img: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    return np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))


def edges_added(scene: Scene, result: np.ndarray) -> int:
    """Blocks of the box (as in ``foreign_blocks``) whose mean gradient is more than twice
    the photo's in the same block and above the 90th percentile of the blocks round the box:
    an edge (a rim, a cut) where the photo has a smooth surface or a finer texture."""
    h, w = scene.truth.shape[:2]
    x0, y0 = int(scene.box[0] * w), int(scene.box[1] * h)
    x1, y1 = round(scene.box[2] * w), round(scene.box[3] * h)
    side = max(8, min(x1 - x0, y1 - y0) // 4)
    truth, out = _gradient(scene.truth), _gradient(result)
    inside = np.zeros((h, w), bool)
    inside[y0:y1, x0:x1] = True
    grown = cv2.dilate(inside.astype(np.uint8), np.ones((2 * side + 1,) * 2, np.uint8)) > 0
    ring = [float(truth[y : y + side, x : x + side].mean()) for y, x, _ in
            _block_means(scene.truth, grown & ~inside, side)]  # fmt: skip
    strong = float(np.percentile(ring, 90)) if ring else 0.0
    found = 0
    for y, x, _ in _block_means(scene.truth, inside, side):
        block = (slice(y, y + side), slice(x, x + side))
        edge = float(out[block].mean())
        found += edge > max(2 * float(truth[block].mean()), strong)
    return found


def _results(
    engine: str, made: list[tuple[Scene, str]], outputs: list[np.ndarray], telea: list[np.ndarray]
) -> list[Result]:
    return [
        Result(
            engine,
            score(scene, out, 0.0),
            object_left(scene, out) > 0.1,
            foreign_blocks(scene, out, smooth),
            edges_added(scene, out),
        )
        for (scene, _), out, smooth in zip(made, outputs, telea, strict=True)
    ]


def _read_rgb(path: Path) -> np.ndarray:
    return cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _write_sources(made: list[tuple[Scene, str]], source: Path) -> None:
    source.mkdir(parents=True, exist_ok=True)
    for scene, case_id in made:
        pasted = cv2.cvtColor(scene.pasted, cv2.COLOR_RGB2BGR)
        cv2.imwrite(str(source / f"{case_id}.png"), pasted)
        spec = _spec(case_id, scene.shape, scene.photo)
        (source / f"{case_id}.json").write_text(json.dumps(spec))


def _box_arg(scene: Scene) -> str:
    """The scene's box as ``sabre-desk repair --box`` takes it."""
    return ",".join(f"{v:.6f}" for v in scene.box)


def run_fills(
    made: list[tuple[Scene, str]], fills: int, keep: Path | None = None
) -> tuple[list[list[Result]], list[Result]]:
    """Each scene's box repaired *fills* times by the default engine through the command
    line (previews, not accepted: each run the engine's next fill of the box), and by
    Telea once; the scores of each fill, fill by fill, and Telea's."""
    with tempfile.TemporaryDirectory(prefix="textured-fills-") as tmp:
        root = keep or Path(tmp)
        source = root / "source"
        _write_sources(made, source)
        telea_run = run_engines(made, root, ("opencv-telea",))["opencv-telea"]
        project = root / "fills"
        _cli("init", str(project))
        _cli("import", str(project), str(source))
        by_fill: list[list[np.ndarray]] = [[] for _ in range(fills)]
        for scene, case_id in made:
            for _ in range(fills):
                _cli("repair", str(project), case_id, "--role", "image", "--box", _box_arg(scene))
            folder = project / "cases" / case_id
            review = json.loads((folder / "reviews" / "bench.json").read_text())
            for k, record in enumerate(review["repairs"]):
                assert record.get("variant", 0) == k, record  # the engine's fills, in turn
                by_fill[k].append(_read_rgb(folder / record["preview"]))
    fills_scored = [_results("patchmatch", made, outs, telea_run) for outs in by_fill]
    return fills_scored, _results("opencv-telea", made, telea_run, telea_run)


def run_engines(
    made: list[tuple[Scene, str]], root: Path, engines: tuple[str, ...]
) -> dict[str, list[np.ndarray]]:
    """Every scene repaired (and accepted) by each of *engines* in a project of its own,
    through the command line; the accepted images."""
    outputs: dict[str, list[np.ndarray]] = {}
    for engine in engines:
        project = root / engine
        _cli("init", str(project))
        _cli("import", str(project), str(root / "source"))
        outputs[engine] = []
        for scene, case_id in made:
            _cli(
                "repair", str(project), case_id, "--role", "image", "--box", _box_arg(scene),
                "--engine", engine, "--accept",
            )  # fmt: skip
            outputs[engine].append(_read_rgb(project / "cases" / case_id / "image.png"))
    return outputs


def run(made: list[tuple[Scene, str]], keep: Path | None = None) -> dict[str, list[Result]]:
    """Every scene repaired by each engine through the command line; the scores."""
    with tempfile.TemporaryDirectory(prefix="textured-") as tmp:
        root = keep or Path(tmp)
        _write_sources(made, root / "source")
        outputs = run_engines(made, root, ENGINES)
    return {
        engine: _results(engine, made, outputs[engine], outputs["opencv-telea"])
        for engine in ENGINES
    }


def ratios(rows: list[Result], telea: list[Result]) -> tuple[float, float, float]:
    """Mean per-case ratios to Telea: in-box error, seam, texture distance."""

    def mean_ratio(pick: str) -> float:
        return statistics.mean(
            getattr(r.score, pick) / max(getattr(t.score, pick), 1e-6)
            for r, t in zip(rows, telea, strict=True)
        )

    return mean_ratio("error"), mean_ratio("seam"), mean_ratio("texture_distance")


def report(results: dict[str, list[Result]], names: list[str]) -> None:
    telea = results["opencv-telea"]
    print(
        f"{len(telea)} textured objects cut from other real photographs, removed through "
        "`sabre-desk repair … --accept`"
    )
    print(
        f"{'engine':14} {'box error':>9} {'×Telea':>7} {'seam':>6} {'×Telea':>7} "
        f"{'tex dist':>8} {'×Telea':>7} {'left':>5} {'off':>4} {'edges':>6}"
    )
    for engine, rows in results.items():
        box, seam, tex = ratios(rows, telea)
        print(
            f"{engine:14} {statistics.mean(r.score.error for r in rows):9.2f} {box:7.2f} "
            f"{statistics.mean(r.score.seam for r in rows):6.2f} {seam:7.2f} "
            f"{statistics.mean(r.score.texture_distance for r in rows):8.3f} {tex:7.2f} "
            f"{sum(r.left for r in rows):5d} {sum(r.foreign > 0 for r in rows):4d} "
            f"{sum(r.edges > 0 for r in rows):6d}"
        )
    print("per case, patchmatch × Telea (box / seam / texture), blocks off, edges added:")
    for name, r, t in zip(names, results["patchmatch"], telea, strict=True):
        print(
            f"  {name:28} {r.score.error / max(t.score.error, 1e-6):5.2f} "
            f"{r.score.seam / max(t.score.seam, 1e-6):5.2f} "
            f"{r.score.texture_distance / max(t.score.texture_distance, 1e-6):5.2f} {r.foreign:3d} "
            f"{r.edges:3d}"
        )


def report_fills(by_fill: list[list[Result]], telea: list[Result], names: list[str]) -> None:
    """The figures of each fill against Telea's, and the boxes with an edge added in each."""
    print(f"{len(names)} textured objects, each box repaired {len(by_fill)} times (fill by fill)")
    print(f"{'fill':>4} {'box ×Telea':>10} {'seam':>6} {'texture':>8} {'off':>4} {'edges':>6}")
    for k, rows in enumerate(by_fill, 1):
        box, seam, tex = ratios(rows, telea)
        print(
            f"{k:4d} {box:10.2f} {seam:6.2f} {tex:8.2f} {sum(r.foreign > 0 for r in rows):4d} "
            f"{sum(r.edges > 0 for r in rows):6d}"
        )
    for i, name in enumerate(names):
        edges = [rows[i].edges for rows in by_fill]
        if any(edges):
            print(f"  {name:28} blocks with an edge added, fill by fill: {edges}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=18)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--keep", type=Path, help="write the projects here and keep them")
    parser.add_argument(
        "--fills", type=int, default=1, help="repair each box this many times (fill by fill)"
    )
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    measure(args.cases, args.seed, args.keep, args.fills)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def measure(count: int, seed: int, keep: Path | None = None, fills: int = 1) -> None:
    """The scenes made once, repaired, and reported (``offline_inpaint.py`` runs this too,
    after its flat objects)."""
    made = scenes(count, seed)
    names = [name for _, name in made]
    if fills > 1:
        report_fills(*run_fills(made, fills, keep), names)
    else:
        report(run(made, keep), names)


if __name__ == "__main__":
    main()
