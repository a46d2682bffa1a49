"""The blind repair study: candidates made four ways, Method 1-4 shuffled per question and
recorded, one required pick each, and the paper's Table 8 from the sessions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from factories import run_cli
from fakes.gemini_server import serving
from PIL import Image
from PySide6.QtCore import Qt

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.repair.study import load_study, shown_order
from sabre_desk.gui.repair.study_session import StudyDialog

DEFECTS = [
    "ctx03_wrench_banana=0.345,0.595,0.41,0.69",
    "tex01_mug_brick=0.40,0.60,0.51,0.78",
    "ctx01_tape_bagel=0.45,0.56,0.59,0.76",
]


def pixels(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB")).astype(int)


def test_three_cases_two_participants_give_table_8(
    qtbot, demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A generative engine (the real client, a fake Gemini on 127.0.0.1) redraws the whole
    # patch, so its soft blend and hard paste differ; an offline engine changes only the
    # box, and the two would be the same image
    with serving(monkeypatch, "study-key-" + "s" * 24):
        made = run_cli(
            "study",
            "new",
            str(demo_project),
            "pilot",
            *[f"--case={d}" for d in DEFECTS],
            "--engine=gemini",
            home=tmp_path,
            timeout=300,
        )
    assert made.returncode == 0, made.stderr
    folder = demo_project / "studies" / "pilot"
    project = Project.open(demo_project, "alice")
    study = load_study(project, "pilot")
    assert [q.case_id for q in study.questions] == [d.split("=")[0] for d in DEFECTS]
    q = study.questions[0]
    original = pixels(demo_project / "cases" / q.case_id / "edited.png")
    soft, hard = (pixels(folder / "candidates" / q.candidates[m]) for m in ("soft", "hard"))
    assert not np.array_equal(soft, hard)  # one patch, two ways of putting it back
    assert np.array_equal(soft[:50], original[:50])  # far from the box: untouched
    assert validate_project(project).valid  # the study lies outside what is validated

    # P01 always picks the soft blend; P02 the soft blend twice, then the hard paste.
    wanted = {"P01": ["soft", "soft", "soft"], "P02": ["soft", "hard", "soft"]}
    for participant, methods in wanted.items():
        dialog = StudyDialog(project, study, participant)
        qtbot.addWidget(dialog)
        for number, method in enumerate(methods):
            assert dialog.progress.text() == f"Question {number + 1} of 3"
            assert [b.text() for b in dialog.choices] == [f"Method {i}" for i in range(1, 5)]
            position = shown_order(study, participant, number).index(method) + 1
            if number == 1 and participant == "P01":
                dialog.close()  # leave mid-way: the session resumes at question 2
                dialog = StudyDialog(project, study, participant)
                qtbot.addWidget(dialog)
                assert dialog.progress.text() == "Question 2 of 3"
            qtbot.keyClick(dialog, Qt.Key(Qt.Key.Key_0 + position))
        assert "All 3 questions answered" in dialog.progress.text()
        saved = json.loads((folder / "sessions" / f"{participant}.json").read_text())
        assert [p["chosen"] for p in saved["picks"]] == methods
        assert all(sorted(p["shown"]) == sorted(study.methods) for p in saved["picks"])
    orders = {tuple(shown_order(study, p, n)) for p in wanted for n in range(3)}
    assert len(orders) > 1  # shuffled, not one fixed order

    done = run_cli("study", "report", str(demo_project), "pilot", "--json", home=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["completed_sessions"] == 2 and report["selections"] == 6
    by = {m["key"]: m for m in report["methods"]}
    assert by["soft"]["votes"] == 5 and by["hard"]["votes"] == 1 and by["whole"]["votes"] == 0
    assert abs(by["soft"]["preference"] - 5 / 6) < 1e-9
    assert abs(by["soft"]["participant_sd"] - 0.2357) < 1e-3
    assert (by["soft"]["participant_min"], by["soft"]["participant_max"]) == (2 / 3, 1.0)
    table = run_cli("study", "report", str(demo_project), "pilot", home=tmp_path)
    assert "patch + soft blend" in table.stdout and "83.3" in table.stdout
