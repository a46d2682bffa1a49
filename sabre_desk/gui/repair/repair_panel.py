"""The repair panel: operation, entities, instruction, engine, parameters; run, follow,
cancel; the case's repair previews with Accept / Discard / Revert / Repair again."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.project import Case
from sabre_desk.core.case.review import RepairRecord
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import comparison
from sabre_desk.core.repair.instructions import OP_LABELS, entities, instruction
from sabre_desk.engines.base import ParamValue, RepairEngine, RepairOp
from sabre_desk.engines.patchmatch import FILL_BOX_HELP, FILL_BOX_LABEL, fill_whole_box
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.engines.registry import (
    ENGINES,
    default_engine,
    engine_class,
    engines_for,
    make_engine,
    make_stand_in,
    missing_values,
    preview_chain,
)
from sabre_desk.ground.errors import EngineUnavailableError
from sabre_desk.gui.desk.controller import Aspect, CaseController
from sabre_desk.gui.machinery.fitted_scroll import FittedScroll
from sabre_desk.gui.machinery.soon import call_soon
from sabre_desk.gui.repair.engine_fields import EngineFields
from sabre_desk.gui.repair.lock_banner import LockBanner
from sabre_desk.gui.repair.repair_jobs import RepairJobs
from sabre_desk.imaging.blend import BlendParams
from sabre_desk.settings import Settings

Box = tuple[float, float, float, float]


class RepairPanel(QWidget):
    preview_selected = Signal(object)  # RepairRecord or None

    def __init__(
        self,
        controller: CaseController,
        jobs: RepairJobs,
        settings: Settings,
        selected_box: Callable[[ImageRole], Box | None],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.controller, self.jobs, self.settings = controller, jobs, settings
        self._selected_box = selected_box  # (role) -> Box | None, from the canvases

        self.role = QComboBox()
        self.box_label = QLabel()
        self.box_label.setWordWrap(True)
        self.op = QComboBox()
        for op in RepairOp:
            self.op.addItem(OP_LABELS[op], op)
        self.source = QLineEdit()
        self.target = QLineEdit()
        self.refine = QLineEdit(placeholderText="Add to the instruction (optional)…")
        self.instruction = QPlainTextEdit()
        self.instruction.setReadOnly(True)
        self.instruction.setMaximumHeight(90)
        # The engines and the fields of their values, from the registry: one row each.
        self.engine = QComboBox()
        for cls in ENGINES.values():
            self.engine.addItem(cls.label, cls.name)
        self.engine_fields = EngineFields(ENGINES.values(), settings, self)
        # kept as the reviewer leaves it for the rest of the session (the panel outlives
        # every case), and applied as --fill-box applies it (fill_whole_box)
        self.fill_box = QCheckBox(FILL_BOX_LABEL)
        self.fill_box.setToolTip(FILL_BOX_HELP[0].upper() + FILL_BOX_HELP[1:])
        self.margin = QDoubleSpinBox(minimum=0.1, maximum=3.0, singleStep=0.1, value=0.5)
        self.grow = QSpinBox(minimum=-1, maximum=200, value=-1)
        self.feather = QSpinBox(minimum=-1, maximum=400, value=-1)
        for spin in (self.grow, self.feather):
            spin.setSpecialValueText("auto")  # -1: the pipeline chooses from the box size
        self.run = QPushButton("Repair  (Ctrl+R)")
        self.run.setObjectName("runRepair")
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.cancel = QPushButton("Cancel")
        self.cancel.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.problem = ""  # why the last run did not start
        self._keep_selected: str | None = None  # the repair selected while the list refills
        self.previews = QListWidget()
        self.accept = QPushButton("Accept")
        self.discard = QPushButton("Discard")
        self.revert = QPushButton("Revert")
        self.again = QPushButton("Repair again")
        self.back = QPushButton("Back to the case")
        self.back.setToolTip("Leave the comparison and show the case's images and boxes")

        form = QFormLayout()
        form.addRow("Image", self.role)
        form.addRow("Box", self.box_label)
        form.addRow("Operation", self.op)
        form.addRow("Source", self.source)
        form.addRow("Target", self.target)
        form.addRow("Refine", self.refine)
        form.addRow("Instruction", self.instruction)
        form.addRow("Engine", self.engine)
        self.engine_fields.add_to(form)
        form.addRow("", self.fill_box)
        advanced = QGroupBox("Advanced")
        adv = QFormLayout(advanced)
        adv.addRow("Context margin (× box)", self.margin)
        adv.addRow("Mask growth (px)", self.grow)
        adv.addRow("Feather (px)", self.feather)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run, 1)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel)
        # Accept names what it accepts, on a row of its own as wide as the panel: its text
        # changes as results land and must never widen the dock (the images would shrink
        # under the reviewer's zoom)
        self.accept.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.accept.setMinimumWidth(1)
        actions = QHBoxLayout()
        for button in (self.discard, self.revert, self.again, self.back):
            actions.addWidget(button)
        # The settings scroll in a pane of their own below the laptop's 720 pixels, so the
        # run button, the repairs of the case and Accept stay in view
        settings_pane = QWidget()
        settings_layout = QVBoxLayout(settings_pane)
        settings_layout.setContentsMargins(0, 0, 0, 0)
        settings_layout.addLayout(form)
        settings_layout.addWidget(advanced)
        self.settings_pane = FittedScroll(settings_pane, least=160)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.settings_pane)
        layout.addLayout(run_row)
        layout.addWidget(self.status)
        self.lock_banner = LockBanner(controller)  # who holds the case's images, if anyone
        layout.addWidget(self.lock_banner)
        layout.addWidget(QLabel("Repairs of this case"))
        layout.addWidget(self.previews, 1)
        layout.addWidget(self.accept)
        layout.addLayout(actions)

        for widget in (self.op, self.role, self.engine):
            widget.currentIndexChanged.connect(self.refresh)
        for line in (self.source, self.target, self.refine):
            line.textChanged.connect(self._update_instruction)
        self.engine_fields.changed.connect(self.refresh)
        self.run.clicked.connect(self.run_repair)
        self.cancel.clicked.connect(self._cancel_jobs)
        self.previews.currentItemChanged.connect(self._on_preview_changed)
        self.accept.clicked.connect(self._accept_or_again)
        self.discard.clicked.connect(lambda: self._act(self.controller.discard_repair))
        self.revert.clicked.connect(lambda: self._act(self.controller.revert_repair))
        self.again.clicked.connect(self._repair_again)
        self.back.clicked.connect(lambda: self.previews.setCurrentRow(-1))
        controller.case_loaded.connect(self._on_case_loaded)
        controller.review_changed.connect(self._on_review_changed)
        jobs.count_changed.connect(lambda _n: self._update_running())
        controller.messages_changed.connect(self._update_running)
        # Checking the engines loads OpenCV (80 ms): after the window's first paint, while
        # the first images decode, not before
        call_soon(self, self._mark_engines)
        self.setEnabled(False)

    # --- state ------------------------------------------------------------------------------

    @property
    def case(self) -> Case | None:
        return self.controller.case

    def _mark_engines(self) -> None:
        """An engine that cannot run here is listed, greyed, with the reason as its tip."""
        model = self.engine.model()
        assert isinstance(model, QStandardItemModel)
        for row in range(self.engine.count()):
            cls = engine_class(self.engine.itemData(row))
            why = cls.unavailable_reason()
            item = model.item(row)
            item.setEnabled(why is None)
            item.setToolTip(why or cls.label)
            if why:
                item.setText(f"{cls.label} — unavailable")
        self.engine.setCurrentIndex(max(0, self.engine.findData(default_engine())))

    def _on_case_loaded(self, case: Case) -> None:
        self.setEnabled(self.controller.editable)
        self.role.blockSignals(True)
        self.role.clear()
        for role in case.spec.image_roles:
            self.role.addItem(role.value.capitalize(), role.value)
        self.role.setCurrentIndex(self.role.count() - 1)  # Edited, or the single image
        self.role.blockSignals(False)
        source, target = entities(case.spec)
        self.source.setText(source)
        self.target.setText(target)
        self._fill_previews()
        self.refresh()
        self._update_running()  # this case's jobs and messages, none of the last case's

    def _on_review_changed(self, aspect: Aspect) -> None:
        if aspect in (Aspect.REPAIRS, Aspect.ALL):
            self._fill_previews()
        self.refresh()

    def refresh(self) -> None:
        """Re-read the selected box, engine state and buttons."""
        box = self.current_box()
        role = self.current_role()
        if self.selected_repair() is not None:
            self.box_label.setText("Comparing a repair: “Back to the case” to pick a box")
        elif box is None:
            # a single image is "the image", not "the image image"
            where = f"{role.value} image" if role and role is not ImageRole.IMAGE else "image"
            self.box_label.setText(f"Draw or select a box on the {where}")
        else:
            self.box_label.setText("  ".join(f"{v:.3f}" for v in box))
        self.engine_fields.show_engine(self.engine.currentData())
        self._update_instruction()
        problem = self._run_problem(box)
        self.run.setEnabled(problem is None and self.controller.editable)
        self.run.setToolTip(problem or "Run the repair on a worker; you can keep reviewing")
        self._update_actions()

    def choose_role(self, role: ImageRole) -> None:
        """Repair on *role*'s image (a box was just drawn or selected there)."""
        at = self.role.findData(role.value)
        if at >= 0 and at != self.role.currentIndex():
            self.role.setCurrentIndex(at)

    def current_role(self) -> ImageRole | None:
        data = self.role.currentData()  # Qt hands enum data back as a plain string
        return ImageRole(data) if data else None

    def current_box(self) -> Box | None:
        role = self.current_role()
        return self._selected_box(role) if role is not None else None

    def _run_problem(self, box: Box | None) -> str | None:
        if self.case is None:
            return "no case is open"
        if box is None:
            return "select or draw a box first"
        name = self.engine.currentData()
        cls = engine_class(name)
        op = RepairOp(self.op.currentData())
        if op not in cls.ops:
            able = ", ".join(other.label for other in engines_for(op))
            return f"{op.value} needs another engine: {able or 'none can'}"
        missing = missing_values(cls, self.engine_fields.values(name))
        return missing[0].missing_reason if missing else cls.unavailable_reason()

    def _update_instruction(self) -> None:
        text = instruction(
            RepairOp(self.op.currentData() or RepairOp.REMOVE),
            self.source.text(),
            self.target.text(),
            self.refine.text(),
        )
        if self.instruction.toPlainText() != text:
            self.instruction.setPlainText(text)

    def _update_running(self) -> None:
        mine = self.jobs.for_case(self.case.case_id) if self.case else []
        self.progress.setVisible(bool(mine))
        self.cancel.setVisible(bool(mine))
        total = len(self.jobs.jobs)
        others = total - len(mine)
        text = f"{len(mine)} repair(s) running on this case" if mine else ""
        if others:
            text += f"{' · ' if text else ''}{others} on other cases"
        editor = self.controller.editor
        said = editor.messages[-1] if editor is not None and editor.messages else ""
        self.status.setText(" · ".join(t for t in (said, text) if t))

    # --- running ------------------------------------------------------------------------------

    def params(self) -> BlendParams:
        return BlendParams(
            margin_fraction=self.margin.value(),
            grow_px=None if self.grow.value() < 0 else self.grow.value(),
            feather_px=None if self.feather.value() < 0 else self.feather.value(),
        )

    def run_repair(self) -> bool:
        box = self.current_box()
        problem = self._run_problem(box)
        if problem or self.case is None or box is None:
            self.problem = problem or "no case is open"
            self.controller.say(self.problem)
            return False
        name = self.engine.currentData()
        role = ImageRole(self.role.currentData())
        # a slow engine's quick preview first, each its own job and its own record; none
        # for a box that has a result on this image, or one on its way
        chain = preview_chain(name)
        on_its_way = bool(self.jobs.for_box(self.case.case_id, role, box))
        current = self.current_digest(role)
        if not comparison.wants_stand_in(self.case.review.repairs, role, box, current, on_its_way):
            chain = chain[-1:]
        engines = [
            self._make_engine(n, self.engine_fields.values(n), stand_in=n != name) for n in chain
        ]
        if engines[-1] is None:
            return False
        if self.fill_box.isChecked():
            engines = [fill_whole_box(e) if e is not None else None for e in engines]
        order = RepairOrder(
            box,
            RepairOp(self.op.currentData()),
            self.instruction.toPlainText(),
            self.params(),
            self._next_variant(role, box, name),
        )
        for engine in engines:
            if engine is not None:
                # the quick preview says it stands in for the engine asked for
                stand_in = name if engine.name != name else None
                self.jobs.submit(self.case, role, order, engine, stand_in)
        if self.controller.editor is not None:
            self.controller.editor.clear_messages()  # what stopped the last try is past
        self._update_running()
        return True

    def _cancel_jobs(self) -> None:
        if self.case is not None:
            for job in self.jobs.for_case(self.case.case_id):
                self.jobs.cancel(job.id)

    def _make_engine(
        self, name: str, values: dict[str, ParamValue | None], stand_in: bool = False
    ) -> RepairEngine | None:
        """The engine (a stand-in as quick as it can be), or None with the reason it cannot
        run in the status line."""
        try:
            if stand_in:
                return make_stand_in(name, settings=self.settings)
            return make_engine(name, settings=self.settings, **values)
        except EngineUnavailableError as exc:
            self.problem = f"{name}: {exc.reason}"
            self.controller.say(self.problem)
            return None

    # --- previews -----------------------------------------------------------------------------

    def _fill_previews(self) -> None:
        shown = self.selected_repair()
        self._keep_selected = shown.id if shown is not None else None
        self.previews.blockSignals(True)
        self.previews.clear()
        repairs = self.case.review.repairs if self.case else []
        # one entry per box, newest box first: its shown result, its alternatives under it
        for box in reversed(comparison.group(repairs)):
            current = self.current_digest(ImageRole(box.key[0]))
            for n, record in enumerate([box.best(), *box.alternatives()]):
                self._add_entry(record, box, current, alternative=n > 0)
        self.previews.blockSignals(False)
        self._update_actions()

    def current_digest(self, role: ImageRole) -> str | None:
        """The hash of *role*'s image now (from memory while the file is unchanged)."""
        return comparison.image_digest(self.case.images.get(role) if self.case else None)

    def _add_entry(
        self,
        record: RepairRecord,
        box: comparison.BoxResults,
        current: str | None,
        alternative: bool,
    ) -> None:
        state = comparison.state_text(record, box, current)
        text = f"{record.id} · {record.op} · {comparison.made_by(record)} · {state}"
        if alternative:
            text = "    ↳ " + text
        if record.warnings:
            text = "⚠ " + text
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, record.id)
        tip = [record.instruction]
        if record.seam is not None:
            tip.append(f"seam score {record.seam:.2f} (1.0 = no visible seam)")
        tip += [f"warning: {w}" for w in record.warnings]
        item.setToolTip("\n".join(tip))
        self.previews.addItem(item)
        if record.id == self._keep_selected:
            self.previews.setCurrentItem(item)

    def selected_repair(self) -> RepairRecord | None:
        item = self.previews.currentItem()
        if item is None or self.case is None:
            return None
        repair_id = item.data(Qt.ItemDataRole.UserRole)
        return next((r for r in self.case.review.repairs if r.id == repair_id), None)

    def select_repair(self, repair_id: str) -> None:
        for row in range(self.previews.count()):
            if self.previews.item(row).data(Qt.ItemDataRole.UserRole) == repair_id:
                self.previews.setCurrentRow(row)
                return

    def _on_preview_changed(self, *_: object) -> None:
        self.preview_selected.emit(self.selected_repair())
        self.refresh()

    def _update_actions(self) -> None:
        record = self.selected_repair()
        status = record.status if record else None
        editable = self.controller.editable
        current = self.current_digest(ImageRole(record.image_role)) if record else None
        # Accept names what it accepts; a result made on an image changed since offers to
        # repair again on the image as it is now
        self.accept.setText(comparison.accept_label(record, current))
        stale = record is not None and comparison.is_stale(record, current)
        self.accept.setEnabled(editable and (stale or comparison.can_accept(record, current)))
        self.discard.setEnabled(editable and status == "preview")
        self.revert.setEnabled(editable and status == "accepted")
        self.again.setEnabled(editable and record is not None)
        self.back.setEnabled(record is not None)

    def _accept_or_again(self) -> None:
        """Accept the result shown, or, when it was made on an image that has changed
        since, repair the same box again on the image as it is now."""
        record = self.selected_repair()
        if record is None:
            return
        current = self.current_digest(ImageRole(record.image_role))
        if comparison.is_stale(record, current):
            self._repair_again()
        else:
            self.controller.accept_repair(record.id)

    def _act(self, action: Callable[[str], bool]) -> None:
        record = self.selected_repair()
        if record is not None:
            action(record.id)

    def _repair_again(self) -> None:
        """Run the selected repair's request once more: a model gives a new answer, the
        patch-based engine its next fill of the box."""
        record = self.selected_repair()
        if record is None or self.case is None:
            return
        values = self.engine_fields.values(record.engine)
        if record.engine in ENGINES and record.model:
            # the model that made this repair, whatever the field or the setting says now
            values |= {p.name: record.model for p in ENGINES[record.engine].params if p.is_model}
        engine = self._make_engine(record.engine, values)
        if engine is None:
            return
        role = ImageRole(record.image_role)
        order = RepairOrder(
            record.box,
            record.op,
            record.instruction,
            self.params(),
            self._next_variant(role, record.box, record.engine),
        )
        self.jobs.submit(self.case, role, order, engine)
        self._update_running()

    def _next_variant(
        self, role: ImageRole, box: tuple[float, float, float, float], engine: str
    ) -> int:
        """The fill a new repair of *box* by *engine* makes: the next after the box's
        recorded and still computing ones (another fill, not the same pixels again)."""
        if self.case is None:
            return 0
        running = self.jobs.variants_running(self.case.case_id, role, box, engine)
        return comparison.next_variant(self.case.review.repairs, role, box, engine, running)
