#!/usr/bin/env bash
# Build a standalone sabre-desk bundle in dist/sabre-desk/ with PyInstaller.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv-bundle
.venv-bundle/bin/pip install -q . pyinstaller
.venv-bundle/bin/pyinstaller --noconfirm --clean packaging/sabre-desk.spec
echo "bundle: dist/sabre-desk/sabre-desk"
