#!/usr/bin/env bash
# Build the documentation site (Sphinx, numpydoc, autosummary) with warnings as errors, then
# run every example of it: the docstring examples of every public name (the API pages) and
# the pages' own doctest blocks (sphinx doctest builder).
#   tools/docs.sh        -> docs/_build/html/index.html
# Needs the docs extra: pip install -e ".[docs]" (tools/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
START=$(date +%s)
export MPLBACKEND=Agg
rm -rf docs/_build docs/generated docs/_generated
$PY -m sphinx -W --keep-going -E -q -b html docs docs/_build/html
echo "[docs] html built in $(( $(date +%s) - START )) s: docs/_build/html/index.html"
# the doctest builder reuses the parsed pages (docs/_build/doctrees); it runs in a scratch
# folder, since some examples write files
REPO=$(pwd)
SCRATCH=$(mktemp -d)
(cd "$SCRATCH" && $PY -m sphinx -W --keep-going -q -b doctest -d "$REPO/docs/_build/doctrees" \
    "$REPO/docs" "$REPO/docs/_build/doctest")
rm -rf "$SCRATCH"
tail -n 6 docs/_build/doctest/output.txt
echo "[docs] built and examples run in $(( $(date +%s) - START )) s"
