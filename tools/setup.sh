#!/usr/bin/env bash
# Install everything wpart needs on a fresh Debian/Ubuntu machine, then build and install wpart.
#   system: a C compiler, CMake, GLPK (libglpk-dev) and its CLI, valgrind for the memory checks,
#           Open MPI (openmpi-bin, libopenmpi-dev) for the MPI engines (mpi4py)
#   python: wpart itself (editable, built with scikit-build-core) plus its test extras and
#           the OpenCL extra (pyopencl + the PoCL CPU driver, for the multi-kernel OpenCL runs)
# Uses the active python3 (a virtualenv or pyenv interpreter is recommended). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
fi
PKGS="build-essential cmake ninja-build pkg-config libglpk-dev glpk-utils valgrind openmpi-bin libopenmpi-dev"
missing=""
for p in $PKGS; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "[wpart setup] apt-get install:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

PY=${PYTHON:-python3}
echo "[wpart setup] pip install (build + test requirements) with $($PY --version)"
$PY -m pip install -q --upgrade "pip>=23" 2>/dev/null || true
$PY -m pip install -q "scikit-build-core>=0.10" "numpy>=1.23" "cmake>=3.21" ninja
# Editable install; the built extension is also copied next to the sources so that
# `python -m wpart` and the tests work from the repository root.
$PY -m pip install -q --no-build-isolation -e ".[test,mpi,opencl,notebook,docs,wheel]" \
    -Cbuild-dir=build/py -Ccmake.define.WPART_INPLACE=ON
$PY -c "import wpart, wpart._core as c; print('[wpart setup] wpart', wpart.__version__, 'GLPK' if c.have_glpk else 'no GLPK')"
