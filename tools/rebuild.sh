#!/usr/bin/env bash
# Rebuild the extension after a C change in a development checkout set up by tools/setup.sh:
# incremental CMake build in build/py (copied next to the sources), then the copy the editable
# install loads. Serialised with a lock so that parallel shells never build at once.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
exec 9>/tmp/wpart-build.lock
flock 9
cmake --build build/py -j "${JOBS:-2}"
SITE=$($PY -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
# Copy to a temporary name and rename: a process that has the old extension loaded keeps its
# (unlinked) file, instead of seeing its mapped code overwritten (SIGBUS).
for so in build/py/_core*.so; do
  for dest in wpart "$SITE/wpart"; do
    [ -d "$dest" ] || continue
    cp "$so" "$dest/.$(basename "$so").tmp" && mv -f "$dest/.$(basename "$so").tmp" "$dest/$(basename "$so")"
  done
done
