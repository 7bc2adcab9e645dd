#!/bin/sh
# `ensemble merge` as git's merge driver, end to end: a repository whose
# config names `ensemble merge --driver %O %A %B %P` for .sfd and .svg; two
# branches edit different glyphs of the bundled font and different
# elements of a bundled drawing, and plain `git merge` merges them cleanly,
# each file byte-identical to both edits made one after the other. Then
# both branches change one property: git reports the conflict, the files
# hold no text markers, FontForge opens the font (where its Python module
# is installed) with the glyph flagged and the other outline in its
# background, and librsvg renders the drawing with both versions of the
# element in a group. Also the command's exit statuses and its JSON.
# CTest runs it as `merge_driver.sh /path/to/ensemble`.
set -u

BIN=${1:?usage: merge_driver.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
FONT=$SRC/examples/LibertinusMono-Regular.sfd
DRAWING=$SRC/tests/resources/drawings/adwaita/face-sick-symbolic.svg
TMP=$(mktemp -d "${TMPDIR:-/tmp}/merge_driver.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

. "$HERE/checks.sh"

command -v git >/dev/null 2>&1 || { echo "skipped: no git"; exit 77; }

# --- the command alone -------------------------------------------------------
"$BIN" merge --help > "$TMP/help" 2>&1
check "merge --help" $? 0
grep -q -- "--driver" "$TMP/help" || fail "merge --help does not name --driver"
"$BIN" merge a b > /dev/null 2>&1
check "merge with two files" $? 2
"$BIN" merge "$TMP/none.sfd" "$FONT" "$FONT" -o "$TMP/out.sfd" 2> "$TMP/err"
check "merge with a missing base" $? 2
[ ! -e "$TMP/out.sfd" ] || fail "a failed merge wrote its output"
printf 'SplineFontDB: 3.0\nStartChar: a\nEncoding: 1 1 1\n' > "$TMP/bad.sfd"
cp "$FONT" "$TMP/keep.sfd"
"$BIN" merge --driver "$FONT" "$TMP/keep.sfd" "$TMP/bad.sfd" font.sfd 2> "$TMP/err"
check "driver with a file that does not read" $? 2
cmp -s "$FONT" "$TMP/keep.sfd" || fail "a failed driver run changed OURS"
"$BIN" merge "$FONT" "$FONT" "$FONT" -o "$TMP/same.sfd"
check "merge of three equal fonts" $? 0
cmp -s "$FONT" "$TMP/same.sfd" || fail "merging three equal fonts changed the font"

# editor noise both sides changed two ways (the view of the canvas, the
# save time, a glyph's "open in a window" flag) merges cleanly: ours' stands
sed "s/inkscape:zoom='1'/inkscape:zoom='2'/; s/inkscape:cx='-229.23748'/inkscape:cx='5'/" "$DRAWING" > "$TMP/view-ours.svg"
sed "s/inkscape:zoom='1'/inkscape:zoom='3'/; s/inkscape:cx='-229.23748'/inkscape:cx='6'/" "$DRAWING" > "$TMP/view-theirs.svg"
"$BIN" merge --json "$DRAWING" "$TMP/view-ours.svg" "$TMP/view-theirs.svg" -o "$TMP/view.svg" > "$TMP/view.json"
check "merge of the canvas view changed two ways" $? 0
grep -q '"noise":2' "$TMP/view.json" || fail "the two view changes are not counted as noise: $(cat "$TMP/view.json")"
cmp -s "$TMP/view.svg" "$TMP/view-ours.svg" || fail "the merged view is not ours'"
sed 's/^Flags: W$/Flags: OW/' "$FONT" | awk '{ print } /^CreationTime:/ { print "ModificationTime: 1700000001" }' > "$TMP/time-ours.sfd"
awk '{ print } /^CreationTime:/ { print "ModificationTime: 1700000002" }' "$FONT" > "$TMP/time-theirs.sfd"
"$BIN" merge --json "$FONT" "$TMP/time-ours.sfd" "$TMP/time-theirs.sfd" -o "$TMP/time.sfd" > "$TMP/time.json"
check "merge of the save time changed two ways" $? 0
grep -q '"noise":1' "$TMP/time.json" || fail "the save time is not counted as noise: $(cat "$TMP/time.json")"
cmp -s "$TMP/time.sfd" "$TMP/time-ours.sfd" || fail "the merged font is not ours'"

# --- a repository with the driver -------------------------------------------
R=$TMP/repo
mkdir -p "$R" && cd "$R" || exit 1
git init -q -b main . && git config user.email t@example.org && git config user.name Tester
git config merge.ensemble.name "Ensemble three-way merge"
git config merge.ensemble.driver "'$BIN' merge --driver %O %A %B %P"
printf '*.sfd merge=ensemble\n*.svg merge=ensemble\n' > .gitattributes
cp "$FONT" font.sfd
cp "$DRAWING" drawing.svg
git add -A && git commit -qm base

# clean: different glyphs, different elements
git checkout -q -b left
edit font.sfd width A 777
edit drawing.svg set-attr "#layer10" inkscape:label DEVICES
git commit -qam left
git checkout -q main
git checkout -q -b right
edit font.sfd width B 611
edit drawing.svg set-attr "#g71291/path[0]" opacity 0.5
git commit -qam right
cp font.sfd "$TMP/want.sfd"
cp drawing.svg "$TMP/want.svg"
edit "$TMP/want.sfd" width A 777
edit "$TMP/want.svg" set-attr "#layer10" inkscape:label DEVICES
git merge -q --no-edit left > "$TMP/git.log" 2>&1
check "git merge of different glyphs and elements" $? 0
cmp -s font.sfd "$TMP/want.sfd" || fail "the merged font is not both edits (diff: $(diff "$TMP/want.sfd" font.sfd | head -5))"
cmp -s drawing.svg "$TMP/want.svg" || fail "the merged drawing is not both edits"

# a conflict: one property two ways on both files
git checkout -q -b c1 main
edit font.sfd move B 0:0 9 0
edit drawing.svg set-attr "#g71291/path[0]" fill "#ff0000"
git commit -qam c1
git checkout -q -b c2 main
edit font.sfd move B 0:0 -13 0
edit drawing.svg set-attr "#g71291/path[0]" fill "#0000ff"
git commit -qam c2
git merge --no-edit c1 > "$TMP/git.log" 2>&1
st=$?
checks=$((checks + 1))
[ $st -ne 0 ] || fail "git merge of one property changed two ways did not stop"
grep -q "glyph B/layer 1/contour 0/point 0: x: ours" "$TMP/git.log" ||
  fail "the driver did not report the point's conflict: $(cat "$TMP/git.log")"
grep -q 'path #path7113: fill: ours "#0000ff", theirs "#ff0000", base (none); ours kept' "$TMP/git.log" ||
  fail "the driver did not report the fill's conflict: $(cat "$TMP/git.log")"
if grep -q '^<<<<<<<\|^>>>>>>>' font.sfd drawing.svg; then fail "text conflict markers in a merged file"; fi
git ls-files -u | grep -q font.sfd || fail "git does not list font.sfd as unmerged"
grep -q 'class="ensemble-conflict"' drawing.svg || fail "no conflict group in the drawing"
grep -q 'fill="#ff0000"' drawing.svg || fail "theirs' fill is not in the drawing"
"$BIN" render drawing.svg --width 64 -o "$TMP/d.png" > /dev/null 2>&1
check "librsvg renders the conflicted drawing" $? 0
if /usr/bin/python3 -c 'import fontforge' 2>/dev/null; then
  /usr/bin/python3 - font.sfd <<'EOF'
import sys, fontforge
f = fontforge.open(sys.argv[1])
g = f["B"]
fore = [(p.x, p.y) for p in g.foreground[0]]
back = [(p.x, p.y) for c in g.background for p in c]
ok = g.color == 0xff0000 and "Ensemble merge conflict" in (g.comment or "") and len(g.background) > 0
ok = ok and any(abs(x - fore[0][0] - 22) < 1e-6 and abs(y - fore[0][1]) < 1e-6 for x, y in back)
sys.exit(0 if ok else 1)
EOF
  check "FontForge opens the conflicted font, B flagged, theirs' point in the background" $? 0
else
  echo "skipped: FontForge checks (/usr/bin/python3 has no fontforge module)"
fi
git merge --abort

# --- the command's report ------------------------------------------------------
git show main:font.sfd > "$TMP/b.sfd"
git show c1:font.sfd > "$TMP/t.sfd"
git show c2:font.sfd > "$TMP/o.sfd"
"$BIN" merge --json -o "$TMP/m.sfd" "$TMP/b.sfd" "$TMP/o.sfd" "$TMP/t.sfd" > "$TMP/report.json"
check "merge with a conflict" $? 1
/usr/bin/python3 - "$TMP/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["conflicts"]
# the point moved is the first of a closed contour: its closing repeat moves with it
ok = (not r["clean"] and len(c) == 3 and c[0]["kind"] == "set" and c[0]["key"] == "x"
      and c[0]["path"] == "glyph B/layer 1/contour 0/point 0" and c[0]["ours"] - c[0]["theirs"] == -22
      and c[0]["kept"] == "ours" and r["marks"]["outlines"] == 1)
sys.exit(0 if ok else 1)
EOF
check "the JSON report names the points, their three values and the mark" $? 0

checks_end merge_driver
