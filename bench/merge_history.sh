#!/bin/sh
# Prints the table of docs/vcs.md, "Merge on real histories": real commits
# of the corpus split into two branches (and one object edited on both
# sides), merged by `ensemble merge` and by `git merge-file`, side by side.
# It runs tests/integration/test_merge_history.c, which also checks every
# row (0 wrong merges, conflicts only where both sides changed one
# property). Usage: bench/merge_history.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
[ -x "$BUILD/test_merge_history" ] || { echo "build first: $BUILD/test_merge_history is missing" >&2; exit 2; }
out=$(ENS_BUILD_DIR=$(cd "$BUILD" && pwd) ENS_SOURCE_DIR=$(pwd) "$BUILD/test_merge_history" 2>&1) && status=0 || status=$?
printf '%s\n' "$out" | grep '^|' | awk '!seen[$0]++'
printf '%s\n' "$out" | grep -E '^(wrong merges|skipped)' || true
exit $status
