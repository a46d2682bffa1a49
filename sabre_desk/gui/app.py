"""QApplication set-up and the entry point used by the CLI."""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QMessageLogContext,
    QObject,
    QSocketNotifier,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QFileOpenEvent, QIcon
from PySide6.QtWidgets import QApplication, QWidget

from sabre_desk import __version__
from sabre_desk.app_log import configure_logging
from sabre_desk.core.case.manifest import project_folder
from sabre_desk.core.jobs.memory import return_freed_images_to_the_os
from sabre_desk.ground.paths import resource_path
from sabre_desk.gui.crash_report import install_excepthook
from sabre_desk.gui.machinery.soon import call_soon
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.imaging.warm import warm_up
from sabre_desk.settings import load_settings

if TYPE_CHECKING:  # the study window's types: nothing of it is imported at start-up
    from sabre_desk.core.case.project import Project
    from sabre_desk.core.repair.study import Study

SCREENSHOT_TIMEOUT_MS = 15000


#: Qt's offscreen platform says this for every window it cannot resize: noise, not news.
QUIET_QT_MESSAGES = ("does not support propagateSizeHints",)


def _qt_message(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if not any(quiet in message for quiet in QUIET_QT_MESSAGES):
        print(message, file=sys.stderr)


#: How long a thread running Python may keep the interpreter lock while another waits for
#: it (Python's default: 5 ms). The GUI thread lets go of the lock at every file-system call
#: and every hand-over to a pool; each time a pool thread is busy in Python meanwhile (the
#: index read behind, the live poll, hashing), the GUI thread waited up to 5 ms to go on,
#: and a case switch makes dozens of such calls. At 1 ms the window gets it back at once.
SWITCH_INTERVAL_S = 0.001


def make_app(argv: list[str] | None = None) -> QApplication:
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv or sys.argv[:1])
    qInstallMessageHandler(_qt_message)
    return_freed_images_to_the_os()
    app.setApplicationName("sabre-desk")
    app.setOrganizationName("sabre-desk")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("sabre-desk")  # the installed .desktop file: its icon and name
    app.setWindowIcon(QIcon(str(resource_path("icons", "sabre-desk.svg"))))
    style = resource_path("style.qss")
    if style.is_file():
        app.setStyleSheet(style.read_text(encoding="utf-8"))
    return app


def save_screenshot(window: MainWindow, out: Path) -> bool:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"sabre-desk: error: {out}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return window.grab().save(str(out), "PNG")


def _shoot_view(app: QApplication, view: QWidget, out: Path) -> None:
    """--screenshot of an evaluation: its view, at the window's size."""
    window = view.parentWidget()
    if window is not None:
        view.resize(window.size())
    ok = view.grab().save(str(out), "PNG")
    print(f"screenshot written to {out}" if ok else "screenshot failed")
    app.exit(0 if ok else 1)


class FileOpenRequests(QObject):
    """macOS hands the app the file a person opened with it in Finder (a project's
    sabre-project.json: the .app declares that document type) as a file-open event, not on
    the command line; each one opens that project."""

    def __init__(self, app: QApplication, open_project: Callable[[Path], object]):
        super().__init__(app)
        self._open_project = open_project
        app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QFileOpenEvent) and event.file():
            self._open_project(project_folder(Path(event.file())))
            return True
        return super().eventFilter(watched, event)


def _close_on_signals(window: MainWindow) -> QSocketNotifier:
    """SIGTERM (a logout, `kill`) and Ctrl+C close the window the way its close button
    does: the open case is saved first. Python runs a signal handler only between its own
    callbacks, and an idle window runs none; so the signal also writes a byte to a socket
    the event loop listens to (``signal.set_wakeup_fd``), which wakes it to run the handler.
    No timer: an idle window stays asleep."""

    def close(_signum: int, _frame: object) -> None:
        QTimer.singleShot(0, window.close)

    for name in ("SIGTERM", "SIGINT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), close)
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno())
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)

    sockets = (reader, writer)  # kept open by the connection below, as long as the window

    def drain() -> None:  # the Python handler runs as this callback returns
        with contextlib.suppress(OSError):
            sockets[0].recv(64)

    notifier.activated.connect(drain)
    return notifier


#: how long after the window is shown the repair engine's loops are warmed when no case is
#: painted before then (a window opened on its welcome page)
WARM_UP_DELAY_MS = 3000


def warm_up_later(window: MainWindow) -> None:
    """The patch-based engine's compiled loops made ready in the window's worker processes,
    where repairs run, while nobody waits for them (``imaging/warm.py``), so the first
    repair of a session is as quick as the next. It starts once the first case is painted
    (or ``WARM_UP_DELAY_MS`` after the window is up, for a window with none): the reviewer
    is looking, and drawing a box takes seconds. Every worker at once, behind any job of the
    window's: a worker takes about 1.6 s to start and load the loops, so one after the other
    they were still warming when the first box was drawn (the very first run after an
    install compiles the loops in each, once, and caches them on disk). Nothing is warmed
    in the window's own process, which never runs a patch-based repair: there it only took
    the interpreter from the window and a core from the workers. Nor for a window nobody is
    at (``--screenshot``): it would start every worker just as the window closes."""
    pool = window.jobs
    begun = False

    def start(*_shown: object) -> None:
        nonlocal begun
        if begun or window.unattended:  # a --screenshot run closes once painted: no repair
            return
        begun = True
        with contextlib.suppress(RuntimeError):  # the window closed meanwhile
            for _ in range(pool.pool.size + pool.pool.spare):
                # behind every job of the window's, yet at a repair's niceness: the first
                # repair waits for it if it is still going (under two busy programs the
                # first repair on screen took 22–24 s with it at the sweeps', 10–15 s now)
                pool.submit(warm_up, (), lambda _result, _error: None, priority=-1, watched=True)

    window.images_shown.connect(start)
    call_soon(window, start, WARM_UP_DELAY_MS)


def run_gui(
    project: Path | None,
    reviewer: str,
    case: str | None = None,
    screenshot: Path | None = None,
    size: tuple[int, int] | None = None,
    evaluation: Path | None = None,
) -> int:
    """The window on *project* (at *case*), or on an *evaluation* folder's results."""
    app = make_app()
    configure_logging()
    settings, warning = load_settings()
    window = MainWindow(reviewer, settings)
    install_excepthook(lambda: window)
    window.unattended = screenshot is not None  # nobody is there to close a dialog
    if screenshot is not None and size is not None:
        window.resize(*size)  # offscreen, any size: what a reviewer's screen would show
    if warning:
        window.statusBar().showMessage(warning)
    window.show()
    warm_up_later(window)
    # The process ends with its main window, whatever other top-level widget is left.
    window.closed.connect(app.quit)
    _close_on_signals(window)
    if sys.platform == "darwin":  # only macOS's Finder sends file-open events
        _opens = FileOpenRequests(app, window.open_project)  # lives as long as the event loop
    if screenshot is not None:
        taken: list[bool] = []

        def shoot(_: str = "") -> None:
            if taken:
                return
            taken.append(True)
            ok = save_screenshot(window, screenshot)
            print(
                f"screenshot written to {screenshot}" if ok else "screenshot failed",
                file=sys.stdout if ok else sys.stderr,
            )
            app.exit(0 if ok else 1)

        window.images_shown.connect(lambda cid: QTimer.singleShot(150, shoot))
        QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, shoot)
    if evaluation is not None:
        if screenshot is not None:  # the evaluation's own window is what is shown
            window.evaluation_ui.shown.connect(
                lambda view: QTimer.singleShot(300, lambda: _shoot_view(app, view, screenshot))
            )
        window.evaluation_ui.load(evaluation)
        return app.exec()
    if project is not None and not window.open_project(project, case):
        if screenshot is not None:
            window.close()
            return 1
    elif project is None and screenshot is not None:
        QTimer.singleShot(150, shoot)
    return app.exec()


def run_study(project: Project, study: Study, participant: str) -> int:
    """The study as a window of its own (`sabre-desk study take`)."""
    from sabre_desk.gui.repair.study_session import StudyDialog

    app = make_app()
    dialog = StudyDialog(project, study, participant)
    dialog.show()
    app.exec()
    return 0 if dialog.session.complete(study) else 1
