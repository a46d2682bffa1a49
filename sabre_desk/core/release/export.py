"""Export the accepted cases as a benchmark release.

Everything is written into a locked partial folder next to OUT and renamed into place at
the end (see ``staging.py``), so OUT is either absent or complete: a failed, cancelled or
interrupted export (Ctrl+C, SIGTERM) removes its partial folder, and one left by a killed
export (SIGKILL, power cut) is removed by the next export into the same folder. Every
OSError becomes one ProjectError naming the file and the reason, never a traceback.

Images are copied (a reflink clone where the filesystem can share blocks, else a plain
copy), so editing a released image can never edit the project. ``link=True`` hard-links
them instead: instant and free of space, but an in-place edit of a released image then
reaches the project's image too.

Formats: ``benchmark.jsonl`` (canonical), ``images/``, a Hugging Face imagefolder
(``metadata.jsonl`` and a dataset card), VLMEvalKit TSVs with a config, and
``MANIFEST.sha256`` + ``release.json``, and ``prompts/``: the zero-shot prompts (and their
version) the cases were screened with, which ``predict`` asks with.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sabre_desk import __version__
from sabre_desk.core.case.binding import image_hashes
from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.question_edits import effective
from sabre_desk.core.case.review import Decision, QuestionEdit, Review
from sabre_desk.core.case.spec import OPTION_LETTERS, ImageRole
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.release.export_formats import (
    naming,
    vlmevalkit_name_problem,
    write_bytes,
    write_jsonl,
    write_vlmevalkit,
)
from sabre_desk.core.release.lmms_eval_task import FOLDER as LMMS_EVAL_FOLDER
from sabre_desk.core.release.lmms_eval_task import task_name, write_task
from sabre_desk.core.release.provenance import Funnel, case_provenance, probe_screening
from sabre_desk.core.release.release import (
    RELEASE,
    RELEASE_FORMAT,
    RELEASE_VERSION,
    seal,
    write_manifest,
)
from sabre_desk.core.release.release_card import HF_FOLDER, HF_LICENSES, card, hf_file_name, hf_row
from sabre_desk.core.release.staging import partial_folder, remove_abandoned
from sabre_desk.core.screening.prompts import RELEASE_PROMPTS, copy_prompts, shipped_prompts
from sabre_desk.core.team.counts import LeftOut, left_out_text, release_standing
from sabre_desk.core.team.final import (
    all_reviews,
    current_decisions,
    disputed,
    question_edits,
    settle,
)
from sabre_desk.core.team.ratings import unreadable_review
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.reading import open_regular
from sabre_desk.ground.storage import current_umask, dumps_json
from sabre_desk.imaging.io import encode_png, load_image

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

Progress = Callable[[int, int, str], None]
CHUNK = 1 << 20
#: Linux ioctl that makes a new file share the blocks of another (btrfs, XFS, bcachefs…):
#: a copy in constant time and space that is still a separate file when either is edited.
FICLONE = 0x40049409
#: copy_file_range cannot copy between these two files; copy through a buffer instead.
_NO_KERNEL_COPY = {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EBADF}


class ExportCancelledError(ProjectError):
    """The export was cancelled; nothing was written at the destination."""


#: Reasons a curator must act on (a case nobody decided yet, or one decided otherwise, is
#: simply not in the release); release.json lists these as "skipped".
_TO_ACT_ON = frozenset(LeftOut) - {LeftOut.NOT_DECIDED, LeftOut.FINAL_OTHER}


@dataclass
class ExportSummary:
    out: Path
    cases: int = 0
    questions: int = 0
    images: int = 0
    root_hash: str = ""
    removed_partials: list[Path] = field(default_factory=list)  # left by killed exports
    warnings: list[str] = field(default_factory=list)  # exported, but e.g. a review ignored
    #: every case not in the release, with the reason ("case: why")
    left_out: list[str] = field(default_factory=list)
    #: how many were left out for each reason (``counts.LeftOut``'s names)
    left_out_counts: dict[str, int] = field(default_factory=dict)
    #: the cases left out for a reason someone must act on ("case: why")
    skipped: list[str] = field(default_factory=list)

    def leave_out(self, case_id: str, reason: LeftOut, why: str) -> None:
        line = f"{case_id}: {why}"
        self.left_out.append(line)
        self.left_out_counts[reason.value] = self.left_out_counts.get(reason.value, 0) + 1
        if reason in _TO_ACT_ON:
            self.skipped.append(line)

    def not_exported(self) -> str:
        """Why the other cases are not in the release, in one line ('' when all are)."""
        return left_out_text(self.left_out_counts)

    def to_json(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "cases": self.cases,
            "questions": self.questions,
            "images": self.images,
            "root_sha256": self.root_hash,
            "left_out": dict(sorted(self.left_out_counts.items())),
            "left_out_cases": self.left_out,
            "warnings": self.warnings,
            "removed_partials": [str(p) for p in self.removed_partials],
        }


def _clone(src: int, dst: int) -> bool:
    """Reflink *src* into *dst* where the filesystem supports it; False otherwise."""
    if fcntl is None:
        return False
    try:
        fcntl.ioctl(dst, FICLONE, src)
    except OSError:
        return False
    return True


def _kernel_copy(src: int, dst: int, size: int, source: Path, target: Path) -> bool:
    """Copy with copy_file_range (no trip through user space); False if it cannot here.

    Some filesystems report 0 bytes copied for a file that is not empty (the reason
    shutil is careful with this call too), which also means "copy it another way".
    """
    kernel_copy = getattr(os, "copy_file_range", None)
    if kernel_copy is None:
        return False
    copied = 0
    try:
        while done := kernel_copy(src, dst, 64 * CHUNK):
            copied += done
    except OSError as exc:
        if exc.errno not in _NO_KERNEL_COPY:
            exc.filename, exc.filename2 = str(source), str(target)
            raise
    else:
        if copied or not size:
            return True
    os.lseek(src, 0, os.SEEK_SET)
    os.lseek(dst, 0, os.SEEK_SET)
    os.ftruncate(dst, 0)
    return False


def _copy_bytes(src: int, dst: int, size: int, source: Path, target: Path) -> None:
    """Copy in the kernel where possible, else through a buffer.

    An OSError names the file it is about: the source for a failed read, the target for a
    failed write, both for a failed kernel copy (which cannot tell them apart).
    """
    if _kernel_copy(src, dst, size, source, target):
        return
    while True:
        with naming(source):
            block = os.read(src, CHUNK)
        if not block:
            return
        view = memoryview(block)
        with naming(target):
            while view:
                view = view[os.write(dst, view) :]


def copy_file(source: Path, target: Path) -> None:
    """A new, independent *target* with the bytes of *source* (never a link to it)."""
    with open_regular(source) as (src, size), naming(target), target.open("xb") as dst:
        if not _clone(src.fileno(), dst.fileno()):
            _copy_bytes(src.fileno(), dst.fileno(), size, source, target)


def link_or_copy(source: Path, target: Path) -> None:
    """Hard-link *target* to *source* where the disk allows (no extra space), else copy."""
    try:
        os.link(source, target)
    except OSError:  # another disk, or links not allowed
        copy_file(source, target)


def _readable_as_umask_allows(source: Path) -> bool:
    """Whether a link to *source* is as readable as a new file would be. A link shares the
    file's permissions, so a project image only its owner may read is copied instead (its
    copy gets what the umask allows; the project's file is left as it is)."""
    wanted = 0o444 & ~current_umask()
    try:
        return stat.S_IMODE(source.stat().st_mode) & wanted == wanted
    except OSError:
        return False


def _copy_image(case: Case, role: ImageRole, folder: Path, link: bool) -> str:
    """Put the image into the release, upright: a photo with an EXIF rotation is written
    as the pixels a viewer shows (PNG), because many loaders ignore the tag."""
    source = case.images[role]
    info = case.image_info.get(role)
    if info is not None and info.orientation != 1:
        name = f"images/{case.case_id}__{role.value}.png"
        write_bytes(folder / name, encode_png(load_image(source)))
        return name
    name = f"images/{case.case_id}__{role.value}{source.suffix.lower()}"
    if link and _readable_as_umask_allows(source):
        link_or_copy(source, folder / name)  # --link: shares the project's file
    else:
        copy_file(source, folder / name)
    return name


def _rows(
    case: Case,
    decision: Decision,
    why: str,
    reviews: dict[str, Review],
    edits: dict[str, QuestionEdit],
    files: dict[str, str],
    origin: dict[str, Any],
) -> list[dict[str, Any]]:
    rows = []
    for question in case.spec.questions:
        prompt, answer = effective(question, edits.get(question.probe_id))
        row: dict[str, Any] = {
            "question_id": f"{case.case_id}:{question.probe_id}",
            "case_id": case.case_id,
            "group_id": case.case_id,
            "subset": case.spec.pressure_test_type,
            "probe_id": question.probe_id,
            "image_role": question.image_role.value,
            "format": question.question_type.value,
            "eval_type": question.eval_type,
            "question": prompt,
            "answer": answer,
        }
        if question.options:
            row["options"] = dict(zip(OPTION_LETTERS, question.options, strict=True))
        row.update(files)
        row["image"] = files[
            f"{question.image_role.value}_file_name"
            if question.image_role is not ImageRole.IMAGE
            else "file_name"
        ]
        row["provenance"] = {
            "concept_id": case.spec.concept_id,
            "decision": decision.value,
            "decided": why,
            "reviewers": sorted(reviews),
            "edited": question.probe_id in edits,
            **origin,
            "filter_answer": probe_screening(case, question.probe_id),
        }
        rows.append(row)
    return rows


def _hf_layout(folder: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Give each question its own image file in hf/ and return the metadata.jsonl rows
    (``release_card`` says why)."""
    with naming(folder / HF_FOLDER):
        (folder / HF_FOLDER).mkdir()
    hf_rows = []
    for row in rows:
        name = hf_file_name(row, Path(row["image"]).suffix)
        link_or_copy(folder / row["image"], folder / name)
        hf_rows.append(hf_row(row, name))
    return hf_rows


def _failure(exc: OSError, tmp: Path, out: Path) -> ProjectError:
    """One line for an OSError during the export: the file, what failed and why."""
    reason = exc.strerror or str(exc)
    inside: list[Path] = []
    outside: list[Path] = []
    for name in (exc.filename, exc.filename2):
        if isinstance(name, str | bytes | os.PathLike):
            path = Path(os.fsdecode(name))
            (inside if path.is_relative_to(tmp) else outside).append(path)
    done = "; nothing was exported"
    if inside:
        rel = inside[0].relative_to(tmp).as_posix()
        if outside:
            return ProjectError(
                f"cannot copy it into the release as {rel} ({reason}){done}", outside[0]
            )
        return ProjectError(f"cannot write {rel} ({reason}){done}", out)
    if outside:
        return ProjectError(f"cannot read ({reason}){done}", outside[0])
    return ProjectError(f"export failed ({reason}){done}", out)


def default_release_name(project_name: str) -> str:
    """The release's name when none is given: the project's, as a VLMEvalKit name."""
    return "".join(c if c.isalnum() else "_" for c in project_name).strip("_") or "sabre"


def export(
    project: Project,
    out: Path,
    decisions: set[Decision] | None = None,
    name: str | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    link: bool = False,
    license_id: str | None = None,
    min_reviews: int = 1,
) -> ExportSummary:
    """Write the release to *out* (which must not exist yet).

    *link* hard-links the images instead of copying them (see the module docstring);
    *license_id* is the Hugging Face license id the card declares (none: not chosen yet).
    *min_reviews* leaves out a case resting on fewer current reviews (unless adjudicated).
    """
    out = Path(out).absolute()
    if os.path.lexists(out):
        raise ProjectError("already exists; choose a new folder for the release", out)
    if license_id is not None and license_id not in HF_LICENSES:
        known = ", ".join(sorted(HF_LICENSES))
        raise ProjectError(f"--license {license_id!r} is not a license id the Hub knows: {known}")
    decisions = decisions or {Decision.KEEP}
    name = name or default_release_name(project.name)
    problem = vlmevalkit_name_problem(name)
    if problem:
        raise ProjectError(problem)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"cannot create the folder ({exc.strerror or exc})", out.parent) from exc
    removed = remove_abandoned(out.parent)
    with partial_folder(out) as tmp:
        try:
            summary = _export_into(
                project,
                tmp,
                out,
                decisions,
                name,
                progress,
                cancel or threading.Event(),
                link,
                license_id,
                min_reviews,
            )
        except OSError as exc:
            raise _failure(exc, tmp, out) from exc
        try:
            tmp.replace(out)
        except OSError as exc:
            raise ProjectError(
                f"cannot move the finished release into place ({exc.strerror or exc}); "
                "nothing was exported",
                out,
            ) from exc
    summary.removed_partials = removed
    return summary


def _export_into(
    project: Project,
    tmp: Path,
    out: Path,
    decisions: set[Decision],
    name: str,
    progress: Progress | None,
    cancel: threading.Event,
    link: bool,
    license_id: str | None,
    min_reviews: int = 1,
) -> ExportSummary:
    summary = ExportSummary(out)
    adjudicators = project.manifest.adjudicators or None  # none named: anyone's, as before
    with naming(tmp / "images"):
        (tmp / "images").mkdir()
    rows: list[dict[str, Any]] = []
    entries = project.entries
    primers = PrimerLibrary.for_project(project.root)
    funnel = Funnel()
    validity = Validity(project, primers)
    for done, entry in enumerate(entries, 1):
        if cancel.is_set():
            raise ExportCancelledError("export cancelled; nothing was written", out)
        if progress:
            progress(done, len(entries), entry.case_id)
        report = validity.check(entry.case_id)
        case = report.case
        if not report.valid or case is None:
            summary.leave_out(entry.case_id, LeftOut.INVALID, report.reason or "invalid")
            continue
        funnel.valid += 1
        funnel.solved_by_filter += entry.screening is ScreenStatus.SOLVED
        reviews = all_reviews(case)
        hashes = image_hashes(case.images)
        final = settle(reviews, hashes, adjudicators, min_reviews)
        current, _ = current_decisions(reviews, hashes)
        edits, conflicts = question_edits(reviews, final)
        split = disputed(current, adjudicators)
        unreadable = unreadable_review(case)
        standing = release_standing(final, len(current), split, unreadable, conflicts, decisions)
        funnel.with_final += final.decision is not None
        if standing.left_out is not None:
            summary.leave_out(entry.case_id, standing.left_out, standing.why)
            continue
        decision, why = final.decision, final.why
        assert decision is not None
        files: dict[str, str] = {}
        for role in case.spec.image_roles:
            target = _copy_image(case, role, tmp, link)
            key = "file_name" if role is ImageRole.IMAGE else f"{role.value}_file_name"
            files[key] = target
            summary.images += 1
        origin = case_provenance(case, reviews, primers, project.manifest.primer)
        rows += _rows(case, decision, why, reviews, edits, files, origin)
        summary.warnings += [f"{entry.case_id}: {w.message}" for w in case.warnings]
        summary.cases += 1
        funnel.repaired += bool(origin["repairs"])
    for index, row in enumerate(rows):
        row["index"] = index
        rows[index] = {"index": index, **{k: v for k, v in row.items() if k != "index"}}
    summary.questions = len(rows)
    write_jsonl(tmp / "benchmark.jsonl", rows)
    write_jsonl(tmp / "metadata.jsonl", _hf_layout(tmp, rows))
    tsv = write_vlmevalkit(tmp / "vlmevalkit", name, rows, tmp)
    write_task(tmp / LMMS_EVAL_FOLDER, name, out)
    subsets = sorted({r["subset"] for r in rows})
    funnel.cases, funnel.exported = len(entries), summary.cases
    funnel.left_out = dict(sorted(summary.left_out_counts.items()))
    loaded = [tmp / "metadata.jsonl", *(tmp / HF_FOLDER).iterdir()]
    readme = card(
        name,
        summary.cases,
        len(rows),
        subsets,
        license_id,
        task_name(name),
        tsv,
        funnel.to_json(),
        data_bytes=sum(path.stat().st_size for path in loaded),
    )
    write_bytes(tmp / "README.md", readme.encode())
    prompts = shipped_prompts()
    with naming(tmp / RELEASE_PROMPTS):
        copy_prompts(prompts, tmp / RELEASE_PROMPTS)
    summary.root_hash = write_manifest(tmp)
    release = {
        "format": RELEASE_FORMAT,
        "version": RELEASE_VERSION,
        "name": name,
        "project": project.name,
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool": f"sabre-desk {__version__}",
        "decisions": sorted(d.value for d in decisions),
        "cases": summary.cases,
        "questions": summary.questions,
        "images": summary.images,
        "subsets": {s: sum(r["subset"] == s for r in rows) for s in subsets},
        "prompts": {"version": prompts.version, "folder": RELEASE_PROMPTS},
        "funnel": funnel.to_json(),
        "root_sha256": summary.root_hash,
        "skipped": summary.skipped,
    }
    write_bytes(tmp / RELEASE, dumps_json(seal(release)))
    return summary
