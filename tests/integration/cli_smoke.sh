#!/bin/sh
# End-to-end checks of the ensemble command-line tool. CTest runs it as
# `cli_smoke.sh /path/to/build/ensemble`; it prints every failed check and
# exits non-zero if there was one. A crash (signal) or a sanitizer report
# fails a check even when the exit status looks right.
set -u

BIN=${1:?usage: cli_smoke.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
SAMPLE=$SRC/examples/glyph-A.tree
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cli_smoke.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

checks=0
failures=0

fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}

show() {
  echo "    stdout:" >&2
  head -n 15 "$TMP/out" | sed 's/^/    | /' >&2
  echo "    stderr:" >&2
  head -n 15 "$TMP/err" | sed 's/^/    | /' >&2
}

# run NAME STATUS COMMAND...: runs COMMAND with its output in $TMP/out and
# $TMP/err and checks its exit status; 0 when the check passed.
run() {
  name=$1
  want=$2
  shift 2
  checks=$((checks + 1))
  "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ "$rc" -ge 128 ]; then
    fail "$name: crashed (exit status $rc)"
    show
    return 1
  fi
  if grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/err"; then
    fail "$name: sanitizer report"
    show
    return 1
  fi
  if [ "$rc" -ne "$want" ]; then
    fail "$name: exit status $rc, expected $want"
    show
    return 1
  fi
  return 0
}

# has NAME FILE PATTERN: the last run's FILE (out or err) matches PATTERN.
has() {
  checks=$((checks + 1))
  if ! grep -q -e "$3" "$TMP/$2"; then
    fail "$1: std$2 lacks '$3'"
    show
  fi
}

lacks() {
  checks=$((checks + 1))
  if grep -q -e "$3" "$TMP/$2"; then
    fail "$1: std$2 has '$3'"
    show
  fi
}

# --- version and help --------------------------------------------------------

version=$(sed -n 's/^#define ENS_VERSION_STRING "\(.*\)"$/\1/p' "$SRC/include/ensemble/common.h")
if run version 0 "$BIN" --version; then
  if [ "$(cat "$TMP/out")" != "ensemble $version" ]; then
    fail "--version printed '$(cat "$TMP/out")', expected 'ensemble $version'"
  fi
fi

run "--help" 0 "$BIN" --help && has "--help" out "usage: ensemble"
cp "$TMP/out" "$TMP/help"
run "help" 0 "$BIN" help && has "help" out "usage: ensemble"

# every command in the list answers --help with its usage and options
commands=$(sed -n '/^commands:/,/^$/p' "$TMP/help" | awk 'NR > 1 && NF { print $1 }')
for cmd in demo tree2snap snapinfo watch join help; do
  echo "$commands" | grep -qx "$cmd" || fail "--help does not list '$cmd'"
done
for cmd in $commands; do
  if run "$cmd --help" 0 "$BIN" "$cmd" --help; then
    has "$cmd --help" out "usage: ensemble $cmd"
    has "$cmd --help" out "--help"
    cp "$TMP/out" "$TMP/cmdhelp"
    if run "help $cmd" 0 "$BIN" help "$cmd"; then
      cmp -s "$TMP/out" "$TMP/cmdhelp" || fail "'help $cmd' differs from '$cmd --help'"
    fi
  fi
done
run "demo --help" 0 "$BIN" demo --help && has "demo --help" out "--seconds" && has "demo --help" out "--clients" &&
  has "demo --help" out "--out"
run "tree2snap --help" 0 "$BIN" tree2snap -h && has "tree2snap --help" out "--output"
run "snapinfo --help" 0 "$BIN" snapinfo --help && has "snapinfo --help" out "--tree"

# --- command-line errors: exit 2 with a message and the usage ---------------

run "no arguments" 2 "$BIN" && has "no arguments" err "usage:"
run "unknown command" 2 "$BIN" frobnicate && has "unknown command" err "unknown command 'frobnicate'" &&
  has "unknown command" err "usage:"
run "unknown global option" 2 "$BIN" --frobnicate && has "unknown global option" err "unknown option"
run "unknown demo option" 2 "$BIN" demo --frobnicate && has "unknown demo option" err "unknown option '--frobnicate'" &&
  has "unknown demo option" err "usage: ensemble demo"
run "flag with a value" 2 "$BIN" demo --quiet=yes
run "option without its value" 2 "$BIN" demo --seconds
run "demo with a bad number" 2 "$BIN" demo --seconds soon && has "demo with a bad number" err "--seconds wants a number"
run "demo with too many clients" 2 "$BIN" demo --clients 9
run "extra argument" 2 "$BIN" demo extra
run "tree2snap without -o" 2 "$BIN" tree2snap "$SAMPLE"
run "tree2snap without input" 2 "$BIN" tree2snap -o "$TMP/x.snap"
run "help for an unknown command" 2 "$BIN" help frobnicate
run "join without --file" 2 "$BIN" join tcp://127.0.0.1:9 && has "join without --file" err "--file PATH is required"
run "join into a file of no known kind" 2 "$BIN" join --file "$TMP/x.txt" tcp://127.0.0.1:9 &&
  has "join into a file of no known kind" err "must be a .sfd font, a .svg drawing or a .json or .tgs animation"
run "join into a dotLottie archive" 2 "$BIN" join --file "$TMP/x.lottie" tcp://127.0.0.1:9 &&
  has "join into a dotLottie archive" err "a dotLottie archive cannot be mirrored"
run "join into a missing directory" 1 "$BIN" join --file "$TMP/missing/x.sfd" tcp://127.0.0.1:9 &&
  has "join into a missing directory" err "cannot watch"
run "join with a bad colour" 2 "$BIN" join --colour orange --file "$TMP/x.svg" tcp://127.0.0.1:9
run "join with half the keys" 2 "$BIN" join --keys "$TMP" --file "$TMP/x.svg" tcp://127.0.0.1:9

# --- the demo: a hosted session, collaborators, convergence, the final font ------

# TMPDIR: the session log's temporary directory must be gone afterwards
if run "demo" 0 env TMPDIR="$TMP" "$BIN" demo --seconds 1 --out "$TMP/demo.sfd"; then
  has demo out "converged"
  lacks demo out "DIVERGED"
  has demo out "3 (Ada, Bram, Chen), 3 connected at the end"
  has demo out "transactions  *[1-9][0-9]* committed"
  has demo out "latency  *commit to acknowledgement p50 "
  has demo out "read back: the same font"
  has demo err "3/3 connected" # a progress line per second when not on a terminal
  checks=$((checks + 1))
  [ -s "$TMP/demo.sfd" ] || fail "demo wrote no $TMP/demo.sfd"
  run "info of the demo's font" 0 "$BIN" info "$TMP/demo.sfd" && has "info of the demo's font" out "glyphs *618$"
  # FontForge itself opens the result, where its Python module is installed
  if /usr/bin/python3 -c 'import fontforge' 2>/dev/null; then
    run "FontForge opens the demo's font" 0 /usr/bin/python3 -c \
      'import fontforge, sys; f = fontforge.open(sys.argv[1]); print(len(list(f.glyphs())))' "$TMP/demo.sfd" &&
      has "FontForge opens the demo's font" out "^618$"
  fi
fi
if run "demo --json" 0 env TMPDIR="$TMP" "$BIN" demo --seconds 0.5 --clients 2 --quiet --json --out "$TMP/demo2.sfd"; then
  has "demo --json" out '"converged":true'
  has "demo --json" out '"clients":2,'
  lacks "demo --json" out "Report"
  checks=$((checks + 1))
  [ -s "$TMP/demo2.sfd" ] || fail "demo --json wrote no $TMP/demo2.sfd"
fi
run "demo into a missing directory" 1 env TMPDIR="$TMP" "$BIN" demo --seconds 0.5 --out "$TMP/no/such/dir/x.sfd" &&
  has "demo into a missing directory" err "no such directory"
printf 'not a font\n' >"$TMP/notafont.sfd"
run "demo with a malformed font" 1 env TMPDIR="$TMP" "$BIN" demo --font "$TMP/notafont.sfd" --out "$TMP/x.sfd" &&
  has "demo with a malformed font" err "notafont.sfd: line 1: "
printf 'SplineFontDB: 3.2\nFontName: x\nBeginChars: 0 0\nEndChars\nEndSplineFont\n' >"$TMP/noglyph.sfd"
run "demo with a font without glyphs" 1 env TMPDIR="$TMP" "$BIN" demo --font "$TMP/noglyph.sfd" --out "$TMP/x.sfd" &&
  has "demo with a font without glyphs" err "no glyph"
for left in "$TMP"/ensemble-demo-*; do
  [ -e "$left" ] && fail "the demo left its session directory behind: $left"
done

# --- tree2snap and snapinfo round trip ------------------------------------------

snap=$TMP/glyph-A.snap
if run "tree2snap" 0 "$BIN" tree2snap "$SAMPLE" -o "$snap"; then
  made=$(sed -n 's/.*hash \([0-9a-f]*\)$/\1/p' "$TMP/out")
  [ -s "$snap" ] || fail "tree2snap wrote no $snap"
  if run "snapinfo" 0 "$BIN" snapinfo "$snap"; then
    has snapinfo out "objects *15 below the root"
    has snapinfo out "glyph *1$"
    has snapinfo out "contour *2$"
    has snapinfo out "point *11$"
    has snapinfo out "hash *$made$"
  fi
  # snapshot -> .tree -> snapshot gives the same bytes
  if run "snapinfo --tree" 0 "$BIN" snapinfo --tree "$snap"; then
    cp "$TMP/out" "$TMP/again.tree"
    run "tree2snap again" 0 "$BIN" tree2snap "$TMP/again.tree" --output="$TMP/again.snap" &&
      { cmp -s "$snap" "$TMP/again.snap" || fail "round trip .tree -> snap -> .tree -> snap changed the snapshot"; }
  fi
  run "tree2snap over an existing file" 0 "$BIN" tree2snap "$SAMPLE" -o "$snap"
fi
for left in "$TMP"/*.tmp.* "$TMP"/.*.tmp.ensemble-*; do
  [ -e "$left" ] && fail "a temporary file was left behind: $left"
done
run "tree2snap into a missing directory" 1 "$BIN" tree2snap "$SAMPLE" -o "$TMP/no/such/dir/x.snap" &&
  has "tree2snap into a missing directory" err "cannot"
run "tree2snap of a missing file" 1 "$BIN" tree2snap "$TMP/missing.tree" -o "$TMP/x.snap" &&
  has "tree2snap of a missing file" err "missing.tree"
run "snapinfo of a missing file" 1 "$BIN" snapinfo "$TMP/missing.snap"
run "snapinfo of a .tree file" 1 "$BIN" snapinfo "$SAMPLE" && has "snapinfo of a .tree file" err "not a valid snapshot"
: >"$TMP/empty.snap"
run "snapinfo of an empty file" 1 "$BIN" snapinfo "$TMP/empty.snap"
if [ -s "$snap" ]; then
  head -c 200 "$snap" >"$TMP/truncated.snap"
  run "snapinfo of a truncated snapshot" 1 "$BIN" snapinfo "$TMP/truncated.snap"
  run "tree2snap of a binary file" 1 "$BIN" tree2snap "$snap" -o "$TMP/x.snap" && has "tree2snap of a binary file" err "glyph-A.snap:"
fi

# --- malformed .tree files: exit 1, a message naming the line, no crash -------

bad=$TMP/bad
mkdir "$bad"
printf 'glyph name="A"\n    layer\n  contour\n' >"$bad/indentation.tree"
printf '  glyph name="A"\n' >"$bad/indented-first.tree"
printf 'glyph name="A"\n\tlayer\n' >"$bad/tab.tree"
printf '# a comment\nglyph name="A width=1200\n' >"$bad/unterminated.tree"
printf 'glyph name="A"\n  layer\n    point x=wide\n' >"$bad/unknown-value.tree"
printf 'glyph name="A\\q"\n' >"$bad/bad-escape.tree"
printf 'glyph width=1 width=2\n' >"$bad/duplicate-key.tree"
printf 'glyph\n  point x=1 y\n' >"$bad/missing-equals.tree"
printf 'glyph\n  point x=\n' >"$bad/missing-value.tree"
printf 'glyph x=1e999\n' >"$bad/huge-number.tree"
printf 'glyph\n  point x=1\000\n' >"$bad/nul.tree"
printf 'glyph @selected=true\n' >"$bad/local-key.tree"
printf '1glyph\n' >"$bad/bad-kind.tree"
for case in indentation:3 indented-first:1 tab:2 unterminated:2 unknown-value:3 bad-escape:1 duplicate-key:1 \
  missing-equals:2 missing-value:2 huge-number:1 nul:2 local-key:1 bad-kind:1; do
  file=${case%%:*}.tree
  line=${case##*:}
  run "malformed $file" 1 "$BIN" tree2snap "$bad/$file" -o "$TMP/bad.snap" && has "malformed $file" err "$file:$line: "
done
[ -e "$TMP/bad.snap" ] && fail "a malformed .tree file produced a snapshot"

# --- SVG: info and cat tell a drawing from a font --------------------------------
cat >"$TMP/d.svg" <<'SVG'
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg"  width='10'
     viewBox="0 0 10 10"><rect id="r" x="1"/><!-- c --></svg>
SVG
cp "$TMP/d.svg" "$TMP/drawing.xml"
if run "info of an SVG" 0 "$BIN" info "$TMP/d.svg"; then
  has "info of an SVG" out "SVG, "
  has "info of an SVG" out "root element *svg$"
  has "info of an SVG" out "rect *1$"
fi
run "cat of an SVG" 0 "$BIN" cat "$TMP/d.svg" && cmp -s "$TMP/out" "$TMP/d.svg" || fail "cat of an SVG changed its bytes"
run "cat of an SVG by content" 0 "$BIN" cat "$TMP/drawing.xml" -o "$TMP/copy.xml" &&
  { cmp -s "$TMP/copy.xml" "$TMP/d.svg" || fail "cat -o of an SVG changed its bytes"; }
printf '<svg>\n<g>\n</svg>\n' >"$TMP/bad.svg"
run "cat of a malformed SVG" 1 "$BIN" cat "$TMP/bad.svg" && has "cat of a malformed SVG" err "bad.svg: line 3: "

# render: a PNG of the drawing's size, a clear error otherwise, nothing written
if run "render an SVG" 0 "$BIN" render "$TMP/d.svg" -o "$TMP/d.png" --width 40; then
  has "render an SVG" err "40 x 40 pixels"
  checks=$((checks + 1))
  [ "$(head -c 4 "$TMP/d.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "render wrote no PNG"
fi
run "render without -o" 2 "$BIN" render "$TMP/d.svg" && has "render without -o" err "give the image to write"
run "render a malformed SVG" 1 "$BIN" render "$TMP/bad.svg" -o "$TMP/bad.png" &&
  has "render a malformed SVG" err "does not render"
checks=$((checks + 1))
[ ! -e "$TMP/bad.png" ] || fail "render of a malformed SVG left a file"
run "render a bad size" 2 "$BIN" render "$TMP/d.svg" -o "$TMP/x.png" --width -3

# visdiff: the visual diff of two drawings, the output by its extension
sed -e 's/x="1"/x="3"/' "$TMP/d.svg" >"$TMP/d2.svg"
cmp -s "$TMP/d.svg" "$TMP/d2.svg" && fail "visdiff: the edited drawing is the same"
for ext in svg png html; do
  if run "visdiff to .$ext" 0 "$BIN" visdiff "$TMP/d.svg" "$TMP/d2.svg" -o "$TMP/vd.$ext"; then
    has "visdiff to .$ext" err "vd.$ext: 0 elements added, 0 removed, 1 changed"
  fi
done
checks=$((checks + 1))
grep -q 'class="ens-changed"' "$TMP/vd.svg" || fail "visdiff's SVG marks no change"
checks=$((checks + 1))
[ "$(head -c 4 "$TMP/vd.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "visdiff wrote no PNG"
checks=$((checks + 1))
grep -q '<li class="changed" data-ens="0">' "$TMP/vd.html" || fail "visdiff's page lists no change"
run "visdiff --quiet" 0 "$BIN" visdiff -q "$TMP/d.svg" "$TMP/d2.svg" -o "$TMP/vd.svg" && lacks "visdiff --quiet" err "."
run "visdiff without -o" 2 "$BIN" visdiff "$TMP/d.svg" "$TMP/d2.svg" && has "visdiff without -o" err "give the file to write"
run "visdiff to an unknown kind" 2 "$BIN" visdiff "$TMP/d.svg" "$TMP/d2.svg" -o "$TMP/vd.txt" &&
  has "visdiff to an unknown kind" err "must end in .svg, .png or .html"
run "visdiff of a malformed SVG" 1 "$BIN" visdiff "$TMP/d.svg" "$TMP/bad.svg" -o "$TMP/vdbad.svg" &&
  has "visdiff of a malformed SVG" err "bad.svg: line 3: "
run "visdiff of a drawing and a font" 1 "$BIN" visdiff "$TMP/d.svg" "$SRC/examples/LibertinusMono-Regular.sfd" \
  -o "$TMP/vdkind.svg" && has "visdiff of a drawing and a font" err "compare two versions of one kind"
checks=$((checks + 1))
[ ! -e "$TMP/vdbad.svg" ] && [ ! -e "$TMP/vd.txt" ] && [ ! -e "$TMP/vdkind.svg" ] || fail "a failed visdiff left a file"

# --- SVG: edit, one transaction per command --------------------------------------
cat >"$TMP/e.svg" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">
  <rect id="r" x="1" width="5" height="5" style="fill:red"/>
  <circle id="c" r="3"/>
</svg>
SVG
cat >"$TMP/e.cmds" <<'CMDS'
# one of each kind, text and JSON
set-attr #r x 7
set-style #r stroke blue dotted
{"cmd":"translate","elem":"/svg/circle[0]","dx":3,"dy":4}
raise #r
group id=both #c #r
duplicate #both
ungroup #both-1
insert /svg end <ellipse rx="1" ry="2"/>
remove-attr #r width
delete #c-1
CMDS
cat >"$TMP/e.want" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">
  <g id="both"><circle id="c" r="3" transform="translate(3,4)"/>
  <rect id="r" x="7" height="5" style="fill:red;stroke:blue dotted"/></g>
  <rect id="r-1" x="7" width="5" height="5" style="fill:red;stroke:blue dotted"/>
  <ellipse rx="1" ry="2"/>
</svg>
SVG
run "edit of an SVG" 0 "$BIN" edit "$TMP/e.svg" -o "$TMP/e.out.svg" --commands "$TMP/e.cmds" &&
  { cmp -s "$TMP/e.out.svg" "$TMP/e.want" || { fail "edit of an SVG: unexpected output"; diff "$TMP/e.want" "$TMP/e.out.svg" >&2; }; }
printf 'translate #r 0 0\n' >"$TMP/e0.cmds"
run "edit of an SVG that moves by 0" 0 "$BIN" edit "$TMP/e.svg" -o "$TMP/e0.svg" -c "$TMP/e0.cmds" &&
  { cmp -s "$TMP/e0.svg" "$TMP/e.svg" || fail "translate by 0 changed the file"; }
printf 'set-attr #r x 2\nungroup #r\n' >"$TMP/ebad.cmds"
run "edit of an SVG with a bad command" 1 "$BIN" edit "$TMP/e.svg" -o "$TMP/ebad.svg" -c "$TMP/ebad.cmds" &&
  has "edit of an SVG with a bad command" err 'ebad.cmds:2: ungroup: #r is a <rect>, not a group <g> (ENS_EINVAL) (nothing written)'
[ -e "$TMP/ebad.svg" ] && fail "a failed SVG edit wrote its output"
printf 'insert #r 0 <foo:x/>\n' >"$TMP/ens.cmds"
run "edit of an SVG inserting an undeclared prefix" 1 "$BIN" edit "$TMP/e.svg" -o "$TMP/ens.svg" -c "$TMP/ens.cmds" &&
  has "edit of an SVG inserting an undeclared prefix" err 'prefix "foo", which is not declared'
run "edit --help names the drawing commands" 0 "$BIN" edit --help && has "edit --help" out "ungroup ELEM"

# --- sessions: serve a snapshot, watch it into a mirror, stop, serve again
run "tree2snap for serve" 0 "$BIN" tree2snap "$SAMPLE" -o "$TMP/doc.snap"
cp "$TMP/doc.snap" "$TMP/orig.snap"
run "serve refuses a public endpoint" 2 "$BIN" serve --bind tcp://0.0.0.0:7 "$TMP/doc.snap" &&
  has "serve refuses a public endpoint" err "binds only to this machine"
# 192.0.2.1 (TEST-NET-1) is on no interface here: the bind fails after the warning
run "serve --insecure warns" 1 "$BIN" serve --insecure --bind tcp://192.0.2.1:7 "$TMP/doc.snap" &&
  has "serve --insecure warns" err "warning: --insecure: tcp://192.0.2.1:7 is not encrypted"
run "serve with half the keys" 2 "$BIN" serve --keys "$TMP" "$TMP/doc.snap"

# --- keys: keygen, modes, no overwriting; authorised keys with line numbers
if run "keygen" 0 "$BIN" keygen "$TMP/server-keys"; then
  spub=$(cat "$TMP/out")
  checks=$((checks + 1))
  [ "$(printf %s "$spub" | wc -c)" -eq 40 ] || fail "keygen printed '$spub', not a 40-character key"
  [ "$(cat "$TMP/server-keys/ensemble.pub")" = "$spub" ] || fail "ensemble.pub is not the key printed"
  [ "$(stat -c %a "$TMP/server-keys/ensemble.key")" = 600 ] || fail "ensemble.key is not mode 600"
  grep -q -F "$(cat "$TMP/server-keys/ensemble.key")" "$TMP/out" && fail "keygen printed the secret key"
fi
run "keygen again" 1 "$BIN" keygen "$TMP/server-keys" && has "keygen again" err "already holds keys"
checks=$((checks + 1))
[ "$(cat "$TMP/server-keys/ensemble.pub")" = "$spub" ] || fail "a refused keygen changed the keys"
run "keygen --force" 0 "$BIN" keygen --force "$TMP/server-keys" &&
  { [ "$(cat "$TMP/out")" != "$spub" ] || fail "keygen --force kept the old key"; }
spub=$(cat "$TMP/server-keys/ensemble.pub")
run "keygen for a client" 0 "$BIN" keygen "$TMP/alice-keys"
run "keygen for an outsider" 0 "$BIN" keygen "$TMP/eve-keys"
printf '# who may join\n\n%s alice\n' "$(cat "$TMP/alice-keys/ensemble.pub")" >"$TMP/authorized"
printf '%s alice\nnot-a-key bob\n' "$(cat "$TMP/alice-keys/ensemble.pub")" >"$TMP/authorized.bad"
run "serve with a bad authorised-keys line" 1 "$BIN" serve --keys "$TMP/server-keys" \
  --authorized-keys "$TMP/authorized.bad" "$TMP/doc.snap" && has "bad authorised keys" err "authorized.bad:2: "
chmod 644 "$TMP/alice-keys/ensemble.key"
run "watch with a secret key others can read" 1 "$BIN" watch --keys "$TMP/alice-keys" --server-key "$spub" \
  tcp://127.0.0.1:9 && has "watch with a readable key" err "chmod 600"
chmod 600 "$TMP/alice-keys/ensemble.key"
# wait_endpoint WHAT: sets $endpoint from the "serving ... on tcp://..."
# line of $TMP/serve.out, waiting up to 10 s for it.
wait_endpoint() {
  endpoint=""
  i=0
  while [ -z "$endpoint" ] && [ $i -lt 200 ]; do
    sleep 0.05
    i=$((i + 1))
    endpoint=$(sed -n 's/.* on \(tcp[^ ]*\) .*/\1/p' "$TMP/serve.out" 2>/dev/null)
  done
  [ -n "$endpoint" ] || fail "$1 printed no endpoint"
}
serve_round() {
  rm -f "$TMP/serve.out" # the wait below must not see the last round's line
  "$BIN" serve --bind "$1" "$TMP/doc.snap" >"$TMP/serve.out" 2>"$TMP/serve.err" &
  spid=$!
  wait_endpoint "serve"
  run "watch $2" 0 "$BIN" watch --until-seq 0 --seconds 10 --mirror "$TMP/mirror-$2.snap" "$endpoint" &&
    has "watch $2" out "^connected as site" && has "watch $2" out "^seq 0 hash "
  cmp -s "$TMP/mirror-$2.snap" "$TMP/orig.snap" || fail "the $2 mirror differs from the served document"
  kill -TERM "$spid"
  wait "$spid"
  src=$?
  checks=$((checks + 1))
  [ "$src" -eq 0 ] || fail "serve stopped with status $src"
  grep -q "stopped at seq 0" "$TMP/serve.err" || fail "serve did not report its stop"
  cmp -s "$TMP/doc.snap" "$TMP/orig.snap" || fail "serve rewrote an unchanged document differently"
}
serve_round "tcp://127.0.0.1:*" first
[ -e "$TMP/doc.snap.ensemble" ] || fail "serve made no store next to the file"
serve_round "$endpoint" again

# --- an encrypted session: alice's key is let in, eve's is not
rm -f "$TMP/serve.out"
"$BIN" serve --keys "$TMP/server-keys" --authorized-keys "$TMP/authorized" --store "$TMP/enc.ensemble" \
  --bind "tcp://127.0.0.1:*" "$TMP/doc.snap" >"$TMP/serve.out" 2>"$TMP/serve.err" &
spid=$!
wait_endpoint "encrypted serve"
checks=$((checks + 1))
grep -q -F "key $spub" "$TMP/serve.out" || fail "encrypted serve did not print its public key"
run "watch with an authorised key" 0 "$BIN" watch --keys "$TMP/alice-keys" \
  --server-key "$TMP/server-keys/ensemble.pub" --until-seq 0 --seconds 10 "$endpoint" &&
  has "watch with an authorised key" out "^connected as site"
run "watch with an unknown key" 1 "$BIN" watch --keys "$TMP/eve-keys" --server-key "$spub" --seconds 10 "$endpoint" &&
  has "watch with an unknown key" out "refused by the server (unknown key?)" &&
  lacks "watch with an unknown key" out "^connected"
run "watch without keys" 1 "$BIN" watch --seconds 10 "$endpoint" && lacks "watch without keys" out "^connected"
# join gets in with the same key, then refuses to mirror a snapshot's
# document into a drawing, and writes nothing
run "join a session of another kind" 1 "$BIN" join --keys "$TMP/alice-keys" \
  --server-key "$TMP/server-keys/ensemble.pub" --seconds 10 --file "$TMP/join.svg" "$endpoint" &&
  has "join a session of another kind" out "^connected as site" &&
  has "join a session of another kind" err 'holds a document of kind "font"'
[ -e "$TMP/join.svg" ] && fail "join wrote a drawing from a session of another kind"
run "join with an unknown key" 1 "$BIN" join --keys "$TMP/eve-keys" --server-key "$spub" --seconds 10 \
  --file "$TMP/join.svg" "$endpoint" && has "join with an unknown key" err "refused"
kill -TERM "$spid"
wait "$spid"
checks=$((checks + 1))
grep -q "(alice) joined" "$TMP/serve.err" || fail "encrypted serve did not log alice joining"
grep -q "refused a connection" "$TMP/serve.err" || fail "encrypted serve did not log the refusal"

echo "cli_smoke: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
