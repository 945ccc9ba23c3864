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

# The Python tests: the plain stage against the built package, and the extension itself
# under ASan + UBSan (built sanitized, staged with a copy of the package; leak detection off:
# CPython's own allocations are reported as leaks, the C tests above run with it on). The two
# stages are independent and each mostly single-threaded, so they run side by side (one core
# each); the files that start many processes (MPI, the README's scripts) or time real threads
# run alone afterwards.
REPO=$(pwd)
SERIAL="test_tasks_mpi.py test_tasks_mpi_faults.py test_dynamic_mpi.py test_readme.py
        test_tasks_pinned.py test_multikernel_real.py test_first_contact.py"
SERIAL_IGNORE=""
SERIAL_PATHS=""
for f in $SERIAL; do
  SERIAL_IGNORE="$SERIAL_IGNORE --ignore $REPO/tests/$f"
  [ -e "tests/$f" ] && SERIAL_PATHS="$SERIAL_PATHS tests/$f"
done
ASAN_PID=""
if [ "${WPART_SKIP_ASAN_PY:-0}" != "1" ] && command -v gcc >/dev/null 2>&1; then
  cmake -S . -B build/asan-py -G Ninja -DWPART_BUILD_PYTHON=ON -DWPART_SANITIZE=ON \
        -DWPART_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build build/asan-py -j "$JOBS" >/dev/null
  rm -rf build/asan-pkg && mkdir -p build/asan-pkg
  cp -r wpart build/asan-pkg/
  find build/asan-pkg -name '*.so' -delete
  cp build/asan-py/_core*.so build/asan-pkg/wpart/
  ASAN_LIB=$(gcc -print-file-name=libasan.so)
  STDCXX_LIB=$(gcc -print-file-name=libstdc++.so.6)
  # This stage is for the extension's C code. Files whose time goes to subprocesses, plotting,
  # notebooks, whole paper reproductions, benchmark quick modes and real thread runs (their C
  # calls are covered by the other files) run in the plain stage only (MPI tests skip
  # themselves here: the LD_PRELOAD would reach Open MPI).
  ASAN_IGNORE=""
  for f in test_notebooks.py test_readme.py test_cli.py test_cli_families.py test_first_contact.py \
           test_spatial_reproduce.py test_hetero_reproduce.py test_reproduce_verdicts.py \
           test_reproduce_multikernel.py test_multikernel_bench.py test_tasks_bench_datasets.py \
           test_spatial_sparse_bench.py test_dynamic_solver_bench.py test_multikernel_real.py \
           test_tasks_mpi.py test_tasks_mpi_faults.py test_dynamic_mpi.py; do
    ASAN_IGNORE="$ASAN_IGNORE --ignore $REPO/tests/$f"
  done
  for f in "$REPO"/tests/test_bench_*.py; do
    [ -e "$f" ] && ASAN_IGNORE="$ASAN_IGNORE --ignore $f"
  done
  # The editable install's redirecting finder would send `import wpart` back to the checkout:
  # drop it in this process so the staged, sanitized copy is the one tested.
  NO_EDITABLE="import sys; sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != 'ScikitBuildRedirectingFinder']"
  echo "== Python: pytest against the ASan + UBSan extension (in the background; log below) =="
  (cd build/asan-pkg &&
   LD_PRELOAD="$ASAN_LIB $STDCXX_LIB" MPLBACKEND=Agg WPART_SANITIZED=1 \
   ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   $PY -c "$NO_EDITABLE
import wpart, pytest
assert wpart.__file__.startswith('$REPO/build/asan-pkg'), wpart.__file__
sys.exit(pytest.main(sys.argv[1:]))" \
       -q -p no:cacheprovider --rootdir "$REPO" -c "$REPO/pyproject.toml" \
       --basetemp "$REPO/build/pytest-asan" --durations=15 "$REPO/tests" $ASAN_IGNORE "$@") \
    > build/asan-py.log 2>&1 &
  ASAN_PID=$!
fi

echo "== Python: pytest =="
START=$(date +%s)
RC=0
$PY -m pytest -q --durations=15 --basetemp "$REPO/build/pytest-plain" $SERIAL_IGNORE "$@" || RC=$?
echo "(plain stage: $(( $(date +%s) - START )) s)"
if [ -n "$ASAN_PID" ]; then
  ARC=0
  wait "$ASAN_PID" || ARC=$?
  echo "== Python: pytest against the ASan + UBSan extension: output =="
  cat build/asan-py.log
  echo "(ASan stage ended $(( $(date +%s) - START )) s after the plain stage began; exit $ARC)"
  [ "$ARC" -eq 0 ] || RC=$ARC
fi
echo "== Python: pytest, the files that run many processes, alone =="
SRC=0
$PY -m pytest -q --durations=5 --basetemp "$REPO/build/pytest-serial" $SERIAL_PATHS "$@" || SRC=$?
[ "$SRC" -eq 0 ] || [ "$SRC" -eq 5 ] || RC=$SRC  # 5: none of them selected (-k, -m)

if [ "${WPART_SKIP_DOCS:-0}" != "1" ]; then
  echo "== Docs: Sphinx site with warnings as errors, and every example in it =="
  DSTART=$(date +%s)
  tools/docs.sh || RC=1
  echo "(docs stage: $(( $(date +%s) - DSTART )) s)"
fi
if [ "${WPART_SKIP_WHEEL:-0}" != "1" ]; then
  echo "== Wheel: build (pip wheel + auditwheel), install into a fresh venv, smoke test =="
  WSTART=$(date +%s)
  tools/build_wheel.sh --smoke || RC=1
  echo "(wheel stage: $(( $(date +%s) - WSTART )) s)"
fi
exit $RC
