#!/bin/sh
# What rewriting a file leaves on disk, for `ensemble serve FILE` (the tool's
# own atomic writer) and `ensemble cat FILE -o OUT` (the library's): a 0600
# file stays 0600 and keeps its owner; a FILE that is a symbolic link stays
# one, its target rewritten (and edited while serve was down, taken in through
# the link); a writer killed right before its rename (strace delivers SIGKILL
# as it enters rename) leaves the old file whole, and its temporary file is
# gone after the next start. CTest runs it as `serve_files.sh
# /path/to/build/ensemble`; the kill is skipped without strace, the owner
# check when not run as root.
set -u

BIN=${1:?usage: serve_files.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
FONT=$SRC/examples/LibertinusMono-Regular.sfd
WAIT=${ENS_SERVE_WAIT:-60}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/serve_files.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
LOGS=$TMP/logs
mkdir -p "$LOGS"

checks=0
failures=0
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
show() { sed 's/^/    | /' "$1" | head -n 12 >&2; }

wait_line() {
  deadline=$(($(date +%s) + WAIT))
  while ! grep -q '^serving ' "$1" 2>/dev/null; do
    kill -0 "$2" 2>/dev/null || break
    [ "$(date +%s)" -ge "$deadline" ] && break
    sleep 0.05
  done
  grep -q '^serving ' "$1" 2>/dev/null
}

# round DESC FILE: serve FILE until it serves, SIGTERM; status 0 expected.
round() {
  rdesc=$1
  "$BIN" serve --bind 'tcp://127.0.0.1:*' "$2" >"$LOGS/r.out" 2>"$LOGS/r.err" &
  pid=$!
  checks=$((checks + 1))
  if ! wait_line "$LOGS/r.out" "$pid"; then
    fail "$rdesc: serve did not start"
    show "$LOGS/r.err"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 1
  fi
  kill -TERM "$pid"
  wait "$pid"
  st=$?
  checks=$((checks + 1))
  if [ "$st" -ne 0 ]; then
    fail "$rdesc: serve stopped with status $st"
    show "$LOGS/r.err"
    return 1
  fi
  return 0
}

mode_of() { stat -c %a "$1"; }
owner_of() { stat -c %U:%G "$1"; }
# others DIR NAME...: the names in DIR (dot files too) other than those given
others() {
  dir=$1
  shift
  ls -A "$dir" | while read -r n; do
    keep=0
    for k in "$@"; do [ "$n" = "$k" ] && keep=1; done
    [ "$keep" = 1 ] || echo "$n"
  done
}
none_other() { [ -z "$(others "$@")" ]; }
# width FILE GLYPH: the Width: line of GLYPH
width() { awk -v g="StartChar: $2" '$0 == g { f = 1 } f && /^Width:/ { print $2; exit }' "$1"; }
set_width() { # set_width FILE GLYPH W: an editor's save, through whatever links FILE is
  awk -v g="StartChar: $2" -v w="$3" '$0 == g { f = 1 } f && /^Width:/ { $0 = "Width: " w; f = 0 } { print }' \
    "$1" >"$TMP/edit.tmp" && cat "$TMP/edit.tmp" >"$1"
}

owner=
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  owner="nobody:$(id -gn nobody)"
fi

# --- serve: mode and owner ----------------------------------------------------
mkdir -p "$TMP/mode"
cp "$FONT" "$TMP/mode/f.sfd"
chmod 600 "$TMP/mode/f.sfd"
[ -n "$owner" ] && chown "$owner" "$TMP/mode/f.sfd"
round "serve of a 0600 file" "$TMP/mode/f.sfd"
check "serve keeps a 0600 file 0600 (now $(mode_of "$TMP/mode/f.sfd"))" [ "$(mode_of "$TMP/mode/f.sfd")" = 600 ]
if [ -n "$owner" ]; then
  check "serve keeps the file's owner $owner (now $(owner_of "$TMP/mode/f.sfd"))" \
    [ "$(owner_of "$TMP/mode/f.sfd")" = "$owner" ]
else
  echo "skipped: the owner check (not root, or no user nobody)"
fi
check "serve rewrote the 0600 file byte for byte" cmp -s "$TMP/mode/f.sfd" "$FONT"

# --- serve: FILE a symbolic link ---------------------------------------------------
mkdir -p "$TMP/real" "$TMP/link"
cp "$FONT" "$TMP/real/font.sfd"
chmod 640 "$TMP/real/font.sfd"
ln -s ../real/font.sfd "$TMP/link/f.sfd"
round "serve through a link" "$TMP/link/f.sfd"
check "FILE is still a symbolic link after serve" [ -L "$TMP/link/f.sfd" ]
check "the link still names ../real/font.sfd" [ "$(readlink "$TMP/link/f.sfd")" = ../real/font.sfd ]
check "the link's target is the font, mode 640" [ "$(mode_of "$TMP/real/font.sfd")" = 640 ]
check "the link's target holds the font" cmp -s "$TMP/real/font.sfd" "$FONT"
check "nothing else was left beside the target: $(others "$TMP/real" font.sfd)" none_other "$TMP/real" font.sfd
set_width "$TMP/link/f.sfd" a 777 # edited while serve is down, through the link
round "serve through a link after an edit" "$TMP/link/f.sfd"
check "the edit made through the link was taken in" grep -q "f.sfd was changed since the server last wrote it" \
  "$LOGS/r.err"
check "FILE is still a symbolic link after taking the edit in" [ -L "$TMP/link/f.sfd" ]
check "the link's target keeps the edit (width $(width "$TMP/real/font.sfd" a))" \
  [ "$(width "$TMP/real/font.sfd" a)" = 777 ]

# --- cat -o (the library's writer): mode and link ----------------------------------
cp "$FONT" "$TMP/out.sfd"
chmod 600 "$TMP/out.sfd"
[ -n "$owner" ] && chown "$owner" "$TMP/out.sfd"
"$BIN" cat "$FONT" -o "$TMP/out.sfd" >"$LOGS/cat.out" 2>"$LOGS/cat.err" || fail "cat -o: $(cat "$LOGS/cat.err")"
check "cat -o keeps a 0600 file 0600 (now $(mode_of "$TMP/out.sfd"))" [ "$(mode_of "$TMP/out.sfd")" = 600 ]
[ -n "$owner" ] && check "cat -o keeps the file's owner $owner (now $(owner_of "$TMP/out.sfd"))" \
  [ "$(owner_of "$TMP/out.sfd")" = "$owner" ]
mkdir -p "$TMP/catreal"
cp "$FONT" "$TMP/catreal/t.sfd"
ln -s "$TMP/catreal/t.sfd" "$TMP/catlink.sfd"
"$BIN" cat "$FONT" -o "$TMP/catlink.sfd" >"$LOGS/cat.out" 2>"$LOGS/cat.err" || fail "cat -o: $(cat "$LOGS/cat.err")"
check "cat -o writes through a link" [ -L "$TMP/catlink.sfd" ]
check "cat -o wrote the link's target" cmp -s "$TMP/catreal/t.sfd" "$FONT"

# --- writers killed right before their rename --------------------------------------------
if ! command -v strace >/dev/null 2>&1 || ! strace -f -qq -o /dev/null true >/dev/null 2>&1; then
  echo "skipped: killed writers (strace is not installed or cannot trace here)"
else
  KILLS="-e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:signal=KILL"
  # LeakSanitizer cannot run under ptrace: the traced runs go without it
  NOLEAK="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  mkdir -p "$TMP/kill"
  cp "$FONT" "$TMP/kill/f.sfd"
  # serve: the write-back at its stop is killed as it renames
  env "$NOLEAK" strace -f -qq -o /dev/null $KILLS sh -c 'echo $$ >"$0"; exec "$@"' "$LOGS/pid" \
    "$BIN" serve --bind 'tcp://127.0.0.1:*' "$TMP/kill/f.sfd" >"$LOGS/k.out" 2>"$LOGS/k.err" &
  tp=$!
  if wait_line "$LOGS/k.out" "$tp"; then
    kill -TERM "$(cat "$LOGS/pid")"
  else
    fail "serve under strace did not start"
    show "$LOGS/k.err"
  fi
  wait "$tp"
  st=$?
  check "serve was killed at the rename of its write-back (status $st)" [ "$st" -eq 137 ]
  check "the killed write-back left FILE whole" cmp -s "$TMP/kill/f.sfd" "$FONT"
  left=$(others "$TMP/kill" f.sfd f.sfd.ensemble f.sfd.ensemble-wal f.sfd.ensemble-shm f.sfd.ensemble-journal)
  check "the killed write-back left its temporary file" [ -n "$left" ]
  echo "a killed write-back left: $left"
  round "serve after a killed write-back" "$TMP/kill/f.sfd"
  check "the next serve removed what the killed one left: $(others "$TMP/kill" f.sfd f.sfd.ensemble)" \
    none_other "$TMP/kill" f.sfd f.sfd.ensemble
  check "FILE is the font after the next serve" cmp -s "$TMP/kill/f.sfd" "$FONT"

  # cat -o: the library's writer
  mkdir -p "$TMP/killcat"
  cp "$FONT" "$TMP/killcat/o.sfd"
  env "$NOLEAK" strace -f -qq -o /dev/null $KILLS "$BIN" cat "$FONT" -o "$TMP/killcat/o.sfd" >"$LOGS/kc.out" 2>"$LOGS/kc.err"
  st=$?
  check "cat was killed at its rename (status $st)" [ "$st" -eq 137 ]
  check "the killed cat left o.sfd whole" cmp -s "$TMP/killcat/o.sfd" "$FONT"
  check "the killed cat left its temporary file" [ -n "$(others "$TMP/killcat" o.sfd)" ]
  "$BIN" cat "$FONT" -o "$TMP/killcat/o.sfd" >"$LOGS/kc.out" 2>"$LOGS/kc.err" || fail "cat -o after a kill"
  check "the next cat -o removed what the killed one left: $(others "$TMP/killcat" o.sfd)" \
    none_other "$TMP/killcat" o.sfd
fi

for f in "$LOGS"/*.err; do
  if grep -q -e 'Sanitizer' -e 'runtime error:' "$f"; then
    fail "sanitizer report in $f"
    show "$f"
  fi
done
echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
