#!/bin/sh
# `ensemble import` end to end: the bundled hand-made Tupi projects and the
# corpus's real one (when it is there) import, and tupi_check.py, reading
# each project on its own, finds the layers, in and out points, tween
# keyframes and the list of what was not mapped as they should be; bad
# projects fail with a clear message and leave an existing output alone.
# CTest runs it as `tupi_import.sh /path/to/build/ensemble`.
set -u

BIN=${1:?usage: tupi_import.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CORPUS=${ENSEMBLE_CORPUS:-$SRC/../shared/corpus}
RES=$SRC/tests/resources/tupi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tupi_import.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

checks=0
failures=0
fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
  sed 's/^/    | /' "$TMP/out" "$TMP/err" | head -n 20 >&2
}

# run NAME STATUS COMMAND...: output in $TMP/out, $TMP/err; checks status
run() {
  name=$1
  want=$2
  shift 2
  checks=$((checks + 1))
  timeout 120 "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ "$rc" -ge 124 ]; then fail "$name: crashed or hung (exit status $rc)"; return 1; fi
  if grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/err"; then fail "$name: sanitizer report"; return 1; fi
  if [ "$rc" -ne "$want" ]; then fail "$name: exit status $rc, expected $want"; return 1; fi
  return 0
}

has() { # NAME FILE PATTERN
  checks=$((checks + 1))
  grep -q -e "$3" "$2" || fail "$1: $(basename "$2") lacks '$3'"
}

# import PROJECT: imported with --json, then checked against its source
import() {
  proj=$(basename "$1" .tup)
  run "$proj: import" 0 "$BIN" import --json "$1" -o "$TMP/$proj.json" || return
  cp "$TMP/out" "$TMP/$proj.notes"
  run "$proj: checked against the project" 0 "$PY" "$HERE/tupi_check.py" "$1" "$TMP/$proj.json" "$TMP/$proj.notes"
  cat "$TMP/out"
}

run "help" 0 "$BIN" import --help && has "help" "$TMP/out" "usage: ensemble import"
run "no output" 2 "$BIN" import "$RES/tweens.tup"
run "no operand" 2 "$BIN" import -o "$TMP/x.json"

import "$RES/tweens.tup"
import "$RES/scenes.tup"
if [ -f "$CORPUS/tupi/example.tup" ]; then
  import "$CORPUS/tupi/example.tup"
else
  echo "skipped: the corpus's tupi/example.tup is not here"
fi

# what the import writes, ensemble render draws (through rlottie, in its child)
run "render an imported frame" 0 "$BIN" render "$TMP/tweens.json" --frame 5 -o "$TMP/tweens5.png"
run "render an imported animation" 0 "$BIN" render "$TMP/scenes.json" --animate -o "$TMP/scenes.png"
has "animate" "$TMP/err" "5 frames (0..4)"

# the check can fail: a keyframe moved and a layer shortened are found
"$PY" - "$TMP/tweens.json" "$TMP/moved.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for l in d["layers"]:
    if l["ks"]["r"].get("a") == 1:
        l["ks"]["r"]["k"][2]["t"] += 1
        break
d["layers"][-3]["op"] += 1
json.dump(d, open(sys.argv[2], "w"))
PYEOF
run "a tampered import fails the check" 1 "$PY" "$HERE/tupi_check.py" "$RES/tweens.tup" "$TMP/moved.json" "$TMP/tweens.notes"
has "tampered" "$TMP/out" "rotation: keyframe at"
has "tampered" "$TMP/out" "in/out"

# without --json, what is not mapped goes to standard error, one line a kind
run "notes on stderr" 0 "$BIN" import "$RES/tweens.tup" -o "$TMP/t2.json"
has "notes on stderr" "$TMP/err" "ensemble import: a text item is not mapped"
has "notes on stderr" "$TMP/err" "layer \"back\", frame 7"
checks=$((checks + 1))
cmp -s "$TMP/t2.json" "$TMP/tweens.json" || fail "two imports of one project differ"
run "quiet" 0 "$BIN" import -q "$RES/tweens.tup" -o "$TMP/t3.json"
checks=$((checks + 1))
[ -s "$TMP/err" ] && fail "quiet: printed on stderr"

# bad projects: a clear message, exit 1, an existing output untouched
echo "keep me" >"$TMP/keep.json"
printf 'not a zip at all' >"$TMP/bad.tup"
run "not a zip" 1 "$BIN" import "$TMP/bad.tup" -o "$TMP/keep.json" && has "not a zip" "$TMP/err" "not a zip file"
"$PY" - "$TMP" <<'PYEOF'
import sys, zipfile
t = sys.argv[1]
with zipfile.ZipFile(t + "/noproject.tup", "w") as z:
    z.writestr("p/scene0.tps", "<scene/>")
with zipfile.ZipFile(t + "/noscene.tup", "w") as z:
    z.writestr("p/project.tpp", "<Tupi><project name='p'/></Tupi>")
with zipfile.ZipFile(t + "/badxml.tup", "w") as z:
    z.writestr("p/project.tpp", "<Tupi><project name='p'/></Tupi>")
    z.writestr("p/scene0.tps", "<scene name='s'>\n<layer name='a'>\n<frame></layer></scene>")
with zipfile.ZipFile(t + "/badnum.tup", "w") as z:
    z.writestr("p/project.tpp", "<Tupi><project name='p'/></Tupi>")
    z.writestr("p/scene0.tps", "<scene name='s'><layer name='a'><frame name='f'><object>"
               "<rect x='1e400' y='0' width='1' height='1'/></object></frame></layer></scene>")
PYEOF
run "no project.tpp" 1 "$BIN" import "$TMP/noproject.tup" -o "$TMP/keep.json" && has "no project" "$TMP/err" "no project.tpp"
run "no scene" 1 "$BIN" import "$TMP/noscene.tup" -o "$TMP/keep.json" && has "no scene" "$TMP/err" "no scene"
run "malformed scene" 1 "$BIN" import "$TMP/badxml.tup" -o "$TMP/keep.json" && has "malformed" "$TMP/err" "scene0.tps: line 3"
run "number out of range" 1 "$BIN" import "$TMP/badnum.tup" -o "$TMP/keep.json" && has "range" "$TMP/err" "out of range"
run "missing file" 1 "$BIN" import "$TMP/none.tup" -o "$TMP/keep.json"
checks=$((checks + 1))
[ "$(cat "$TMP/keep.json")" = "keep me" ] || fail "a failed import touched the existing output"
cp "$RES/tweens.tup" "$TMP/self.tup"
ln -s self.tup "$TMP/link.json"
run "output is the project" 1 "$BIN" import "$TMP/self.tup" -o "$TMP/link.json" && has "self" "$TMP/err" "the project itself"
checks=$((checks + 1))
cmp -s "$RES/tweens.tup" "$TMP/self.tup" || fail "the project was overwritten by its own import"

echo "tupi_import: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
