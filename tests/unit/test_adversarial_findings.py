"""Findings of an adversarial run, each as it was reproduced: races between windows over
repairs, settings that must survive, screenshots that must end, numbers JSON allows and
Python refuses."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from factories import rgb_array, run_cli

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import repairs
from sabre_desk.engines.opencv import FsrEngine
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.ground.errors import StorageError
from sabre_desk.imaging.io import encode_png, load_image
from sabre_desk.settings import Settings, save_settings, settings_path

CASE = "ctx03_wrench_banana"
HUGE = "9" * 5000


def test_repairs_finishing_in_the_same_second_keep_their_own_files(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repairs, "_stamp", lambda: "20261129T000000Z")
    case = Project.open(demo_project, "alice").load_case(CASE)
    images = [rgb_array(300, 200, seed=i) for i in range(8)]
    saved: list[tuple[str, np.ndarray]] = []
    start = threading.Barrier(len(images))

    def save(pixels: np.ndarray) -> None:
        start.wait()
        record, _ = repairs.save_preview(
            case,
            ImageRole.EDITED,
            encode_png(pixels),
            "x",
            {"op": "remove", "box": (0.1, 0.1, 0.2, 0.2)},
        )
        saved.append((record.preview, pixels))

    threads = [threading.Thread(target=save, args=(p,)) for p in images]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({name for name, _ in saved}) == len(images)
    for name, pixels in saved:
        assert np.array_equal(load_image(case.folder / name), pixels)


def test_a_second_window_does_not_roll_back_an_accept_still_running(demo_project: Path) -> None:
    first = Project.open(demo_project, "alice")
    case = first.load_case(CASE)
    order = RepairOrder((0.3, 0.55, 0.45, 0.7), "remove", "x")
    record, _ = repairs.compute_preview(case, ImageRole.EDITED, order, FsrEngine())
    repairs.add_preview(first, case, record)
    journaled, go_on = threading.Event(), threading.Event()

    def pause(step: str) -> None:
        if step == "journal":
            journaled.set()
            go_on.wait(10)

    accepting = threading.Thread(target=repairs.accept, args=(first, case, record.id, pause))
    accepting.start()
    assert journaled.wait(10)
    second = Project.open(demo_project, "alice")  # the same reviewer's other window
    other = second.load_case(CASE)
    assert repairs.needs_recovery(other)
    notes = repairs.recover(second, other)
    assert notes and "another window" in notes[0]
    go_on.set()
    accepting.join(10)
    final = Project.open(demo_project, "alice").load_case(CASE)
    (done,) = final.review.repairs
    assert done.status == "accepted" and done.backup is not None
    assert final.review.decision is not None and final.review.decision.value == "needs_recheck"


def test_a_settings_file_that_cannot_be_read_is_never_overwritten(tmp_path: Path) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = '{"reviewer": "alice", "pool_size": 8, "gemini_model": "my-model",}\n'
    path.write_text(broken)
    with pytest.raises(StorageError, match="left as it is"):
        save_settings(Settings())
    assert path.read_text() == broken


def test_screenshots_end_with_one_line_on_a_bad_case_or_a_bad_path(
    demo_project: Path, tmp_path: Path
) -> None:
    done = run_cli(
        "open",
        str(demo_project),
        "--case",
        "nope",
        "--screenshot",
        str(tmp_path / "a.png"),
        home=tmp_path,
    )
    assert done.returncode == 1 and "no case 'nope'" in done.stderr
    assert done.stderr.count("\n") == 1
    (tmp_path / "afile").write_text("")
    done = run_cli(
        "open",
        str(demo_project),
        "--case",
        CASE,
        "--screenshot",
        str(tmp_path / "afile" / "x.png"),
        home=tmp_path,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "afile" in done.stderr


def test_an_integer_of_5000_digits_is_a_file_problem_not_a_crash(
    demo_project: Path, tmp_path: Path
) -> None:
    reviews = demo_project / "cases" / CASE / "reviews"
    reviews.mkdir(exist_ok=True)
    (reviews / "bob.json").write_text(
        f'{{"case_id": "{CASE}", "reviewer": "bob", "decision": "keep", "x": {HUGE}}}'
    )
    done = run_cli("validate", str(demo_project), "--reviewer", "alice", home=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr and not done.stderr
    assert any("bob.json" in line and "digits" in line for line in done.stdout.splitlines())
    done = run_cli(
        "export", str(demo_project), str(tmp_path / "rel"), "--reviewer", "alice", home=tmp_path
    )
    assert done.returncode == 0, done.stderr


def test_a_huge_integer_in_the_settings_is_ignored_with_a_warning(
    demo_project: Path, tmp_path: Path
) -> None:
    (tmp_path / "settings.json").write_text(f'{{"version": {HUGE}}}')
    done = run_cli("stats", str(demo_project), home=tmp_path)
    assert done.returncode == 0 and "settings ignored" in done.stderr


def test_a_damaged_window_layout_is_ignored(demo_project: Path, tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(
        json.dumps({"reviewer": "alice", "window_geometry": "!!!notbase64"})
    )
    done = run_cli(
        "open",
        str(demo_project),
        "--case",
        CASE,
        "--screenshot",
        str(tmp_path / "s.png"),
        home=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "s.png").stat().st_size > 0


@pytest.mark.parametrize(
    "line",
    ['{"index": Infinity, "response": "x"}', '{"index": 1e400, "response": "x"}', "[" * 100_000],
)
def test_score_names_the_line_of_a_prediction_python_cannot_hold(
    demo_project: Path, tmp_path: Path, line: str, make_release: Callable[[Path], Path]
) -> None:
    release = make_release(tmp_path)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(line + "\n")
    done = run_cli("score", str(release), str(predictions), home=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "predictions.jsonl" in done.stderr and "line 1" in done.stderr


def test_verify_refuses_a_release_json_python_cannot_hold(
    tmp_path: Path, make_release: Callable[[Path], Path]
) -> None:
    release = make_release(tmp_path)
    text = (release / "release.json").read_text().rstrip()
    (release / "release.json").write_text(text[:-1] + f', "x": {HUGE}}}')
    done = run_cli("verify", str(release), home=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "release.json" in done.stdout + done.stderr


def test_a_primer_with_a_huge_integer_is_one_error(tmp_path: Path) -> None:
    primer = tmp_path / "p.md"
    primer.write_text(f'+++\nname = "p"\nx = {HUGE}\n+++\nDesign\n')
    done = run_cli("primer", "check", str(primer), home=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "p.md" in done.stderr


@pytest.fixture
def make_release(demo_project: Path) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        project = Project.open(demo_project, "alice")
        case = project.load_case("ctx01_tape_bagel")
        case.review.decision = repairs.Decision.KEEP
        project.save_review(case)
        from sabre_desk.core.release.export import export

        return export(Project.open(demo_project, "alice"), tmp / "release").out

    return make
