"""Nothing the app writes is too large for its own reader: model replies of any length,
screened again and again, generated into specifications or predictions, leave files the
app still reads (the one table of limits, ``ground.reading.LIMITS``)."""

from __future__ import annotations

import json
import shutil
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from factories import release_of, yes_no_spec
from fakes.gemini_server import FakeGemini, serving, text_reply
from fakes.pipeline import PipelineModels
from PIL import Image

from sabre_desk.cli import main
from sabre_desk.core.case.preview_cache import PreviewStore, stamp
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.screening import (
    COMPACTED_NOTE,
    ProbeResult,
    ScreeningRun,
    append_run,
    read_record,
)
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.making.image_maker import make_images
from sabre_desk.core.making.importing import import_cases
from sabre_desk.core.making.incoming import staged_cases
from sabre_desk.core.making.spec_writer import write_specs
from sabre_desk.engines.gemini_make import GeminiImageMaker, GeminiWriter
from sabre_desk.ground import reading
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.reading import LIMITS
from sabre_desk.ground.storage import atomic_write_json
from sabre_desk.imaging.io import load_image
from sabre_desk.imaging.preview_file import MAGIC, preview_mac
from sabre_desk.imaging.pyramid import display_levels

KEY = "hostile-key-" + "h" * 24
CASE = "count01_apples"
HUGE = "It is hard to say. " * (800 * 1024 // 19)  # an 800 KB answer


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with serving(monkeypatch, KEY) as server:
        yield server


def test_a_writer_refuses_what_its_reader_would_call_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LIMITS, "spec", 1024)
    path = tmp_path / "spec.json"
    atomic_write_json(path, {"concept_id": "small"}, kind="spec")
    with pytest.raises(StorageError) as caught:
        atomic_write_json(path, {"concept_id": "x" * 2000}, kind="spec")
    assert "over the 1.0 KB limit for a spec file" in caught.value.message
    assert json.loads(path.read_text()) == {"concept_id": "small"}  # the old one is intact


def test_six_screenings_with_800_kb_answers_keep_the_case_valid(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.answer = lambda body: text_reply(HUGE)
    for _ in range(6):
        code = main(
            ["--reviewer", "alice", "screen", str(demo_project), "--cases", CASE, "--no-cache"]
        )
        assert code == 1  # each probe failed: the answer is no answer
    _, err = capsys.readouterr()
    # refused as it arrives: the client reads no more than an answer of its tokens can be
    assert "the limit for an answer of at most" in err and "it was not read" in err
    folder = demo_project / "cases" / CASE
    assert (folder / "screening.json").stat().st_size < 64 * 1024
    assert not any(
        p.stat().st_size > 4096 for p in (demo_project / "cache").rglob("*.json")
    )  # no reply in the request cache either
    entry = Project.open(demo_project, "alice").entry(CASE)
    assert entry is not None and entry.problem is None
    assert main(["--reviewer", "alice", "validate", str(demo_project)]) == 0
    record = read_record(folder)
    assert record is not None and len(record.runs) == 7  # the demo's run and six more
    assert all(r.failed and "limit" in r.failed for r in record.runs[-1].results.values())


def _run(text: str) -> ScreeningRun:
    result = ProbeResult(response=text, parsed="yes", correct=True, question="Is it?")
    return ScreeningRun(model="m", at="2026-01-01T00:00:00Z", results={"p": result})


def test_screening_json_stays_readable_however_often_a_case_is_screened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs written by anything (an older version kept whole replies) are compacted, the
    oldest first: their raw answers go, their verdicts stay; the latest run stays whole."""
    monkeypatch.setitem(reading.LIMITS, "screening", 64 * 1024)
    for n in range(30):
        append_run(tmp_path, _run(f"{n} " + "yes " * 2000))
    assert (tmp_path / "screening.json").stat().st_size <= 64 * 1024
    record = read_record(tmp_path)
    assert record is not None
    latest = record.runs[-1]
    assert latest.results["p"].response.startswith("29 ") and latest.note is None
    earlier = record.runs[:-1]
    assert len(earlier) >= 10
    assert earlier[0].note == COMPACTED_NOTE and earlier[0].results["p"].response == ""
    assert all(r.results["p"].correct and r.results["p"].parsed == "yes" for r in earlier)


def test_a_rejected_1_mb_reply_is_not_kept_in_the_accepted_spec(
    context_project: Path, pipeline_models: tuple[FakeGemini, PipelineModels]
) -> None:
    """The reply that was refused leaves its reason and its length; `generate images` then
    reads the accepted specification like any other."""
    _, answer = pipeline_models
    # under what a specification reply may weigh on the wire, far over what is kept of one
    junk = "not a specification " * (1024 * 1024 // 20)
    answer.spec_script = [junk]
    with GeminiWriter() as writer:
        primer = PrimerLibrary.for_project(None).primers["context"]
        report = write_specs(context_project, primer, 1, writer, threading.Event(), tries=3)
    assert len(report.written) == 1
    [staged] = staged_cases(context_project)
    spec_file = staged.folder / "spec.json"
    assert spec_file.stat().st_size < 64 * 1024
    first, accepted = json.loads(spec_file.read_text())["generation"]["attempts"]
    assert first["reply"] is None and first["reply_chars"] > 1_000_000
    assert "not JSON" in first["problems"][0]
    assert accepted["problems"] == [] and json.loads(accepted["reply"])["concept_id"]
    with GeminiImageMaker() as maker:
        made = make_images(context_project, maker, threading.Event(), concurrency=1)
    assert not made.failed, made.failed


@pytest.mark.parametrize(
    "megabytes", [2, pytest.param(20, marks=[pytest.mark.stress, pytest.mark.timeout(600)])]
)
def test_predictions_of_a_rambling_model_are_read_by_score(
    demo_project: Path,
    fake: FakeGemini,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    megabytes: int,
) -> None:
    """Every line predict writes is a line score reads: a reply of megabytes is kept as a
    failure with its length, never whole (20 MB replies once made a 126 MB file)."""
    release = release_of(demo_project, tmp_path / "release")
    reply = text_reply("B " * (megabytes * 512 * 1024))
    fake.answer = lambda body: reply
    out = tmp_path / "preds.jsonl"
    assert main(["predict", str(release), "--out", str(out)]) == 1  # every question asked
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["response"] is None and "limit" in r["failure"] for r in rows)
    assert out.stat().st_size < 1024 * len(rows)
    capsys.readouterr()
    assert main(["score", str(release), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["missing_predictions"] == len(rows)


def test_a_review_too_large_for_its_reader_is_not_written(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case("count01_apples")
    case.review.decision = Decision.KEEP
    project.save_review(case)
    before = case.review_path.read_bytes()
    monkeypatch.setitem(LIMITS, "review", len(before) + 1024)
    case.review.notes = "n" * 4096
    with pytest.raises(StorageError) as caught:
        project.save_review(case)
    assert "over the" in caught.value.reason and "limit for a review file" in caught.value.reason
    assert case.review_path.read_bytes() == before


# --- the preview cache: a cache, never a way to show the wrong picture --------------------


def _photo(path: Path, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    pixels = np.zeros((900, 1200, 3), np.uint8)
    pixels[:] = rng.integers(0, 255, 3)
    pixels[100:400, 200:700] = rng.integers(0, 255, 3)
    Image.fromarray(pixels).save(path)
    return path


def _header_of(data: bytes) -> tuple[dict[str, object], bytes]:
    start = len(MAGIC) + 4
    (length,) = struct.unpack(">I", data[len(MAGIC) : start])
    return json.loads(data[start : start + length]), data[start + length :]


def _with_header(header: dict[str, object], blobs: bytes) -> bytes:
    raw = json.dumps(header).encode()
    return MAGIC + struct.pack(">I", len(raw)) + raw + blobs


def test_a_preview_nested_30000_deep_is_discarded_and_made_again(tmp_path: Path) -> None:
    store = PreviewStore(tmp_path / "previews")
    source = _photo(tmp_path / "base.png", 1)
    file = store.file_for(stamp(source))  # type: ignore[arg-type]
    file.parent.mkdir(parents=True)
    deep = b"[" * 30_000 + b"]" * 30_000
    file.write_bytes(MAGIC + struct.pack(">I", len(deep)) + deep)
    assert not store.has(source)
    assert store.read(source) is None  # a miss: the window decodes the image itself
    assert not file.exists()  # discarded, not read again on every open
    assert store.make(source) and store.read(source) is not None


def test_a_shard_folder_that_is_a_link_is_never_written_through(tmp_path: Path) -> None:
    store = PreviewStore(tmp_path / "project" / "previews")
    source = _photo(tmp_path / "base.png", 2)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shard = store.file_for(stamp(source)).parent  # type: ignore[arg-type]
    shard.parent.mkdir(parents=True)
    shard.symlink_to(elsewhere, target_is_directory=True)
    assert store.make(source)
    assert list(elsewhere.iterdir()) == []  # nothing written outside
    assert not shard.is_symlink() and store.read(source) is not None
    # A link put there later is not read through either.
    moved = tmp_path / "moved"
    shard.rename(moved)
    shard.symlink_to(moved, target_is_directory=True)
    assert store.read(source) is None and not store.has(source)


def test_a_preview_with_one_cases_identity_and_anothers_pixels_is_never_shown(
    tmp_path: Path,
) -> None:
    """Someone with write access to the shared project copies B's preview to A's place,
    rewriting its header to name A's image (stat and SHA-256): it is a miss, and A's own
    preview is made again."""
    store = PreviewStore(tmp_path / "previews")
    a, b = _photo(tmp_path / "a.png", 3), _photo(tmp_path / "b.png", 4)
    assert store.make(a) and store.make(b)
    a_file = store.file_for(stamp(a))  # type: ignore[arg-type]
    b_file = store.file_for(stamp(b))  # type: ignore[arg-type]
    a_header, _ = _header_of(a_file.read_bytes())
    b_header, b_blobs = _header_of(b_file.read_bytes())
    crafted = {**b_header, "source": a_header["source"], "sha256": a_header["sha256"]}
    a_file.write_bytes(_with_header(crafted, b_blobs))
    assert store.read(a) is None and not a_file.exists()
    # Nor when signed with another key than this user's (the writer's own).
    crafted["mac"] = preview_mac(b"k" * 32, crafted, b_blobs)
    a_file.write_bytes(_with_header(crafted, b_blobs))
    assert store.read(a) is None
    assert store.make(a)
    shown = store.read(a)
    assert shown is not None
    want = display_levels(load_image(a))[1][1]
    assert np.abs(shown.levels[0][1][..., :3].astype(int) - want[..., :3]).mean() < 2


# --- nothing follows a link out of the project ------------------------------------------


def test_import_into_a_project_whose_cases_folder_is_a_link_writes_nothing(
    make_project: Callable[..., Path], add_case: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_project("mine")
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(root / "cases")
    (root / "cases").symlink_to(outside, target_is_directory=True)
    source = add_case(make_project("theirs"), "c1")
    rows = tmp_path / "rows.jsonl"
    spec = json.loads((source / "spec.json").read_text())
    images = {"base": str(source / "base.png"), "edited": str(source / "edited.png")}
    rows.write_text(json.dumps({**spec, "images": images}) + "\n")
    with pytest.raises(ProjectError) as caught:
        import_cases(root, rows)
    assert caught.value.message.endswith(
        "cases: is a symbolic link; nothing is imported through it"
    )
    assert list(outside.iterdir()) == []


def test_a_spec_linked_from_another_project_does_not_count_here(
    make_project: Callable[..., Path], add_case: Callable[..., Path]
) -> None:
    """Another project's spec.json reached through a link makes that case invalid, with
    the reason, and does not make a real case a duplicate of it."""
    root, other = make_project("mine"), make_project("other")
    add_case(root, "real", yes_no_spec(concept_id="shared"))
    theirs = add_case(other, "theirs", yes_no_spec(concept_id="shared"))
    linked = add_case(root, "linked")
    (linked / "spec.json").unlink()
    (linked / "spec.json").symlink_to(theirs / "spec.json")
    project = Project.open(root, "alice")
    bad = project.entry("linked")
    assert bad is not None and bad.problem == (
        "unreadable (is a link leading outside the project; not read)"
    )
    verdicts = {c.case_id: c for c in validate_project(project).cases}
    assert verdicts["real"].valid, verdicts["real"].problems  # no duplicate of another's
    assert not verdicts["linked"].valid


def test_study_take_refuses_a_study_naming_files_outside_it(
    demo_project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not for the study")
    folder = demo_project / "studies" / "s1"
    (folder / "original").mkdir(parents=True)
    for name in (str(secret), "../../../../secret.png"):
        question = {
            "case_id": "ctx01_tape_bagel",
            "image_role": "edited",
            "box": [0.1, 0.1, 0.2, 0.2],
            "original": name,
            "candidates": {"soft": "a.png"},
        }
        study = {
            "name": "s1",
            "created_at": "2026-12-01T00:00:00Z",
            "engine": "opencv",
            "instruction": "remove it",
            "methods": ["soft"],
            "questions": [question],
        }
        (folder / "study.json").write_text(json.dumps(study))
        code = main(["study", "take", str(demo_project), "s1", "--participant", "P01"])
        err = capsys.readouterr().err
        assert code == 1
        assert "question 1 names" in err and "outside the study's original/ folder" in err
        assert len(err.strip().splitlines()) == 1
