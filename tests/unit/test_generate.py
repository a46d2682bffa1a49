"""Making cases with models: `generate specs` and `generate images` with the real google-genai
client against the fake Gemini on 127.0.0.1, from a new project to an exported release."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from factories import run_cli
from fakes.gemini_server import (
    FakeGemini,
    blocked_reply,
    error_reply,
    finish_reply,
    text_reply,
)
from fakes.pipeline import (
    SIZES,
    PipelineModels,
    context_spec,
    image_body,
    scene_png,
)
from PIL import Image

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.image_settings import ImageSettings
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.making.image_maker import make_images
from sabre_desk.core.making.incoming import StagedState, spec_failures, staged_cases
from sabre_desk.core.making.new_project import init_project
from sabre_desk.core.making.spec_writer import write_specs
from sabre_desk.engines.gemini_make import GeminiImageMaker, GeminiWriter
from sabre_desk.ground.storage import read_history


@pytest.fixture
def models(pipeline_models: tuple[FakeGemini, PipelineModels]) -> tuple[FakeGemini, PipelineModels]:
    return pipeline_models


@pytest.fixture
def project(context_project: Path) -> Path:
    return context_project


def _context() -> object:
    return PrimerLibrary.for_project(None).primers["context"]


def _specs(root: Path, n: int, tries: int = 3) -> object:
    with GeminiWriter() as writer:
        return write_specs(root, _context(), n, writer, threading.Event(), tries=tries)  # type: ignore[arg-type]


def test_a_new_user_goes_from_init_to_a_release(
    tmp_path: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    root = tmp_path / "mine"
    for command in (
        ["init", str(root), "--primer", "context"],
        ["generate", "specs", str(root), "--primer", "context", "--n", "5"],
        ["generate", "images", str(root)],
        ["screen", str(root)],
    ):
        done = run_cli(*command, home=tmp_path, timeout=120)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    project = Project.open(root, "alice")
    assert len(project.entries) == 5
    kept = [e for e in project.entries if e.screening is ScreenStatus.KEPT]
    assert len(kept) == 5  # the fake filter answers "yes" to all: it fails every case
    for entry in kept:
        case = project.load_case(entry.case_id)
        assert set(case.images) == {case.spec.image_roles[0], case.spec.image_roles[1]}
        assert not case.image_problems
        case.review.decision = Decision.KEEP
        project.save_review(case)
    release = tmp_path / "release"
    done = run_cli("export", str(root), str(release), "--reviewer", "alice", home=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = (tmp_path / "release" / "benchmark.jsonl").read_text().splitlines()
    assert len(rows) == 20  # 5 cases × the primer's 4 probes
    first = json.loads(rows[0])
    generation = first["provenance"]["generation"]
    assert generation["stage"] == "specs" and generation["primer"]["name"] == "context"
    assert set(generation["images"]) == {"base", "edited"}
    assert generation["images"]["edited"]["from"] == "base"


def test_stats_shows_the_funnel_and_what_failed(
    tmp_path: Path, project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    _, answer = models
    _specs(project, 3)
    answer.image_script = [blocked_reply("PROHIBITED_CONTENT")]
    with GeminiImageMaker() as maker:
        make_images(project, maker, threading.Event(), concurrency=1)
    done = run_cli("stats", str(project), "--json", home=tmp_path)
    funnel = json.loads(done.stdout)["pipeline"]
    assert funnel["specified"] == 0 and funnel["failed"] == 1 and funnel["imaged"] == 2
    assert funnel["screened"] == 0
    text = run_cli("stats", str(project), home=tmp_path).stdout
    assert "failed 1" in text and "PROHIBITED_CONTENT" in text


def test_an_invalid_reply_goes_back_with_the_validators_messages(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    server, answer = models
    wrong = context_spec(9, ("kitchen", "whisk", "shoe"))
    wrong["questions"][1]["answer"] = "yes"  # the primer fixes base_target's answer: no
    answer.spec_script = ["this is not JSON", json.dumps(wrong)]
    report = _specs(project, 1)
    assert len(report.written) == 1 and report.calls == 3  # type: ignore[attr-defined]
    third = server.requests[-1]["body"]
    turns = [p["text"] for c in third["contents"] for p in c["parts"]]
    assert len(turns) == 5  # ask, bad reply, feedback, second reply, feedback
    assert "not JSON" in turns[2]
    assert "base_target must be answered 'no'" in turns[4]
    schema = third["generationConfig"]["responseJsonSchema"]
    assert schema["properties"]["pressure_test_type"]["enum"] == ["context_prior"]
    assert schema["properties"]["questions"]["maxItems"] == 4
    [staged] = staged_cases(project)
    spec = json.loads((staged.folder / "spec.json").read_text())
    attempts = spec["generation"]["attempts"]
    assert [bool(a["problems"]) for a in attempts] == [True, True, False]
    assert spec["generation"]["model"] and "Task Design" in spec["generation"]["prompt"]


def test_a_concept_already_in_the_project_is_refused(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    server, answer = models
    taken = context_spec(1, ("office", "stapler", "trowel"))
    (project / "cases" / taken["concept_id"]).mkdir(parents=True)
    answer.spec_script = [json.dumps(taken)]
    report = _specs(project, 1)
    assert report.written and report.written[0] != taken["concept_id"]  # type: ignore[attr-defined]
    feedback = server.requests[-1]["body"]["contents"][-1]["parts"][0]["text"]
    assert f"concept_id {taken['concept_id']!r} is already used" in feedback
    assert taken["concept_id"] in server.requests[0]["body"]["contents"][0]["parts"][0]["text"]


def test_a_spec_that_never_comes_right_is_recorded_and_nothing_is_staged(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    _, answer = models
    answer.spec_script = ["[1, 2]", "not json", "{}"]
    report = _specs(project, 1)
    assert report.written == [] and len(report.failed) == 1  # type: ignore[attr-defined]
    assert staged_cases(project) == []
    [failure] = spec_failures(project)
    assert failure["primer"] == "context" and len(failure["attempts"]) == 3
    assert "concept_id" in failure["reason"]  # the schema's own words for "{}"
    stages = [line["stage"] for line in read_history(Ledger.of_project(project).path).entries]
    assert stages == ["specs"] * 3


def test_a_safety_stop_fails_the_case_and_a_rerun_pays_only_for_what_is_missing(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    server, answer = models
    _specs(project, 1)
    answer.image_script = [
        # the Base is made, then the edit is stopped
        _base_reply(),
        finish_reply("IMAGE_SAFETY"),
    ]
    with GeminiImageMaker() as maker:
        report = make_images(project, maker, threading.Event())
    [(case_id, reason)] = report.failed
    assert "safety filter stopped the image (IMAGE_SAFETY)" in reason
    [staged] = staged_cases(project)
    assert staged.state is StagedState.FAILED and staged.reason == reason
    assert set(staged.made or {}) == {"base"}
    base_bytes = (staged.folder / "base.png").read_bytes()
    before = len(server.requests)
    with GeminiImageMaker() as maker:
        report = make_images(project, maker, threading.Event())
    assert report.imaged == [case_id] and report.calls == 1
    assert len(server.requests) == before + 1  # only the edit was asked again
    assert staged_cases(project) == []
    case = Project.open(project, "alice").load_case(case_id)
    assert not case.image_problems
    assert (case.folder / "base.png").read_bytes() == base_bytes


def _base_reply() -> object:
    from fakes.gemini_server import Reply

    return Reply(body=image_body(scene_png("a base", (1024, 1024))))


def test_an_image_of_another_shape_is_refused_not_stretched(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    from fakes.gemini_server import Reply

    _, answer = models
    _specs(project, 1)
    answer.image_script = [Reply(body=image_body(scene_png("wide", SIZES["4:3"])))]
    with GeminiImageMaker() as maker:
        report = make_images(project, maker, threading.Event())
    [(_, reason)] = report.failed
    assert reason == "the Base image came back 1184×864, not 1:1 as asked"
    assert answer.image_configs[0] == {"aspectRatio": "1:1", "imageSize": "1K"}


def test_the_shape_asked_for_comes_from_the_command_then_the_primer_then_the_project(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    _, answer = models
    manifest = json.loads((project / "sabre-project.json").read_text())
    manifest["images"] = {"aspect_ratio": "16:9", "image_size": "2K"}
    (project / "sabre-project.json").write_text(json.dumps(manifest))
    _specs(project, 2)
    first = staged_cases(project)[0].case_id
    with GeminiImageMaker() as maker:
        make_images(project, maker, threading.Event(), cases=[first], concurrency=1)
        assert answer.image_configs[0] == {"aspectRatio": "16:9", "imageSize": "2K"}
        override = ImageSettings(aspect_ratio="4:3")
        make_images(project, maker, threading.Event(), override=override, concurrency=1)
    assert answer.image_configs[2] == {"aspectRatio": "4:3", "imageSize": "2K"}
    with Image.open(project / "cases" / first / "base.png") as made:
        assert made.size == SIZES["16:9"]


def test_an_edited_image_at_another_resolution_is_fitted_to_its_base(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    from fakes.gemini_server import Reply

    _, answer = models
    _specs(project, 1)
    answer.image_script = [_base_reply(), Reply(body=image_body(scene_png("e", (512, 512))))]  # type: ignore[list-item]
    with GeminiImageMaker() as maker:
        [case_id] = make_images(project, maker, threading.Event()).imaged
    case = Project.open(project, "alice").load_case(case_id)
    assert {i.width for i in case.image_info.values()} == {1024}
    notes = case.spec.generation["images"]["edited"]["notes"]  # type: ignore[index]
    assert "the Edited image came back 512×512; resized to the Base's 1024×1024" in notes


def test_a_run_killed_after_writing_the_case_does_not_make_it_again(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    server, _ = models
    _specs(project, 1)
    [staged] = staged_cases(project)
    with GeminiImageMaker() as maker:
        make_images(project, maker, threading.Event())
    # the killed run: the case was written, its staging folder was not yet removed
    staged.folder.mkdir(parents=True)
    (staged.folder / "spec.json").write_text("{}")
    before = len(server.requests)
    with GeminiImageMaker() as maker:
        report = make_images(project, maker, threading.Event())
    assert report.imaged == [] and report.failed == [] and len(server.requests) == before
    assert not staged.folder.exists()


def test_no_text_back_is_a_reason_not_a_crash(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    server, _ = models
    server.script = [blocked_reply("SAFETY")]
    report = _specs(project, 1)
    assert report.failed == ["Gemini blocked the request by the safety filter (SAFETY)"]  # type: ignore[attr-defined]
    server.script = [text_reply("")]
    assert "no specification came back" in _specs(project, 1).failed[0]  # type: ignore[attr-defined]


def test_generated_multiple_choice_specs_get_the_unknown_option_balanced(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    from test_question_builder import UNKNOWN, le_spec

    _, answer = models
    answer.spec_script = [json.dumps(le_spec(n)) for n in range(8)]  # all at D
    language = PrimerLibrary.for_project(None).primers["language"]
    with GeminiWriter() as writer:
        report = write_specs(project, language, 8, writer, threading.Event(), seed=3)
    assert len(report.written) == 8
    letters = []
    for staged in staged_cases(project):
        [q] = json.loads((staged.folder / "spec.json").read_text())["questions"]
        assert q["options"]["ABCD".index(q["answer"])] == UNKNOWN
        letters.append(q["answer"])
    assert sorted(letters) == list("AABBCCDD")


def test_the_batch_api_makes_bases_then_edits_and_a_killed_run_collects_its_job(
    tmp_path: Path, project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    from sabre_desk.core.making.image_batch import batch_images
    from sabre_desk.engines.gemini_batch import GeminiBatchClient

    server, _ = models
    _specs(project, 3)
    server.batches.polls_until_done = 2
    stop = threading.Event()
    lines: list[str] = []

    def notify(line: str) -> None:
        lines.append(line)
        stop.set()  # "Ctrl+C" at the first poll: the job is kept, not paid for again

    client = GeminiBatchClient("gemini-3.1-flash-image")
    first = batch_images(project, client, stop, notify, interval_s=0.01)
    assert first.cancelled and first.imaged == []
    assert len(server.batches.created) == 1
    report = batch_images(project, client, threading.Event(), lines.append, interval_s=0.01)
    assert len(report.imaged) == 3 and report.failed == []
    assert len(server.batches.created) == 2  # the kept job (bases), then one of edits
    project_open = Project.open(project, "alice")
    for entry in project_open.entries:
        case = project_open.load_case(entry.case_id)
        assert not case.image_problems and len(case.images) == 2
    batch_lines = [
        line for line in read_history(Ledger.of_project(project).path).entries if line.get("batch")
    ]
    assert len(batch_lines) == 6 and {line["stage"] for line in batch_lines} == {"images"}
    assert staged_cases(project) == []


def test_the_demo_waits_for_images_and_a_key_makes_them_cases(
    tmp_path: Path, demo_project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    waiting = [s.case_id for s in staged_cases(demo_project)]
    assert waiting == ["ctx90_whisk_screwdriver", "ctx91_stapler_trowel"]
    before = len(Project.open(demo_project, "alice").entries)
    done = run_cli("generate", "images", str(demo_project), home=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    after = Project.open(demo_project, "alice")
    assert len(after.entries) == before + 2
    case = after.load_case("ctx90_whisk_screwdriver")
    assert not case.image_problems
    assert case.spec.generation["images"]["base"]["prompt"].startswith("A documentary")  # type: ignore[index]


def test_the_readme_walkthrough_runs_against_the_stand_in_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    fake = Path(__file__).parent.parent / "fakes" / "pipeline.py"
    server = subprocess.Popen(
        [sys.executable, str(fake), "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split("GOOGLE_GEMINI_BASE_URL=")[1].strip()
        monkeypatch.setenv("GEMINI_API_KEY", "any")
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", url)
        walk = tmp_path / "walk"
        for command in (
            ["init", str(walk), "--primer", "context"],
            ["generate", "specs", str(walk), "--primer", "context", "--n", "2"],
            ["generate", "images", str(walk)],
            ["screen", str(walk)],
        ):
            done = run_cli(*command, home=tmp_path, timeout=120)
            assert done.returncode == 0, (command, done.stderr)
        stats = json.loads(run_cli("stats", str(walk), "--json", home=tmp_path).stdout)
        assert stats["pipeline"]["kept"] == 2 and stats["pipeline"]["calls"] == 2 + 4 + 8
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_case_imported_under_a_waiting_specs_id_never_costs_the_spec(
    project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    from factories import png_bytes

    from sabre_desk.core.making.importing import import_cases
    from sabre_desk.demo.waiting import waiting_spec

    _specs(project, 1)
    [staged] = staged_cases(project)
    source = project.parent / "elsewhere"
    source.mkdir()
    name = staged.case_id
    (source / f"{name}_base.png").write_bytes(png_bytes(32, 32))
    (source / f"{name}_edited.png").write_bytes(png_bytes(32, 32, (9, 9, 9)))
    (source / f"{name}.json").write_text(
        json.dumps(waiting_spec(staged.case_id, "a desk", "cup", "shoe"))
    )
    assert import_cases(project, source).imported == [staged.case_id]
    [still] = staged_cases(project)  # kept, and said why it cannot become a case
    assert still.state is StagedState.FAILED and "not made from this specification" in (
        still.reason or ""
    )
    assert (still.folder / "spec.json").is_file()


def test_a_killed_image_run_resumes_without_paying_again_for_what_it_kept(
    tmp_path: Path, project: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    server, answer = models
    _specs(project, 3)
    server.latency_s = 0.4
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(tmp_path)}
    command = ["generate", "images", str(project), "--concurrency", "1"]
    run = subprocess.Popen(
        [sys.executable, "-m", "sabre_desk", *command],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    staging = project / "generation"
    deadline = time.monotonic() + 60
    while not list(staging.glob("*/base.png")) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(run.pid, signal.SIGKILL)  # the first Base kept, its Edited image asked for
    run.wait(timeout=10)
    cases = [p for p in (project / "cases").iterdir() if not p.name.startswith(".")]
    kept = {(p.parent.name, p.stem) for p in staging.glob("*/*.png")}
    kept |= {(c.name, role) for c in cases for role in ("base", "edited")}
    assert 1 <= len(kept) < 6
    asked = len(answer.image_configs)
    server.latency_s = 0.0
    with GeminiImageMaker() as maker:
        report = make_images(project, maker, threading.Event())
    assert len(report.imaged) + len(cases) == 3 and report.failed == []
    assert len(answer.image_configs) - asked == 6 - len(kept)  # only what was not kept
    assert not staging.exists() or not [p for p in staging.iterdir() if p.is_dir()]
    assert len(list((project / "cases").iterdir())) == 3  # no hidden leftover of the kill
    reopened = Project.open(project, "alice")
    assert len(reopened.entries) == 3
    for entry in reopened.entries:
        assert not reopened.load_case(entry.case_id).image_problems


def test_the_funnel_of_a_project_is_in_stats_with_screening_failures(
    tmp_path: Path, models: tuple[FakeGemini, PipelineModels]
) -> None:
    server, _ = models
    root = init_project(tmp_path / "made", "made", "context")
    (case_id,) = _specs(root, 1).written  # type: ignore[attr-defined]
    with GeminiImageMaker() as maker:
        make_images(root, maker, threading.Event())
    server.script = [error_reply(400, "bad request")] * 4
    run_cli("screen", str(root), home=tmp_path)
    funnel = json.loads(run_cli("stats", str(root), "--json", home=tmp_path).stdout)["pipeline"]
    assert funnel["screened"] == 0
    assert [f["what"] for f in funnel["failures"]] == [case_id]
    assert "screen it again" in funnel["failures"][0]["reason"]
    assert funnel["unpriced"] == ["gemini-3.1-flash-image", "gemini-3.5-flash"]
