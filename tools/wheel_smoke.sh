#!/usr/bin/env bash
# Install a wheel built by tools/build_wheel.sh into a fresh venv and run a smoke test with the
# system's GLPK out of reach: LD_LIBRARY_PATH empty, `ldd` must resolve GLPK from the wheel's
# wpart.libs/, and (when run as root with `unshare`) the system libglpk is hidden by a bind
# mount in a private mount namespace while the smoke test runs.
#   tools/wheel_smoke.sh dist/wpart-*.whl
set -euo pipefail
cd "$(dirname "$0")/.."
WHEEL=$(readlink -f "$1")
PY=${PYTHON:-python3}
VENV=${WPART_SMOKE_VENV:-build/wheel-venv}
START=$(date +%s)
rm -rf "$VENV"
$PY -m venv "$VENV"
VENV=$(readlink -f "$VENV")
"$VENV/bin/python" -m pip install -q "$WHEEL"
cd /tmp  # away from the checkout, whose ./wpart would shadow the installed package
SO=$("$VENV/bin/python" -c "import importlib.util as u; print(u.find_spec('wpart._core').origin)")
echo "[wheel_smoke] extension: $SO"
ldd "$SO" | grep -i glpk
if ! ldd "$SO" | grep -i glpk | grep "wpart.libs/" >/dev/null; then
  echo "[wheel_smoke] GLPK is not resolved from the wheel's wpart.libs/"; exit 1
fi
cat > "$VENV/smoke.py" <<'PYEOF'
import numpy as np
import wpart
import wpart._core as core
from wpart import hetero, spatial, tasks

assert "site-packages" in wpart.__file__, wpart.__file__
assert core.have_glpk, "the wheel's extension was built without GLPK"
# the README's five lines
loads = np.random.default_rng(0).integers(1, 1000, 100_000)
r = wpart.partition_1d(loads, 64)
print(r.max_load, r.lower_bound, f"{r.imbalance:.3%}")
S = wpart.prefix_sum(np.ones((512, 512), dtype=np.int64))
assert r.max_load >= r.lower_bound and S[-1, -1] == 512 * 512
s = spatial.partition(np.arange(1, 65, dtype=np.int64).reshape(8, 8), 4)
# an exact MILP through the bundled GLPK
t = tasks.solve_milp(tasks.paper_toy())
assert t.status == "optimal" and abs(t.max_load - 2.5) < 1e-9, (t.status, t.max_load)
f = hetero.milp_front(hetero.synthetic("dgemm-like", seed=0), 2560)
assert f.status == "optimal", f.status
print("smoke: partition_1d", r.max_load, "| spatial", s.method, s.max_load,
      "| tasks MILP (GLPK)", t.max_load, "| hetero MILP front", f.size, "points")
PYEOF
HIDE=""
# (awk reads to the end: leaving early can kill ldconfig with SIGPIPE, fatal under pipefail)
GLPK_SYS=$(ldconfig -p 2>/dev/null | awk '/libglpk\.so\./ && !found {print $NF; found = 1}')
if [ "$(id -u)" = "0" ] && command -v unshare >/dev/null 2>&1 && [ -n "$GLPK_SYS" ] \
   && unshare -m true 2>/dev/null; then
  HIDE="mount --bind /dev/null $(readlink -f "$GLPK_SYS") &&"
  echo "[wheel_smoke] hiding the system's $(readlink -f "$GLPK_SYS") in a private mount namespace"
  env LD_LIBRARY_PATH= unshare -m sh -c "$HIDE ldd '$SO' | grep -i glpk && '$VENV/bin/python' '$VENV/smoke.py'"
else
  env LD_LIBRARY_PATH= "$VENV/bin/python" "$VENV/smoke.py"
fi
"$VENV/bin/wpart" --version
echo "[wheel_smoke] passed in $(( $(date +%s) - START )) s"
