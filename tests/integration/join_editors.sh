#!/bin/sh
# `ensemble join` with real editors' saves, end to end on loopback: a server
# and two mirrors A and B, each in its own process, and the editors' side as
# separate /usr/bin/python3 processes: FontForge (import fontforge) opening,
# editing and saving A's or B's font, and a text edit of an SVG drawing
# saved in place or by rename. Checks that every edit reaches the other file
# and the server, that saves made at the same moment in both files keep
# both edits, that a half-written save is neither sent nor overwritten, and
# that a save editing what a collaborator deleted gives way to the session.
# CTest runs it twice: `join_editors.sh /path/to/build/ensemble font` on
# the font bundled in examples/ (exit 77, skipped, without FontForge's
# Python module) and `... svg` on a drawing of the shared corpus (exit 77
# without the corpus). With no part named, both run.
set -u

BIN=${1:?usage: join_editors.sh /path/to/ensemble [font|svg]}
PART=${2:-both}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
FONT=$SRC/examples/LibertinusMono-Regular.sfd
if [ -n "${ENSEMBLE_CORPUS:-}" ]; then CORPUS=$ENSEMBLE_CORPUS; else CORPUS=$SRC/../shared/corpus; fi
DRAWING=$CORPUS/svg/large/minify_sample_tiger.svg
# generous for a sanitizer build on a shared 2-core machine
WAIT=${ENS_JOIN_WAIT:-30}

case $PART in
font | svg | both) ;;
*) echo "usage: join_editors.sh /path/to/ensemble [font|svg]" >&2; exit 2 ;;
esac
if [ "$PART" != font ] && [ ! -r "$DRAWING" ]; then
  echo "skipped: no shared corpus (../shared/corpus or \$ENSEMBLE_CORPUS): its drawing $DRAWING is absent"
  exit 77
fi
if [ "$PART" != svg ] && ! "$PY" -c 'import fontforge' >/dev/null 2>&1; then
  echo "skipped: $PY cannot import fontforge; install it with: apt-get install python3-fontforge"
  exit 77
fi
if [ ! -r "$FONT" ]; then
  echo "FAIL: the bundled font $FONT is missing" >&2
  exit 1
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/join_editors.XXXXXX") || exit 1
PIDS=""
cleanup() {
  for p in $PIDS; do kill "$p" 2>/dev/null; done
  for p in $PIDS; do wait "$p" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

checks=0
failures=0
START=$(date +%s)

fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}

check() {
  checks=$((checks + 1))
  desc=$1
  shift
  "$@" || fail "$desc"
}

# wait_for DESC COMMAND...: retries COMMAND every 0.1 s until it succeeds or
# $WAIT seconds pass; 0 when it succeeded.
wait_for() {
  desc=$1
  shift
  checks=$((checks + 1))
  deadline=$(($(date +%s) + WAIT))
  while ! "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      fail "timed out waiting for: $desc"
      return 1
    fi
    sleep 0.1
  done
  return 0
}

# start_server FILE: serves FILE, sets $endpoint and $server_pid.
start_server() {
  "$BIN" serve --bind "tcp://127.0.0.1:*" "$1" >"$1.serve.out" 2>"$1.serve.err" &
  server_pid=$!
  PIDS="$PIDS $server_pid"
  endpoint=
  wait_for "serve $1 prints its endpoint" grep -q " on tcp" "$1.serve.out"
  endpoint=$(sed -n 's/.* on \(tcp[^ ]*\) .*/\1/p' "$1.serve.out")
}

# start_join NAME FILE: a mirror of the session at $endpoint into FILE;
# sets ${NAME}_pid and waits for the first write.
start_join() {
  "$BIN" join --name "$1" --file "$2" "$endpoint" >"$TMP/$1.out" 2>"$TMP/$1.err" &
  eval "$1_pid=$!"
  PIDS="$PIDS $!"
  wait_for "join $1 writes $2" grep -q "^wrote $2 at seq" "$TMP/$1.out"
}

# last_hash FILE: "SEQ HASH" from the last "seq N hash H ..." line of FILE.
last_hash() { sed -n 's/^seq \([0-9]*\) hash \([0-9a-f]*\) .*/\1 \2/p' "$1" | tail -n 1; }

# stop NAME: SIGTERM and wait; sets $hash to its last line's "SEQ HASH".
stop() {
  eval "p=\$$1_pid"
  kill "$p" 2>/dev/null
  wait "$p"
  rc=$?
  checks=$((checks + 1))
  [ "$rc" -eq 0 ] || fail "$1 stopped with status $rc"
  hash=$(last_hash "$TMP/$1.out")
}

# stop_server: SIGTERM and wait; the server writes its file back.
stop_server() {
  kill "$server_pid"
  wait "$server_pid"
  rc=$?
  checks=$((checks + 1))
  [ "$rc" -eq 0 ] || fail "the server stopped with status $rc"
}

sent_count() { grep -c '^sent ' "$1"; }
sent_more() { [ "$(sent_count "$1")" -gt "$2" ]; }

# glyph_width FILE GLYPH: the Width: line of GLYPH in an SFD file.
glyph_width() {
  awk -v g="StartChar: $2" '$0 == g { f = 1 } f && /^Width:/ { print $2; exit }' "$1"
}
width_is() { [ "$(glyph_width "$1" "$2")" = "$3" ]; }

# has_attr FILE ID ATTR VALUE: the element with that id carries ATTR="VALUE".
has_attr() {
  grep -q "<[a-z]*[^>]* id=\"$2\"[^>]* $3=\"$4\"" "$1" || grep -q "<[a-z]*[^>]* $3=\"$4\"[^>]* id=\"$2\"" "$1"
}
lacks_id() { ! grep -q " id=\"$2\"" "$1"; }
same_files() { cmp -s "$1" "$2"; }

# no sanitizer report, no crash in the logs of the tool
check_logs() {
  for f in "$TMP"/*.err "$@"; do
    [ -e "$f" ] || continue
    if grep -q -e 'Sanitizer' -e 'runtime error:' "$f"; then
      fail "sanitizer report in $f"
      sed 's/^/    | /' "$f" | head -n 30 >&2
    fi
  done
}

# --- FontForge ---------------------------------------------------------------
t0=$(date +%s)
if [ "$PART" != svg ]; then
mkdir -p "$TMP/font" "$TMP/fa" "$TMP/fb"
cp "$FONT" "$TMP/font/font.sfd" && chmod u+w "$TMP/font/font.sfd"
start_server "$TMP/font/font.sfd"
A=$TMP/fa/font.sfd
B=$TMP/fb/font.sfd
# a watcher for the whole FontForge part: every save lands as one
# transaction, named by its author, with a latency
"$BIN" watch --json --name watcher "$endpoint" >"$TMP/watch.json" 2>"$TMP/watch.err" &
watch_pid=$!
PIDS="$PIDS $watch_pid"
wait_for "watch --json connects" grep -q '"event": "connected"' "$TMP/watch.json"
start_join fa "$A"
start_join fb "$B"
check "both mirrors hold the served font byte for byte" cmp -s "$A" "$FONT"
check "both mirrors hold the served font byte for byte (B)" cmp -s "$B" "$FONT"

# 1. FontForge edits glyph a in A's file: width and a point
at=$("$PY" "$HERE/join/ff_edit.py" "$A" a 700 13 2>"$TMP/ff1.err") || fail "FontForge's edit of A: $(cat "$TMP/ff1.err")"
wait_for "A's edit of glyph a reaches B's file" width_is "$B" a 700
check "FontForge reads B's file with A's edit of glyph a" \
  "$PY" "$HERE/join/ff_check.py" "$B" -- "a=700@$(echo "$at" | tr ' ' ',')"

# 2. both files saved by FontForge at the same moment, different glyphs
"$PY" "$HERE/join/ff_edit.py" "$A" b 710 5 >/dev/null 2>"$TMP/ff2.err" &
e1=$!
"$PY" "$HERE/join/ff_edit.py" "$B" c 720 -7 >/dev/null 2>"$TMP/ff3.err" &
e2=$!
wait $e1 || fail "FontForge's edit of A's glyph b: $(cat "$TMP/ff2.err")"
wait $e2 || fail "FontForge's edit of B's glyph c: $(cat "$TMP/ff3.err")"
wait_for "B's edit of glyph c reaches A's file" width_is "$A" c 720
wait_for "A's edit of glyph b reaches B's file" width_is "$B" b 710
wait_for "A's and B's files end the same" same_files "$A" "$B"
check "FontForge reads both files with all three edits" \
  "$PY" "$HERE/join/ff_check.py" "$A" "$B" -- "a=700@$(echo "$at" | tr ' ' ',')" b=710 c=720
check "A sent each of its two saves once" [ "$(sent_count "$TMP/fa.out")" -eq 2 ]

"$BIN" watch --seconds 2 "$endpoint" >"$TMP/fw.out" 2>"$TMP/fw.err"
server=$(last_hash "$TMP/fw.out")
kill -TERM "$watch_pid"
wait "$watch_pid"
check "watch --json saw the three saves land, each with its author and a latency" \
  [ "$(grep -c '"event": "txn", .*"label": "Saved by editor", .*"latency_ms": [0-9.]*}' "$TMP/watch.json")" -eq 3 ]
check "watch --json named the mirrors' authors" grep -q '"event": "txn", "seq": 1, "site": [0-9]*, "name": "fa"' "$TMP/watch.json"
check "watch --json stopped at seq 3" grep -q '"event": "stopped", "seq": 3' "$TMP/watch.json"
stop fa
ha=$hash
stop fb
hb=$hash
check "the server holds three changes (got '$server')" [ "${server%% *}" = 3 ]
check "A ends with the server's document ($ha, server $server)" [ -n "$ha" -a "$ha" = "$server" ]
check "B ends with the server's document ($hb, server $server)" [ -n "$hb" -a "$hb" = "$server" ]
stop_server
check "the server's file holds all the edits" cmp -s "$TMP/font/font.sfd" "$A"
check_logs "$TMP/font/font.sfd.serve.err"
echo "fontforge part: $(($(date +%s) - t0)) s"
fi


# --- SVG ---------------------------------------------------------------------
t1=$(date +%s)
if [ "$PART" != font ]; then
mkdir -p "$TMP/draw" "$TMP/sa" "$TMP/sb"
cp "$DRAWING" "$TMP/draw/tiger.svg" && chmod u+w "$TMP/draw/tiger.svg"
start_server "$TMP/draw/tiger.svg"
A=$TMP/sa/tiger.svg
B=$TMP/sb/tiger.svg
start_join sa "$A"
start_join sb "$B"
check "both mirrors hold the served drawing byte for byte" cmp -s "$A" "$DRAWING"

edit() { "$PY" "$HERE/join/svg_edit.py" "$@" || fail "svg_edit.py $*"; }

# 1. one save in place, one by rename
edit "$A" inplace path8 fill "#ff0000"
wait_for "A's in-place save reaches B" has_attr "$B" path8 fill "#ff0000"
edit "$B" rename g10 stroke-width 0.5
wait_for "B's save by rename reaches A" has_attr "$A" g10 stroke-width 0.5

# 2. both saved at the same moment, different elements
edit "$A" inplace path12 fill "#00ff00" &
e1=$!
edit "$B" rename path16 fill "#0000ff" &
e2=$!
wait $e1
wait $e2
wait_for "B's simultaneous save reaches A" has_attr "$A" path16 fill "#0000ff"
wait_for "A's simultaneous save reaches B" has_attr "$B" path12 fill "#00ff00"
wait_for "A's and B's drawings end the same" same_files "$A" "$B"

# 3. a half-written save in A: nothing sent, and A's file is not
# overwritten, not even by B's change meanwhile
cp "$A" "$TMP/a-good.svg"
edit "$A" break
cp "$A" "$TMP/a-broken.svg"
wait_for "A says its file does not read" grep -q "does not read" "$TMP/sa.err"
edit "$B" inplace path20 fill "#123456"
sleep 1
check "B's change did not overwrite A's broken file" cmp -s "$A" "$TMP/a-broken.svg"
check "A's broken save was reported once" [ "$(grep -c 'does not read' "$TMP/sa.err")" -eq 1 ]
check "A's broken save sent nothing" [ "$(sent_count "$TMP/sa.out")" -eq 2 ]
# the editor saves again, whole, with one more edit
cp "$TMP/a-good.svg" "$TMP/a-fixed.svg"
edit "$TMP/a-fixed.svg" inplace path24 fill "#abcdef"
cat "$TMP/a-fixed.svg" >"$A"
wait_for "A's repaired save reaches B" has_attr "$B" path24 fill "#abcdef"
wait_for "B's change made meanwhile reaches A" has_attr "$A" path20 fill "#123456"
wait_for "A's and B's drawings end the same again" same_files "$A" "$B"

# 4. A's editor changes an element that B deletes while A's mirror is
# stopped: A's save no longer applies, is reported, and A's file is
# rewritten from the session
kill -STOP "$sa_pid"
edit "$A" inplace path28 fill "#fedcba"
nb=$(sent_count "$TMP/sb.out")
edit "$B" delete path28
wait_for "B sends its delete" sent_more "$TMP/sb.out" "$nb"
sleep 0.3
kill -CONT "$sa_pid"
wait_for "A reports its save as not applied" grep -q -e "was not applied" -e "rejected" "$TMP/sa.err"
grep -e "was not applied" -e "rejected" "$TMP/sa.err" | sed 's/^/  A: /'
wait_for "A's file is rewritten without the deleted element" lacks_id "$A" path28
wait_for "A's and B's drawings end the same at last" same_files "$A" "$B"

"$BIN" watch --seconds 2 "$endpoint" >"$TMP/sw.out" 2>"$TMP/sw.err"
server=$(last_hash "$TMP/sw.out")
stop sa
ha=$hash
stop sb
hb=$hash
check "A ends with the server's drawing ($ha, server $server)" [ -n "$ha" -a "$ha" = "$server" ]
check "B ends with the server's drawing ($hb, server $server)" [ -n "$hb" -a "$hb" = "$server" ]
stop_server
check "the server's drawing holds all the edits" cmp -s "$TMP/draw/tiger.svg" "$A"
check_logs "$TMP/draw/tiger.svg.serve.err"
echo "svg part: $(($(date +%s) - t1)) s"
fi

echo "$checks checks, $failures failed, $(($(date +%s) - START)) s"
[ "$failures" -eq 0 ]
