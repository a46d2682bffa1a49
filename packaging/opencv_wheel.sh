#!/usr/bin/env bash
# An OpenCV wheel of only what sabre-desk uses, for the standalone bundle: built once from
# PyPI's source of opencv-contrib-python-headless, kept in a cache, its path printed.
#
# PyPI's wheel is 190 MiB in the bundle: every contrib module in one library that links
# FFmpeg, OpenBLAS, libavif, AV1 and VPX (the loader refuses cv2 without any of them), where
# the app uses five modules and no video. This one is 25 MiB (stripped); it keeps the package's
# name and version, so `pip install .` takes it as the dependency it is.
#
# Usage: packaging/opencv_wheel.sh PYTHON   (the Python the bundle is built with)
# Needs a C++ compiler and CMake; the first build took 16 min on two cores.
set -euo pipefail
python=$1
version=${SABRE_DESK_OPENCV_VERSION:-5.1.0.95}

# The modules the code calls (sabre_desk/): core and imgproc (drawing, resizing, blurs,
# distances, morphology), imgcodecs (PNG and JPEG in memory: previews and the PNG fast path),
# photo (Telea, Navier-Stokes) and xphoto (FSR). Image formats: PNG and JPEG only (Pillow
# reads WebP). No video, no GPU, no parallel runtime but OpenCV's own threads, no IPP (its
# binaries are downloaded at configure time). features is unused but the Python binding's
# typing stubs name its Feature2D: without it the wheel's install step fails.
modules=core,imgproc,imgcodecs,photo,xphoto,features,python3
off=(IPP FFMPEG GSTREAMER V4L OPENCL LAPACK EIGEN TBB WEBP TIFF OPENJPEG JASPER OPENEXR AVIF
  PROTOBUF ADE ITT FASTCV KLEIDICV VA VA_INTEL 1394 OBSENSOR CAROTENE HAL_RVV)
cmake_args="-DBUILD_LIST=$modules -DBUILD_OPENEXR=OFF"
for option in "${off[@]}"; do cmake_args+=" -DWITH_$option=OFF"; done

cache=${SABRE_DESK_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sabre-desk/wheels}
key=$(printf '%s\n' "$version" "$cmake_args" "$("$python" -c 'import sys, sysconfig; print(sysconfig.get_platform(), sys.version_info[:2])')" |
  { sha256sum 2>/dev/null || shasum -a 256; } | cut -c1-12)
folder="$cache/opencv-$version-$key"
if ! compgen -G "$folder/*.whl" >/dev/null; then
  echo "building OpenCV $version ($modules) into $folder: once, about 16 min on two cores" >&2
  rm -rf "$folder.partial"
  ENABLE_CONTRIB=1 ENABLE_HEADLESS=1 CMAKE_ARGS="$cmake_args" \
    CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)} \
    "$python" -m pip wheel -q --no-cache-dir --no-deps --no-binary opencv-contrib-python-headless \
    "opencv-contrib-python-headless==$version" -w "$folder.partial" >&2
  mv "$folder.partial" "$folder"
fi
compgen -G "$folder/*.whl"
