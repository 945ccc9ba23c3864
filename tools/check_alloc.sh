#!/usr/bin/env bash
# Fail on any raw malloc/calloc/realloc call in csrc/ outside the allocator file
# (csrc/base/alloc.c): every allocation goes through the overflow-checked wpart_i_malloc /
# wpart_i_calloc / wpart_i_realloc. free() is fine. Prints file:line of each offender and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
ALLOC_FILE=csrc/base/alloc.c
# A call is the bare name followed by '('; wpart_i_malloc( and the like do not match because the
# name must not be preceded by an identifier character. Comment-only lines are skipped.
hits=$(grep -rnE --include='*.c' --include='*.h' '(^|[^A-Za-z0-9_])(malloc|calloc|realloc)[[:space:]]*\(' csrc \
  | grep -v "^$ALLOC_FILE:" \
  | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
if [ -n "$hits" ]; then
  echo "raw allocation outside $ALLOC_FILE (use wpart_i_malloc / wpart_i_calloc / wpart_i_realloc):"
  echo "$hits"
  exit 1
fi
echo "check_alloc: no raw malloc/calloc/realloc in csrc/ outside $ALLOC_FILE"
