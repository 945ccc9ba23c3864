#!/usr/bin/env bash
# Run the whole test suite: the C tests (plain CMake + ctest, then under ASan+UBSan, then under
# valgrind for what ASan cannot see), the Python tests (pytest, notebooks included) against the
# plain extension and, for the tests that reach the C core, against the ASan+UBSan extension;
# then the docs site and the wheel. Long cases are marked `slow` and skipped; run them with
# `tools/test.sh -m slow` (extra arguments go to every pytest stage).
#
# Three lanes share the machine's cores: lane A runs the docs and the wheel; lane B runs the C
# tests (plain, ASan + UBSan, valgrind) and the sanitized pytest stage; lane C runs the files
# that start many processes (MPI jobs, the README's scripts). Those mostly wait (176 CPU-s in
# 236 s alone on 2 cores), so lane C goes first: lanes A and B run at nice 10 and take the time
# it leaves. The plain pytest stage is cut into chunks of about equal time
# (tools/test_chunks.py) that lanes A and B take from a queue once their own stages are done,
# so they end together. The files that time real CPU load run alone at the end. Lanes B and C
# print their output when all are done. Each stage's time is printed, and a table of them
# closes the run.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
JOBS=${JOBS:-2}
REPO=$(pwd)
mkdir -p build
TIMES="$REPO/build/stage-times.txt"
: > "$TIMES"
T0=$(date +%s)

# stage NAME CMD...: run CMD, print and record its wall time; returns CMD's status
stage() {
  local name=$1 s rc=0
  shift
  s=$(date +%s)
  "$@" || rc=$?
  echo "($name: $(( $(date +%s) - s )) s$( [ "$rc" -eq 0 ] || echo ", exit $rc"))"
  printf '%-58s %5d s  %s\n' "$name" "$(( $(date +%s) - s ))" \
         "$( [ "$rc" -eq 0 ] && echo ok || echo "FAILED ($rc)")" >> "$TIMES"
  return "$rc"
}

c_plain() {
  echo "== C core: build and ctest =="
  cmake -S . -B build/ctest -G Ninja -DWPART_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release \
        >/dev/null || return 1
  cmake --build build/ctest -j "$JOBS" || return 1
  ctest --test-dir build/ctest --output-on-failure || return 1
  echo "== C core: raw allocations (every one goes through the checked allocators) =="
  if [ -x tools/check_alloc.sh ]; then tools/check_alloc.sh || return 1; fi
}

# One ASan + UBSan build (-O1 -g, as fuzzing infrastructures build for ASan) gives the C tests
# and the extension that the sanitized pytest stage loads.
asan_build() {
  cmake -S . -B build/asan -G Ninja -DWPART_BUILD_TESTS=ON -DWPART_BUILD_PYTHON=ON \
        -DWPART_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" >/dev/null || return 1
  cmake --build build/asan -j 1 >/dev/null
}

c_asan() {
  echo "== C core: ASan + UBSan =="
  asan_build || return 1
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build/asan --output-on-failure
}

# valgrind for what ASan + UBSan cannot see: reads of uninitialised memory (memcheck's
# definedness checks). Leaks are LeakSanitizer's (the ASan stage runs with detect_leaks=1).
c_valgrind() {
  command -v valgrind >/dev/null 2>&1 || { echo "(valgrind not installed: skipped)"; return 0; }
  echo "== C core: valgrind (uninitialised reads) =="
  for t in build/ctest/test_*; do
    [ -x "$t" ] || continue
    valgrind -q --error-exitcode=1 --leak-check=no --undef-value-errors=yes \
      --track-origins=no "$t" >/dev/null || return 1
    echo "valgrind clean: $(basename "$t")"
  done
}

# The files that start many processes (MPI, the README's scripts): lane C, beside the others.
# The files that time real CPU load (a load step must meet an idle machine): alone, at the end.
MANY="test_tasks_mpi.py test_tasks_mpi_faults.py test_dynamic_mpi.py test_readme.py
      test_tasks_pinned.py test_first_contact.py"
ALONE="test_multikernel_real.py"
SERIAL="$MANY $ALONE"
# paths LIST: the files of LIST that exist, as tests/ paths
paths() {
  local f
  for f in $1; do [ -e "tests/$f" ] && echo "tests/$f"; done
}

# The extension under ASan + UBSan, staged with a copy of the package (leak detection off:
# CPython's own allocations are reported as leaks; the C tests run with it on). tests/conftest.py
# chooses what runs here (WPART_SANITIZED=1): the tests that tools/asan_select.py measured to
# reach, together, every basic block of wpart._core that the whole stage reaches (the others
# are listed in tests/asan_drop.txt), with fewer hypothesis examples; files whose time goes to
# subprocesses, notebooks, whole reproductions, benchmark quick modes or mpirun are not
# collected (SANITIZED_IGNORE); all of them run against the plain extension.
py_asan() {
  command -v gcc >/dev/null 2>&1 || { echo "(no gcc: sanitized pytest stage skipped)"; return 0; }
  echo "== Python: pytest against the ASan + UBSan extension =="
  asan_build || return 1  # c_asan's build (made here if that stage did not run)
  rm -rf build/asan-pkg && mkdir -p build/asan-pkg || return 1
  cp -r wpart build/asan-pkg/ || return 1
  find build/asan-pkg -name '*.so' -delete
  cp build/asan/_core*.so build/asan-pkg/wpart/ || return 1
  local asan_lib stdcxx_lib
  asan_lib=$(gcc -print-file-name=libasan.so)
  stdcxx_lib=$(gcc -print-file-name=libstdc++.so.6)
  # The editable install's redirecting finder would send `import wpart` back to the checkout:
  # drop it in this process so the staged, sanitized copy is the one tested.
  local no_editable="import sys; sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != 'ScikitBuildRedirectingFinder']"
  (cd build/asan-pkg &&
   LD_PRELOAD="$asan_lib $stdcxx_lib" MPLBACKEND=Agg WPART_SANITIZED=1 \
   ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   $PY -c "$no_editable
import wpart, pytest
assert wpart.__file__.startswith('$REPO/build/asan-pkg'), wpart.__file__
sys.exit(pytest.main(sys.argv[1:]))" \
       -q -p no:cacheprovider --rootdir "$REPO" -c "$REPO/pyproject.toml" \
       --basetemp "$REPO/build/pytest-asan" --durations=15 "$REPO/tests" "$@")
}

# The plain pytest stage as a queue of chunks (build/queue/NN.todo: test files, heaviest
# chunk first). take_chunk LANE claims the next one by renaming it (a rename succeeds for one
# lane only) and prints its path; it fails when none is left.
PLAIN_CHUNKS=${PLAIN_CHUNKS:-12}
make_queue() {
  local files=() f serial
  serial=" $(echo $SERIAL) "
  rm -rf build/queue && mkdir -p build/queue
  for f in tests/test_*.py; do
    case "$serial" in *" $(basename "$f") "*) continue ;; esac
    files+=("$f")
  done
  $PY tools/test_chunks.py build/queue "$PLAIN_CHUNKS" "${files[@]}"
}

take_chunk() {
  local f
  for f in build/queue/*.todo; do
    [ -e "$f" ] || continue
    if mv "$f" "${f%.todo}.lane-$1" 2>/dev/null; then
      echo "${f%.todo}.lane-$1"
      return 0
    fi
  done
  return 1
}

py_chunk() {
  local f=$1 rc=0
  shift
  echo "== Python: pytest, plain chunk $(basename "${f%%.*}"): $(tr '\n' ' ' < "$f")=="
  # shellcheck disable=SC2046
  $PY -m pytest -q -p no:cacheprovider --durations=5 \
      --basetemp "$REPO/build/pytest-plain-$(basename "${f%%.*}")" $(cat "$f") "$@" || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 5 ]  # 5: none of its tests selected (-k, -m)
}

# plain_worker LANE: run plain chunks until the queue is empty
plain_worker() {
  local lane=$1 rc=0 f
  shift
  while f=$(take_chunk "$lane"); do
    stage "Python: pytest (plain) chunk $(basename "${f%%.*}"), lane $lane" py_chunk "$f" "$@" \
      || rc=1
  done
  return "$rc"
}

# py_files NAME LIST [args]: pytest over the files of LIST
py_files() {
  local name=$1 list=$2 rc=0
  shift 2
  echo "== Python: pytest, $name =="
  # shellcheck disable=SC2046
  $PY -m pytest -q -p no:cacheprovider --durations=5 --basetemp "$REPO/build/pytest-$name" \
      $(paths "$list") "$@" || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 5 ]  # 5: none of them selected (-k, -m)
}

docs() {
  echo "== Docs: Sphinx site with warnings as errors, and every example in it =="
  tools/docs.sh
}

wheel() {
  echo "== Wheel: build (pip wheel + auditwheel), install into a fresh venv, smoke test =="
  tools/build_wheel.sh --smoke
}

RC=0
make_queue || RC=1

# lane B, in the background: C tests, valgrind, sanitized pytest, then plain chunks
lane_b() {
  local rc=0
  stage "C core: build, ctest, allocation check" c_plain || rc=1
  stage "C core: ASan + UBSan (ctest)" c_asan || rc=1
  stage "C core: valgrind" c_valgrind || rc=1
  if [ "${WPART_SKIP_ASAN_PY:-0}" != "1" ]; then
    stage "Python: pytest, ASan + UBSan extension" py_asan "$@" || rc=1
  fi
  plain_worker B "$@" || rc=1
  return "$rc"
}
# lane C, in the background: the many-process files, at the usual priority; lanes A and B (and
# all that this shell starts from now on) at nice 10, so that a rank or a watchdog that wakes
# up runs at once, as on an idle machine, and the lanes take the time it leaves
stage "Python: pytest, many-process files (lane C)" py_files many "$MANY" "$@" \
  > build/lane-c.log 2>&1 &
LANE_C=$!
renice -n 10 -p $$ >/dev/null 2>&1 || echo "(renice failed: lanes A and B at the usual priority)"
lane_b "$@" > build/lane-b.log 2>&1 &
LANE_B=$!

# lane A: docs, wheel, then plain chunks
if [ "${WPART_SKIP_DOCS:-0}" != "1" ]; then stage "Docs: Sphinx + examples" docs || RC=1; fi
if [ "${WPART_SKIP_WHEEL:-0}" != "1" ]; then stage "Wheel: build + smoke test" wheel || RC=1; fi
plain_worker A "$@" || RC=1
wait "$LANE_B" || RC=1
echo "== lane B: C tests, valgrind, sanitized pytest, plain chunks: output =="
cat build/lane-b.log
wait "$LANE_C" || RC=1
echo "== lane C: the many-process files: output =="
cat build/lane-c.log
stage "Python: pytest, real CPU load files alone" py_files alone "$ALONE" "$@" || RC=1

echo "== stage times (lanes A, B and C side by side; the real CPU load files after them) =="
cat "$TIMES"
echo "total: $(( $(date +%s) - T0 )) s"
exit $RC
