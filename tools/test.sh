#!/usr/bin/env bash
# Run the whole test suite: the C tests (plain CMake + ctest, then under ASan+UBSan, then under
# valgrind when it is installed) and the Python tests (pytest, notebooks included).
# Long cases are marked `slow` and skipped; run them with `tools/test.sh -m slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
JOBS=${JOBS:-2}

echo "== C core: build and ctest =="
cmake -S . -B build/ctest -G Ninja -DWPART_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/ctest -j "$JOBS"
ctest --test-dir build/ctest --output-on-failure

echo "== C core: ASan + UBSan =="
cmake -S . -B build/asan -G Ninja -DWPART_BUILD_TESTS=ON -DWPART_SANITIZE=ON \
      -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build/asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure

if command -v valgrind >/dev/null 2>&1; then
  echo "== C core: valgrind =="
  for t in build/ctest/test_*; do
    [ -x "$t" ] || continue
    valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
      "$t" >/dev/null
    echo "valgrind clean: $(basename "$t")"
  done
fi

echo "== Python: pytest =="
$PY -m pytest -q "$@"
