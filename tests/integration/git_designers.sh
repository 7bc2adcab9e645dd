#!/bin/sh
# git for designers, end to end: `ensemble init` and `ensemble git setup`
# (idempotent, refused outside a repository), branches made and switched
# with ensemble, two branches editing different glyphs of one font and
# different elements of one drawing merged by plain `git merge`
# byte-identical to both edits made one after the other, plain `git diff`
# telling the changes object by object, `ensemble log`, `show` and
# `restore`; then one property changed on both branches: git stops, the
# font still opens in FontForge and the drawing in librsvg, and `ensemble
# commit` ends the merge. The user's git configuration stays out (HOME,
# GIT_CONFIG_NOSYSTEM). CTest runs it as `git_designers.sh /path/to/ensemble`.
set -u

BIN=${1:?usage: git_designers.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
FONT=$SRC/examples/LibertinusMono-Regular.sfd
DRAWING=$SRC/tests/resources/drawings/adwaita/face-sick-symbolic.svg
TMP=$(mktemp -d "${TMPDIR:-/tmp}/git_designers.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
export HOME=$TMP/home GIT_CONFIG_NOSYSTEM=1 XDG_CONFIG_HOME=$TMP/home/.config
unset GIT_DIR GIT_WORK_TREE
mkdir -p "$HOME"

. "$HERE/checks.sh"

command -v git >/dev/null 2>&1 || { echo "skipped: no git"; exit 77; }

for c in git init commit log show restore branch switch tag; do
  "$BIN" $c --help > "$TMP/help" 2>&1
  check "$c --help" $? 0
done
"$BIN" git setup --help > "$TMP/help" 2>&1
check "git setup --help" $? 0
grep -q "merge --driver %O %A %B %P" "$TMP/help" || fail "git setup --help does not say what it configures"

# --- outside a repository -------------------------------------------------------
mkdir "$TMP/plain" && cd "$TMP/plain" || exit 1
"$BIN" git setup > "$TMP/out" 2> "$TMP/err"
check "git setup outside a repository" $? 1
grep -q "not inside a git repository (ensemble init makes one)" "$TMP/err" || fail "no clear refusal: $(cat "$TMP/err")"
[ ! -e .gitattributes ] || fail "git setup outside a repository wrote .gitattributes"
"$BIN" log x.sfd > /dev/null 2>&1
check "log outside a repository" $? 1

# --- init, setup twice -----------------------------------------------------------
R=$TMP/repo
"$BIN" init "$R" > "$TMP/out" 2>&1
check "init" $? 0
cd "$R" || exit 1
[ "$(git symbolic-ref --short HEAD)" = main ] || fail "init's first branch is not main"
git config user.email t@example.org && git config user.name Tester
[ "$(git config diff.ensemble.command)" = "'$BIN' git diff" ] || fail "diff.ensemble.command: $(git config diff.ensemble.command)"
[ "$(git config merge.ensemble.driver)" = "'$BIN' merge --driver %O %A %B %P" ] ||
  fail "merge.ensemble.driver: $(git config merge.ensemble.driver)"
[ -n "$(git config merge.ensemble.name)" ] || fail "merge.ensemble.name is not set"
[ "$(git check-attr diff merge -- a.sfd b.svg | tr '\n' ' ')" = "a.sfd: diff: ensemble a.sfd: merge: ensemble b.svg: diff: ensemble b.svg: merge: ensemble " ] ||
  fail "git does not see the attributes: $(git check-attr diff merge -- a.sfd b.svg)"
cp .git/config "$TMP/config.1" && cp .gitattributes "$TMP/attr.1"
"$BIN" git setup > "$TMP/out" 2>&1
check "git setup again" $? 0
cmp -s .git/config "$TMP/config.1" || fail "a second git setup changed .git/config"
cmp -s .gitattributes "$TMP/attr.1" || fail "a second git setup changed .gitattributes"
grep -q "already" "$TMP/out" || fail "a second git setup does not say it had nothing to do"
# the ensemble on PATH is named by its name, another by its path
git init -q "$TMP/onpath" && (cd "$TMP/onpath" && PATH="$(dirname "$BIN"):$PATH" "$BIN" git setup -q)
check "git setup with ensemble on PATH" $? 0
[ "$(git -C "$TMP/onpath" config merge.ensemble.driver)" = "ensemble merge --driver %O %A %B %P" ] ||
  fail "with this ensemble first on PATH: $(git -C "$TMP/onpath" config merge.ensemble.driver)"
# a .gitattributes of the user's own keeps its lines
printf '*.png binary\n' > .gitattributes
"$BIN" git setup -q
check "git setup over a user's .gitattributes" $? 0
[ "$(head -1 .gitattributes)" = "*.png binary" ] || fail "git setup lost the user's .gitattributes line"
[ "$(grep -c 'diff=ensemble merge=ensemble' .gitattributes)" -eq 2 ] || fail "git setup's lines: $(cat .gitattributes)"

cp "$FONT" font.sfd
cp "$DRAWING" drawing.svg
"$BIN" commit -m base > "$TMP/out" 2>&1
check "first commit" $? 0
[ "$(git ls-tree --name-only HEAD | tr '\n' ' ')" = ".gitattributes drawing.svg font.sfd " ] ||
  fail "the first commit holds $(git ls-tree --name-only HEAD)"
"$BIN" commit -m again > /dev/null 2> "$TMP/err"
check "a commit of nothing" $? 1
grep -q "nothing to commit" "$TMP/err" || fail "commit of nothing: $(cat "$TMP/err")"

# --- two branches, different glyphs and elements -----------------------------------
"$BIN" switch -c left > /dev/null
check "switch -c left" $? 0
edit font.sfd width A 777
edit drawing.svg set-attr "#layer10" inkscape:label DEVICES
# plain git diff goes through Ensemble: object by object, not lines
git diff > "$TMP/diff" 2>&1
check "git diff" $? 0
grep -q "^ensemble diff a/font.sfd b/font.sfd" "$TMP/diff" || fail "git diff did not run ensemble: $(head -3 "$TMP/diff")"
grep -q "glyph A: width 640 → 777" "$TMP/diff" || fail "git diff of the font: $(cat "$TMP/diff")"
grep -q "DEVICES" "$TMP/diff" || fail "git diff of the drawing: $(cat "$TMP/diff")"
if grep -q '^@@' "$TMP/diff"; then fail "git diff printed a line diff"; fi
# git's external diff on its own: a new file, a version that does not read
"$BIN" git diff new.svg /dev/null . . drawing.svg 0 100644 > "$TMP/gd" 2>&1
check "git diff of a new file" $? 0
grep -q "new file" "$TMP/gd" || fail "git diff of a new file: $(cat "$TMP/gd")"
printf 'not a font\n' > "$TMP/bad.sfd"
"$BIN" git diff font.sfd "$TMP/bad.sfd" . . font.sfd 0 100644 > "$TMP/gd" 2>&1
check "git diff of a version that does not read" $? 0
grep -q "does not read" "$TMP/gd" || fail "git diff of a broken version: $(cat "$TMP/gd")"
"$BIN" git diff a b c > /dev/null 2>&1
check "git diff with three arguments" $? 2
"$BIN" commit -m "left: A wider, layer renamed" font.sfd drawing.svg > /dev/null
check "commit on left" $? 0
"$BIN" switch main > /dev/null
check "switch main" $? 0
cmp -s font.sfd "$FONT" || fail "switching back to main did not bring main's font back"
"$BIN" branch right
check "branch right" $? 0
"$BIN" branch > "$TMP/branches"
[ "$(tr -s ' ' < "$TMP/branches" | tr '\n' '|')" = " left|* main| right|" ] || fail "branch list: $(cat "$TMP/branches")"
"$BIN" switch right > /dev/null
edit font.sfd width B 611
edit drawing.svg set-attr "#g71291/path[0]" opacity 0.5
"$BIN" commit -m "right: B narrower, a path faded" > /dev/null
check "commit on right" $? 0
cp font.sfd "$TMP/want.sfd"
cp drawing.svg "$TMP/want.svg"
edit "$TMP/want.sfd" width A 777
edit "$TMP/want.svg" set-attr "#layer10" inkscape:label DEVICES
GIT_TRACE="$TMP/trace" git merge -q --no-edit left > "$TMP/git.log" 2>&1
check "plain git merge of different glyphs and elements" $? 0
# git ran Ensemble's driver for each file, not its own line merge
[ "$(grep -c "merge --driver .*\(font\.sfd\|drawing\.svg\)" "$TMP/trace")" -eq 2 ] ||
  fail "git merge did not run ensemble merge --driver on both files: $(grep run_command "$TMP/trace")"
cmp -s font.sfd "$TMP/want.sfd" || fail "the merged font is not both edits: $(diff "$TMP/want.sfd" font.sfd | head -5)"
cmp -s drawing.svg "$TMP/want.svg" || fail "the merged drawing is not both edits"
cmp -s font.sfd "$(git rev-parse --show-toplevel)/font.sfd" && [ -z "$(git status --porcelain)" ] ||
  fail "the merge left changes: $(git status --porcelain)"
"$BIN" tag v1 -m "both edits"
check "tag" $? 0
[ "$(git cat-file -t v1)" = tag ] || fail "v1 is not an annotated tag"

# --- the file's history, a version, a roll-back -------------------------------------
"$BIN" log font.sfd > "$TMP/log"
check "log font.sfd" $? 0
# the merge, right, left, base: the merge's font differs from both parents'
[ "$(grep -c '^[0-9a-f]\{10\} ' "$TMP/log")" -eq 4 ] || fail "log lists $(grep -c '^[0-9a-f]\{10\} ' "$TMP/log") commits, want 4: $(cat "$TMP/log")"
[ "$(sed -n 's/^\([0-9a-f]\{10\}\) .*/\1/p' "$TMP/log" | tr '\n' ' ')" = "$(git log --format=%h --abbrev=10 -- font.sfd | tr '\n' ' ')" ] ||
  fail "log and git log -- font.sfd disagree"
grep -q "1 glyph changed (1 change)" "$TMP/log" || fail "log has no semantic summary: $(cat "$TMP/log")"
grep -q "file added" "$TMP/log" || fail "log does not say where the file came"
"$BIN" log drawing.svg > "$TMP/logd"
[ "$(grep -c "^    1 element changed (1 change)$" "$TMP/logd")" -eq 3 ] ||
  fail "log of the drawing: want three commits that changed one element each: $(cat "$TMP/logd")"
"$BIN" log -c -n 1 font.sfd > "$TMP/log1"
[ "$(grep -c '^[0-9a-f]\{10\} ' "$TMP/log1")" -eq 1 ] || fail "log -n 1 lists more than one commit"
grep -q "glyph A: width 640 → 777" "$TMP/log1" || fail "log -c does not list the changes: $(cat "$TMP/log1")"
"$BIN" show HEAD~1:font.sfd > "$TMP/shown.sfd"
check "show REV:FILE" $? 0
git show HEAD~1:font.sfd | cmp -s - "$TMP/shown.sfd" || fail "show REV:FILE is not git's blob"
"$BIN" show nope:font.sfd > /dev/null 2> "$TMP/err"
check "show of a bad revision" $? 1
grep -q "'nope' names no revision" "$TMP/err" || fail "show nope: $(cat "$TMP/err")"
"$BIN" show --visual HEAD:font.sfd > /dev/null 2>&1
check "show --visual without -o" $? 2
cp font.sfd "$TMP/merged.sfd"
"$BIN" restore font.sfd --at v1~2 > "$TMP/out" 2>&1
check "restore of a clean file" $? 0
git show v1~2:font.sfd | cmp -s - font.sfd || fail "restore did not give the file at v1~2"
cmp -s drawing.svg "$TMP/want.svg" || fail "restore touched another file"
edit font.sfd width C 999
cp font.sfd "$TMP/mine.sfd"
"$BIN" restore font.sfd --at HEAD > /dev/null 2> "$TMP/err"
check "restore over uncommitted work" $? 1
grep -q -- "--force" "$TMP/err" || fail "restore refusal: $(cat "$TMP/err")"
cmp -s font.sfd "$TMP/mine.sfd" || fail "a refused restore changed the file"
"$BIN" restore --force font.sfd --at HEAD > "$TMP/out" 2>&1
check "restore --force" $? 0
cmp -s font.sfd "$TMP/merged.sfd" || fail "restore --force did not give HEAD's file"
backup=$(sed -n 's/^kept your uncommitted version as //p' "$TMP/out")
[ -n "$backup" ] && cmp -s "$backup" "$TMP/mine.sfd" || fail "restore --force kept no backup of the work: $(cat "$TMP/out")"
rm -f "$backup"

# --- one property both ways ------------------------------------------------------------
"$BIN" switch -c c1 > /dev/null
edit font.sfd move B 0:0 9 0
edit drawing.svg set-attr "#g71291/path[0]" fill "#ff0000"
"$BIN" commit -m c1 > /dev/null
"$BIN" switch main > /dev/null && "$BIN" switch -c c2 > /dev/null
edit font.sfd move B 0:0 -13 0
edit drawing.svg set-attr "#g71291/path[0]" fill "#0000ff"
"$BIN" commit -m c2 > /dev/null
git merge --no-edit c1 > "$TMP/git.log" 2>&1
st=$?
checks=$((checks + 1))
[ $st -ne 0 ] || fail "git merge of one property changed two ways did not stop"
if grep -q '^<<<<<<<\|^>>>>>>>' font.sfd drawing.svg; then fail "text conflict markers in a merged file"; fi
"$BIN" render drawing.svg --width 64 -o "$TMP/d.png" > /dev/null 2>&1
check "librsvg renders the conflicted drawing" $? 0
[ -s "$TMP/d.png" ] || fail "no PNG of the conflicted drawing"
grep -q 'fill="#ff0000"' drawing.svg && grep -q 'fill="#0000ff"' drawing.svg ||
  fail "the conflicted drawing does not hold both fills"
if /usr/bin/python3 -c 'import fontforge' 2>/dev/null; then
  /usr/bin/python3 -c 'import sys, fontforge; f = fontforge.open(sys.argv[1]); sys.exit(0 if "B" in f and len(list(f.glyphs())) > 100 else 1)' font.sfd 2> /dev/null
  check "FontForge opens the conflicted font" $? 0
else
  echo "skipped: the FontForge check (/usr/bin/python3 has no fontforge module)"
fi
# resolved as the files are: ensemble commit ends the merge
"$BIN" commit -m "merge c1, conflicts marked" > /dev/null
check "commit ends the merge" $? 0
[ "$(git rev-list --parents -n 1 HEAD | wc -w)" -eq 3 ] || fail "the merge commit does not have two parents"
[ ! -e .git/MERGE_HEAD ] || fail "the merge is still in progress after the commit"

checks_end git_designers
