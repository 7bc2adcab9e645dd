#!/bin/sh
# `ensemble diff` end to end: exit statuses as diff(1)'s (0 same, 1
# changed, 2 trouble), text and JSON on a bundled font edited here, an
# SFDir, snapshots, and the shared corpus's real revision pairs when it is
# there. CTest runs it as `diff_cli.sh /path/to/build/ensemble`.
set -u

BIN=${1:?usage: diff_cli.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CORPUS=${ENSEMBLE_CORPUS:-$SRC/../shared/corpus}
FONT=$SRC/tests/resources/fonts/DejaVuSans-ExtraLight-subset.sfd
SFDIR=$SRC/tests/resources/fonts/EnsembleTestSans-Regular.sfdir
TMP=$(mktemp -d "${TMPDIR:-/tmp}/diff_cli.XXXXXX") || exit 1
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

has() {
  checks=$((checks + 1))
  grep -q -e "$2" "$TMP/out" || fail "$1: output lacks '$2'"
}

run "help" 0 "$BIN" diff --help && has "help" "usage: ensemble diff"
run "one operand" 2 "$BIN" diff "$FONT"
run "missing file" 2 "$BIN" diff "$FONT" "$TMP/none.sfd"
run "same font" 0 "$BIN" diff "$FONT" "$FONT"
checks=$((checks + 1))
[ -s "$TMP/out" ] && fail "same font: printed something"

# an edit: the first glyph's width, and a save time (noise)
awk 'BEGIN { done = 0 }
     /^ModificationTime: / { print "ModificationTime: 1999999999"; next }
     /^Width: / && !done { print "Width: " ($2 + 10); done = 1; next }
     { print }' "$FONT" >"$TMP/edited.sfd"
first=$(sed -n 's/^StartChar: //p' "$FONT" | head -n 1)
width=$(grep -m 1 '^Width: ' "$FONT" | cut -d' ' -f2)
run "width changed" 1 "$BIN" diff "$FONT" "$TMP/edited.sfd" &&
  has "width changed" "^glyph $first: width $width → $((width + 10))\$"
checks=$((checks + 1))
[ "$(wc -l <"$TMP/out")" -eq 1 ] || fail "width changed: more than one line (noise reported?)"
run "quiet" 1 "$BIN" diff -q "$FONT" "$TMP/edited.sfd"
checks=$((checks + 1))
[ -s "$TMP/out" ] && fail "quiet: printed something"
run "json" 1 "$BIN" diff --json "$FONT" "$TMP/edited.sfd" &&
  has "json" '"change":"set","object":"glyph"' &&
  { checks=$((checks + 1)); "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["count"]==1 and d["changes"][0]["key"]=="width", d' "$TMP/out" || fail "json: not the one change"; }
run "txn" 1 "$BIN" diff --txn "$TMP/t.txn" "$FONT" "$TMP/edited.sfd"
checks=$((checks + 1))
[ -s "$TMP/t.txn" ] || fail "txn: no transaction written"
run "txn to a missing directory" 2 "$BIN" diff --txn "$TMP/no/such/t.txn" "$FONT" "$TMP/edited.sfd"
DRAWING=$(find "$SRC/tests/resources/drawings/adwaita" -name '*.svg' | sort | head -n 1)
run "a font against a drawing" 2 "$BIN" diff "$FONT" "$DRAWING"
run "same drawing" 0 "$BIN" diff "$DRAWING" "$DRAWING"

# an SFDir against itself, and against the same font as one file
run "sfdir same" 0 "$BIN" diff "$SFDIR" "$SFDIR"
cp -r "$SFDIR" "$TMP/copy.sfdir"
glyph=$(ls "$TMP/copy.sfdir" | grep '\.glyph$' | head -n 1)
sed -i 's/^Width: .*/Width: 1234/' "$TMP/copy.sfdir/$glyph"
run "sfdir edited" 1 "$BIN" diff "$SFDIR" "$TMP/copy.sfdir" && has "sfdir edited" "width .* → 1234"
# two snapshots of a .tree outline: matched by their ids
"$BIN" tree2snap "$SRC/examples/glyph-A.tree" -o "$TMP/g1.snap" >/dev/null
sed 's/point x=540 y=1400/point x=550 y=1400/; s/width=1200/width=1210/' "$SRC/examples/glyph-A.tree" >"$TMP/g2.tree"
"$BIN" tree2snap "$TMP/g2.tree" -o "$TMP/g2.snap" >/dev/null
run "snapshots same" 0 "$BIN" diff "$TMP/g1.snap" "$TMP/g1.snap"
run "snapshots" 1 "$BIN" diff "$TMP/g1.snap" "$TMP/g2.snap" &&
  has "snapshots" "^glyph\[0\]: width 1200 → 1210; layer\[0\] contour\[0\] point\[1\] moved (10, 0)\$"
run "not a snapshot" 2 "$BIN" diff "$TMP/g1.snap" "$SRC/examples/glyph-A.tree"

if [ -d "$CORPUS/sfd/dejavu-history" ]; then
  D=$CORPUS/sfd/dejavu-history
  run "dejavu 358190f 9a517dc" 1 "$BIN" diff "$D/DejaVuSansMono.358190f.sfd" "$D/DejaVuSansMono.9a517dc.sfd" &&
    has "dejavu 358190f 9a517dc" "^glyph uni20BA: added\$" && has "dejavu 358190f 9a517dc" "^glyph uni20BD: added\$"
  checks=$((checks + 1))
  [ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "dejavu 358190f 9a517dc: not exactly the two added glyphs"
  run "dejavu backwards" 1 "$BIN" diff --json "$D/DejaVuSansMono.ae12ffe.sfd" "$D/DejaVuSansMono.358190f.sfd"
  checks=$((checks + 1))
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["count"]==8 and all(c["change"]=="removed" and c["object"]=="glyph" for c in d["changes"]), d' "$TMP/out" ||
    fail "dejavu backwards: not eight removed glyphs"
else
  echo "skipped: the corpus's sfd/dejavu-history is not here"
fi
# --visual: the same two versions drawn, one element marked changed
DRAW=$(ls "$SRC"/tests/resources/drawings/adwaita/*.svg | head -n 1)
sed '0,/fill:#[0-9a-fA-F]\{6\}/s//fill:#ff0000/' "$DRAW" >"$TMP/b.svg"
run "visual svg" 0 "$BIN" diff --visual "$DRAW" "$TMP/b.svg" -o "$TMP/v.svg" &&
  { checks=$((checks + 1)); [ "$(grep -o 'class="ens-changed"' "$TMP/v.svg" | wc -l)" -eq 1 ] ||
    fail "visual svg: not exactly one element marked changed"; }
run "visual html" 0 "$BIN" diff --visual -q "$DRAW" "$TMP/b.svg" -o "$TMP/v.html" &&
  { checks=$((checks + 1)); grep -q '<html' "$TMP/v.html" || fail "visual html: no page written"; }
run "visual without -o" 2 "$BIN" diff --visual "$DRAW" "$TMP/b.svg"
run "-o without visual" 2 "$BIN" diff "$DRAW" "$TMP/b.svg" -o "$TMP/x.svg"
run "visual with json" 2 "$BIN" diff --visual --json "$DRAW" "$TMP/b.svg" -o "$TMP/x.svg"
run "visual unknown kind" 2 "$BIN" diff --visual "$DRAW" "$TMP/b.svg" -o "$TMP/x.txt"
[ -e "$TMP/x.svg" ] && fail "a refused command line wrote its output"

if [ -d "$CORPUS/svg/history/adwaita-faces" ]; then
  S=$CORPUS/svg/history/adwaita-faces
  run "faces 07 08" 1 "$BIN" diff --json "$S/07_b3bb1a5.svg" "$S/08_f11f83b.svg"
  checks=$((checks + 1))
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["count"]==len(d["changes"])>0, d' "$TMP/out" || fail "faces 07 08: bad JSON"
  run "faces same" 0 "$BIN" diff "$S/07_b3bb1a5.svg" "$S/07_b3bb1a5.svg"
else
  echo "skipped: the corpus's svg/history/adwaita-faces is not here"
fi

echo "diff_cli: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
