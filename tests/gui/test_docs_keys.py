"""docs/keys.md and the menu items the pages name, against the real window: every key the
page lists is a shortcut of the window, every shortcut of the window is on the page under
the group F1 shows it in, and every **Menu > Item** a page names is in that menu."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from pathlib import Path

from docs_pages import DOCS, cells, name, pages, prose, tables
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu

from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.shortcuts import MOUSE_HELP, shortcuts_html

KEYS_PAGE = DOCS / "keys.md"
MENUS_SECTION = "Menus and the toolbar"
IMAGE_SECTION = "On an image"
PORTABLE = QKeySequence.SequenceFormat.PortableText
#: Its key is the platform's own (Ctrl+Q on most Linux desktops, none offscreen): the page
#: says so in words instead of listing a key.
PLATFORM_KEYS = {("File", "Quit")}


def _key(text: str) -> str:
    sequence = QKeySequence(text)
    assert not sequence.isEmpty(), f"docs/keys.md: {text!r} is not a key"
    return sequence.toString(PORTABLE)


def _label(action: QAction) -> str:
    return action.text().replace("&", "")


def _documented() -> tuple[dict[tuple[str, str], set[str]], list[str]]:
    """(group, command) → keys from the page's menu tables; the keys of its image table."""
    menus: dict[tuple[str, str], set[str]] = {}
    image: list[str] = []
    for path, row in tables(KEYS_PAGE.read_text(encoding="utf-8")):
        section = path[1] if len(path) > 1 else ""
        if section == MENUS_SECTION:
            keys, command = cells(row)[:2]
            menus[(path[2], command)] = {_key(k) for k in keys.split(", ")}
        elif section == IMAGE_SECTION:
            image.append(cells(row)[0])
    return menus, image


def _window_keys(window: MainWindow) -> dict[tuple[str, str], set[str]]:
    """What F1 lists: each action with keys, under its group; plus any action or QShortcut
    of the window that F1 would not list (it must be documented too)."""
    found: dict[tuple[str, str], set[str]] = {}
    listed: set[int] = set()
    for group, actions in window.actions_.groups.items():
        for action in actions:
            if (group, _label(action)) in PLATFORM_KEYS:
                listed.add(id(action))
            elif action.shortcuts():
                found[(group, _label(action))] = {s.toString(PORTABLE) for s in action.shortcuts()}
                listed.add(id(action))
    for action in window.findChildren(QAction):
        if action.shortcuts() and id(action) not in listed:
            found[("(not in F1)", _label(action))] = {
                s.toString(PORTABLE) for s in action.shortcuts()
            }
    for shortcut in window.findChildren(QShortcut):
        found[("(not in F1)", "QShortcut")] = {shortcut.key().toString(PORTABLE)}
    return found


def test_the_keys_page_is_the_windows_own_list_of_shortcuts(
    window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, "ctx01_tape_bagel")
    documented, image = _documented()
    actual = _window_keys(window)
    missing = {k: v for k, v in actual.items() if documented.get(k) != v}
    extra = {k: v for k, v in documented.items() if actual.get(k) != v}
    assert not missing and not extra, (
        f"in the window, not as such in docs/keys.md: {missing}\n"
        f"in docs/keys.md, not as such in the window: {extra}"
    )
    assert ("Decide", "Keep") in documented and len(documented) > 30
    # the keys the image views handle themselves: exactly F1's "Images and boxes"
    assert image == [key for key, _ in MOUSE_HELP]
    sheet = shortcuts_html(window.actions_.groups)
    for group, command in documented:
        assert f"<h4>{escape(group)}</h4>" in sheet and escape(command) in sheet


def _menu_items(window: MainWindow) -> set[tuple[str, ...]]:
    items: set[tuple[str, ...]] = set()

    def walk(menu: QMenu, path: tuple[str, ...]) -> None:
        for action in menu.actions():
            label = _label(action)
            if action.menu() is not None:
                walk(action.menu(), (*path, label))
            elif label:
                items.add((*path, label))

    for action in window.menuBar().actions():
        if action.menu() is not None:
            walk(action.menu(), (_label(action),))
    return items


def test_every_menu_item_the_pages_name_is_in_that_menu(
    window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """Pages write a menu item in bold, **Menu > Item**; each is in the window's menus."""
    open_case(window, demo_project, "ctx01_tape_bagel")
    items = _menu_items(window)
    menus = {path[0] for path in items}
    named, unknown = [], []
    for page in pages():
        for bold in re.findall(r"\*\*([^*]+?)\*\*", prose(page.read_text(encoding="utf-8"))):
            path = tuple(part.strip() for part in " ".join(bold.split()).split(" > "))
            if len(path) < 2 or path[0] not in menus:
                continue
            named.append(path)
            if path not in items:
                unknown.append(f"{name(page)}: {bold}")
    assert not unknown, "not in the window's menus:\n" + "\n".join(unknown)
    assert ("Review", "Team…") in named and ("File", "New Project…") in named
