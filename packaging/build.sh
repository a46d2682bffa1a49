#!/usr/bin/env bash
# Build the standalone sabre-desk folder in dist/sabre-desk/ with PyInstaller (on the OS it is
# for: PyInstaller does not cross-build). macOS also gets dist/sabre-desk.app.
# Then `python packaging/smoke.py dist/sabre-desk` runs it (see .ci/bundle).
# Usage: packaging/build.sh [SPEC [DISTPATH]]   (defaults: packaging/sabre-desk.spec, dist)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

python=$(command -v python3 || command -v python)
"$python" -m venv .venv-bundle
bin=.venv-bundle/bin
[ -d .venv-bundle/Scripts ] && bin=.venv-bundle/Scripts  # a Windows venv (Git Bash)
# OpenCV of the five modules the app uses (packaging/opencv_wheel.sh: built once, cached),
# installed first so that the app's requirement is met by it; SABRE_DESK_BUNDLE_OPENCV=pypi
# keeps PyPI's wheel instead (no compiler needed, 180 MiB more)
if [ "${SABRE_DESK_BUNDLE_OPENCV:-}" != pypi ]; then
  "$bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$(bash packaging/opencv_wheel.sh "$bin/python")"
fi
# setuptools: numba's ahead-of-time compiler builds with it (a venv of 3.12+ has none)
"$bin/python" -m pip install -q --disable-pip-version-check . "pyinstaller>=6.22,<7" "setuptools>=70"
# the patch-based engine's loops compiled ahead of time: the bundle carries no numba
export SABRE_DESK_COMPILED_LOOPS=build/compiled-loops
rm -rf "$SABRE_DESK_COMPILED_LOOPS"
"$bin/python" packaging/compile_loops.py "$SABRE_DESK_COMPILED_LOOPS"
spec=${1:-packaging/sabre-desk.spec}
dist=${2:-dist}
"$bin/pyinstaller" --noconfirm --clean --log-level WARN --distpath "$dist" "$spec"

echo "bundle: $dist/sabre-desk/ ($(du -sh "$dist/sabre-desk" | cut -f1)), built in $((SECONDS - start)) s"
ls "$dist/sabre-desk" | grep -v _internal
