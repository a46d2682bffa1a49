"""New Case: the Edited image made from the reviewer's Base photo by a whole-image edit, with
the real google-genai client against the fake pipeline models."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fakes.gemini_server import FakeGemini, finish_reply, hang_reply, image_reply
from fakes.pipeline import PipelineModels, scene_png
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validate import validate_project
from sabre_desk.engines.gemini_make import GeminiImageMaker
from sabre_desk.ground.storage import read_history
from sabre_desk.gui.machinery.workers import POOL_THREAD_NICE, Worker
from sabre_desk.gui.making.make_edited import MakeEditedRow
from sabre_desk.gui.making.new_case_dialog import NewCaseDialog

Models = tuple[FakeGemini, PipelineModels]
INSTRUCTION = (
    "Replace only the stapler with one croissant, at the same place and size. Keep the "
    "camera, the lighting, the layout and every other object exactly as they are."
)


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    """A 4:3 photo of a desk, 800×600."""
    path = tmp_path / "phone" / "desk_base.png"
    path.parent.mkdir()
    path.write_bytes(scene_png("an office desk with a stapler", (800, 600)))
    return path


@pytest.fixture
def new_dialog(qtbot, context_project: Path) -> Callable[..., NewCaseDialog]:
    """The New Case dialog on a Context project, the Base photo chosen and the entities
    named; *timeout_s* bounds each call."""

    def make(photo: Path, timeout_s: float = 60.0) -> NewCaseDialog:
        project = Project.open(context_project, "alice")
        dialog = NewCaseDialog(
            project, None, lambda: GeminiImageMaker(timeout_s=timeout_s, attempts=1)
        )
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.set_image(ImageRole.BASE, photo)
        dialog.attribute_edits["source_entity"].setText("stapler")
        dialog.attribute_edits["target_entity"].setText("croissant")
        return dialog

    return make


def _make(qtbot, row: MakeEditedRow, instruction: str | None = None) -> None:
    """Press the button and the instruction's Make Edited (the instruction left or set)."""
    qtbot.mouseClick(row.button, Qt.MouseButton.LeftButton)
    assert row.dialog is not None and row.dialog.isVisible()
    if instruction is not None:
        row.dialog.text.setPlainText(instruction)
    ok = row.dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)


def _pixels(path: Path) -> np.ndarray:
    with Image.open(path) as img:
        return np.asarray(img.convert("RGB"))


def test_the_edited_image_is_made_from_the_base_photo_and_saved_with_its_provenance(
    qtbot,
    pipeline_models: Models,
    context_project: Path,
    photo: Path,
    new_dialog: Callable[..., NewCaseDialog],
) -> None:
    server, _ = pipeline_models
    dialog = new_dialog(photo)
    row = dialog.make_edited
    assert row.isVisible() and row.button.isEnabled()
    assert "Edited photo: choose one" in " ".join(dialog.current_problems)
    with qtbot.waitSignal(row.made, timeout=60_000) as made_signal:
        _make(qtbot, row)
        assert row.bar.isVisible() and row.cancel.isVisible()  # busy, and Cancel
        assert not row.button.isEnabled()
    made = made_signal.args[0]
    assert made.prompt == INSTRUCTION  # the primer's wording, the attributes filled in
    assert dialog.draft.images[ImageRole.EDITED] == made.path
    assert dialog.photos[ImageRole.EDITED].text() == f"Edited: made by {made.model}"
    assert dialog.current_problems == []
    qtbot.waitUntil(lambda: not row.bar.isVisible())

    sent = server.requests[-1]["body"]
    assert [p for p in sent["contents"][0]["parts"] if "inlineData" in p]  # the photo went
    assert sent["generationConfig"]["imageConfig"] == {"aspectRatio": "4:3", "imageSize": "1K"}
    edited, base = _pixels(made.path), _pixels(photo)
    assert edited.shape == base.shape  # the Base's size
    assert (edited[270:340, 350:450] != base[270:340, 350:450]).any()  # the object changed
    assert (edited[:100] == base[:100]).all()  # the rest did not
    (line,) = read_history(context_project / "ledger.jsonl").entries
    assert line["stage"] == "images" and line["model"] == made.model
    assert line["case_id"] == "desk"

    dialog.save()
    assert dialog.saved == "desk"
    spec = json.loads((context_project / "cases" / "desk" / "spec.json").read_text())
    assert spec["provenance"]["edited_by"] == {"model": made.model, "prompt": INSTRUCTION}
    assert spec["edit_prompt"] == INSTRUCTION
    record = spec["generation"]["images"]["edited"]
    assert (
        record["from"] == "base" and record["model"] == made.model and record["size"] == [800, 600]
    )
    saved = _pixels(context_project / "cases" / "desk" / "edited.png")
    assert (saved == edited).all()
    assert validate_project(Project.open(context_project, "alice")).valid
    assert not made.path.exists()  # the dialog's own folder is gone with it


def test_errors_are_said_with_their_reason_and_another_resolution_is_fitted(
    qtbot,
    pipeline_models: Models,
    context_project: Path,
    photo: Path,
    new_dialog: Callable[..., NewCaseDialog],
) -> None:
    _, answer = pipeline_models
    # long enough for a busy machine to start the call and read a quick reply (1 s was
    # not, on a loaded runner), short enough for the server that never answers
    dialog = new_dialog(photo, timeout_s=4.0)
    row = dialog.make_edited
    for reply, said in (
        (finish_reply("IMAGE_SAFETY"), "IMAGE_SAFETY"),
        (image_reply(1024, 1024), "came back 1024×1024, the Base is 800×600"),
        (hang_reply(), "within 4 s"),
    ):
        answer.image_script = [reply]
        with qtbot.waitSignal(row.failed, timeout=60_000) as failed:
            _make(qtbot, row)
        assert said in failed.args[0] and said in row.status.text()
        assert ImageRole.EDITED not in dialog.draft.images
        qtbot.waitUntil(row.button.isEnabled)  # ready to try again
    calls = read_history(context_project / "ledger.jsonl").entries
    assert [c["stage"] for c in calls] == ["images"] * 3  # every call, whatever came of it
    assert calls[-1]["usage"] is None  # the one that timed out: its cost is unknown

    answer.image_script = [image_reply(400, 300)]  # the shape right, a lower resolution
    with qtbot.waitSignal(row.made, timeout=60_000) as made:
        _make(qtbot, row)
    assert _pixels(made.args[0].path).shape[:2] == (600, 800)
    assert "resized to the Base's 800×600" in row.status.text()

    other = photo.with_name("other.png")  # another Base: the Edited made from the first goes
    other.write_bytes(scene_png("another desk", (800, 600)))
    dialog.set_image(ImageRole.BASE, other)
    assert ImageRole.EDITED not in dialog.draft.images and dialog.draft.made_edited is None
    assert "make the Edited image again" in row.status.text()


def test_cancel_stops_the_call_and_nothing_is_made(
    qtbot, pipeline_models: Models, photo: Path, new_dialog: Callable[..., NewCaseDialog]
) -> None:
    server, _ = pipeline_models
    server.latency_s = 60.0
    dialog = new_dialog(photo)
    row = dialog.make_edited
    with qtbot.waitSignal(row.failed, timeout=60_000) as failed:
        _make(qtbot, row, "Replace only the stapler with one croissant.")
        qtbot.waitUntil(lambda: server.in_flight >= 1, timeout=30_000)
        qtbot.mouseClick(row.cancel, Qt.MouseButton.LeftButton)
    assert failed.args[0].startswith("cancelled")
    assert "client hung up" in server.wait_for_outcomes(1)
    assert ImageRole.EDITED not in dialog.draft.images
    qtbot.waitUntil(row.button.isEnabled)


def test_without_a_key_or_a_base_photo_it_cannot_start_and_says_why(
    qtbot, context_project: Path, photo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    dialog = NewCaseDialog(Project.open(context_project, "alice"))
    qtbot.addWidget(dialog)
    dialog.show()
    row = dialog.make_edited
    assert not row.button.isEnabled() and row.button.toolTip() == "Choose the Base photo first."
    dialog.set_image(ImageRole.BASE, photo)
    assert not row.button.isEnabled() and "GEMINI_API_KEY" in row.button.toolTip()
    dialog.primer.setCurrentIndex(dialog.primer.findData(None))  # no primer: a single image
    dialog.kind.setCurrentIndex(dialog.kind.findData(dialog.draft.mode.SINGLE_IMAGE))
    assert not row.isVisible()  # only a pair has an Edited image


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness")
def test_the_edited_image_is_made_at_the_priority_of_what_the_user_waits_for(
    qtbot, photo: Path, new_dialog: Callable[..., NewCaseDialog]
) -> None:
    """Five steps below the window, as the images on screen, not fifteen with the reading
    ahead: on a machine busy with other programs the call's own work (sending the photo,
    reading the reply) crawled, and a reply that had come was taken for a timeout."""
    seen: list[int] = []
    worker = Worker(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    worker.returned.connect(seen.append)
    worker.start(new_dialog(photo).make_edited.pool)
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    assert seen == [min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + POOL_THREAD_NICE)]
