"""`generate images` and `generate specs` in a child process, for the window's Pipeline
panel (``core.child_job``: progress through a pipe, cancel as Ctrl+C stops the command).

The child runs exactly what the commands run (``make_images``, ``write_specs``), so a run
cancelled from the window leaves what a cancelled command leaves: every image and
specification made so far kept whole, every case in ``cases/`` complete or absent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.jobs.child_job import ChildFailedError, ChildJob, require
from sabre_desk.core.making.image_maker import ImageRunReport, make_images
from sabre_desk.core.making.spec_writer import DEFAULT_TRIES, SpecRunReport, write_specs
from sabre_desk.engines.gemini_make import GeminiImageMaker
from sabre_desk.engines.models import ModelNameError
from sabre_desk.engines.providers import writer_for


@dataclass(frozen=True)
class GenerateProgress:
    """One specification or case done: how many of how many, and what became of it."""

    done: int
    total: int
    what: str


@dataclass(frozen=True)
class ImagesOrder:
    """Make the images of every specification waiting for them (or of *cases*)."""

    root: Path
    model: str
    concurrency: int = 4
    cases: list[str] | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SpecsOrder:
    """Write *n* specifications from the primer named *primer*."""

    root: Path
    primer: str
    n: int
    model: str
    tries: int = DEFAULT_TRIES
    env: dict[str, str] = field(default_factory=dict)


Report = Callable[[GenerateProgress], None]


def _relay(progress: Report) -> Callable[[int, int, str], None]:
    return lambda done, total, what: progress(GenerateProgress(done, total, what))


def images_in_child(order: ImagesOrder, progress: Report, stop: threading.Event) -> ImageRunReport:
    maker = GeminiImageMaker(order.model)
    require(maker.unavailable_reason())
    with maker:
        return make_images(
            order.root,
            maker,
            stop,
            cases=order.cases,
            concurrency=max(1, order.concurrency),
            progress=_relay(progress),
        )


def specs_in_child(order: SpecsOrder, progress: Report, stop: threading.Event) -> SpecRunReport:
    primer = PrimerLibrary.for_project(order.root).primers.get(order.primer)
    if primer is None:
        raise ChildFailedError(f"no primer {order.primer!r} in this project or sabre-desk")
    try:
        writer = writer_for(order.model)
    except ModelNameError as exc:
        raise ChildFailedError(str(exc)) from None
    require(writer.unavailable_reason())
    with writer:
        return write_specs(
            order.root, primer, order.n, writer, stop, tries=order.tries, progress=_relay(progress)
        )


def images_job(order: ImagesOrder) -> ChildJob[ImagesOrder, GenerateProgress, ImageRunReport]:
    return ChildJob(images_in_child, order, order.env, "image-making")


def specs_job(order: SpecsOrder) -> ChildJob[SpecsOrder, GenerateProgress, SpecRunReport]:
    return ChildJob(specs_in_child, order, order.env, "specification-writing")
