#!/bin/sh
# `ensemble serve FILE` never loses FILE when its first start is cut short.
# A store that exists but holds no document (a 0-byte file; a first start
# killed with SIGKILL, or interrupted with SIGINT, at each of the points where
# it syncs the store; a first start on a full disk) must be completed from
# FILE or refused: the next serve then stops with FILE byte for byte as it
# was. The interruptions are made exact by strace, which delivers the signal
# when serve enters its K-th fdatasync (skipped without strace or ptrace); the
# full disk is a small tmpfs (skipped where mounting is not permitted).
# CTest runs it as `serve_start.sh /path/to/build/ensemble`.
set -u

BIN=${1:?usage: serve_start.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
FONT=$SRC/examples/LibertinusMono-Regular.sfd
WAIT=${ENS_SERVE_WAIT:-60} # seconds, generous for a sanitizer build on a shared machine

TMP=$(mktemp -d "${TMPDIR:-/tmp}/serve_start.XXXXXX") || exit 1
MOUNTED=
cleanup() {
  [ -n "$MOUNTED" ] && umount "$MOUNTED" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

checks=0
failures=0
parts=0
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
show() {
  sed 's/^/    | /' "$1" | head -n 12 >&2
}
no_sanitizer() {
  ! grep -q -e 'Sanitizer' -e 'runtime error:' "$1"
}

# wait_line FILE PID: waits until FILE has serve's first line or PID has
# ended (bounded by $WAIT); 0 when the line is there.
wait_line() {
  deadline=$(($(date +%s) + WAIT))
  while ! grep -q '^serving ' "$1" 2>/dev/null; do
    kill -0 "$2" 2>/dev/null || break
    [ "$(date +%s)" -ge "$deadline" ] && break
    sleep 0.05
  done
  grep -q '^serving ' "$1" 2>/dev/null
}

# round DESC DIR: serve DIR/f.sfd until it serves, stop it with SIGTERM; it
# must stop with status 0 and leave f.sfd as it was (the font, unedited).
round() {
  rdesc=$1
  dir=$2
  "$BIN" serve --bind 'tcp://127.0.0.1:*' "$dir/f.sfd" >"$dir/r.out" 2>"$dir/r.err" &
  pid=$!
  checks=$((checks + 1))
  if ! wait_line "$dir/r.out" "$pid"; then
    fail "$rdesc: serve did not start"
    show "$dir/r.err"
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
    show "$dir/r.err"
  fi
  check "$rdesc: no sanitizer report" no_sanitizer "$dir/r.err"
  checks=$((checks + 1))
  if ! cmp -s "$dir/f.sfd" "$FONT"; then
    fail "$rdesc: f.sfd is no longer the font ($(wc -c <"$dir/f.sfd") bytes, was $(wc -c <"$FONT"))"
    show "$dir/r.err"
    return 1
  fi
  return 0
}

fresh() { # fresh DIR: DIR with the font as f.sfd and no store
  rm -rf "$1"
  mkdir -p "$1"
  cp "$FONT" "$1/f.sfd"
  chmod u+w "$1/f.sfd"
}

# --- a store file of 0 bytes ---------------------------------------------------
parts=$((parts + 1))
fresh "$TMP/empty"
: >"$TMP/empty/f.sfd.ensemble"
round "a 0-byte store" "$TMP/empty" && round "a 0-byte store, started again" "$TMP/empty"

# --- a first start with nothing to serve -------------------------------------------
# refused before a store exists: no empty store is left to be taken for one
mkdir -p "$TMP/none"
printf 'not a font\n' >"$TMP/none/bad.sfd"
for name in missing.sfd bad.sfd; do
  "$BIN" serve --bind 'tcp://127.0.0.1:*' "$TMP/none/$name" >"$TMP/none/out" 2>"$TMP/none/err" </dev/null
  st=$?
  check "a first start of $name: exit status 1 (got $st)" [ "$st" -eq 1 ]
  check "a first start of $name: says it cannot start" grep -q "cannot start: .*$name was not changed" "$TMP/none/err"
  check "a first start of $name: prints no serving line" [ ! -s "$TMP/none/out" ]
  check "a first start of $name: leaves no store" [ ! -e "$TMP/none/$name.ensemble" ]
done
check "a first start of bad.sfd: bad.sfd unchanged" [ "$(cat "$TMP/none/bad.sfd")" = "not a font" ]

# --- first starts cut short at each sync of the store ------------------------------
# traced SIG K DIR: serve DIR/f.sfd with SIG delivered when it enters its K-th
# fdatasync; sets $status and $served (1 when it got as far as serving).
traced() {
  rm -f "$3/pid"
  # a command started with & has SIGINT ignored: give it back its default,
  # as a terminal's Ctrl-C finds it
  # (LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks
  # in the untraced rounds only)
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -qq -o /dev/null -e trace=fdatasync -e "inject=fdatasync:signal=$1:when=$2" \
    sh -c 'echo $$ >"$0"; exec env --default-signal=INT "$@"' "$3/pid" "$BIN" serve --bind 'tcp://127.0.0.1:*' \
    "$3/f.sfd" >"$3/t.out" 2>"$3/t.err" &
  tp=$!
  served=0
  if wait_line "$3/t.out" "$tp"; then
    served=1
    # past the start: a KILL point was beyond it; an INT must stop it by itself
    [ "$1" = KILL ] && kill -TERM "$(cat "$3/pid")" 2>/dev/null
    deadline=$(($(date +%s) + WAIT))
    while kill -0 "$tp" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.05; done
    if kill -0 "$tp" 2>/dev/null; then
      fail "serve went on serving after SIG$1 at fdatasync $2 of its start"
      kill -KILL "$(cat "$3/pid")" 2>/dev/null
    fi
  fi
  wait "$tp"
  status=$?
}

if ! command -v strace >/dev/null 2>&1; then
  echo "skipped: interrupted first starts (strace is not installed)"
elif ! strace -f -qq -o /dev/null true >/dev/null 2>&1; then
  echo "skipped: interrupted first starts (strace cannot trace here)"
elif ! env --default-signal=INT true >/dev/null 2>&1; then
  echo "skipped: interrupted first starts (this env cannot restore SIGINT's default action)"
else
  parts=$((parts + 1))
  # SIGKILL at the 1st, 2nd, ... sync until the start gets past them all,
  # which counts them; then SIGINT at each of those
  syncs=0
  for sig in KILL INT; do
    k=1
    while [ "$k" -le 40 ]; do
      [ "$sig" = INT ] && [ "$k" -gt "$syncs" ] && break
      d=$TMP/$sig-$k
      fresh "$d"
      traced "$sig" "$k" "$d"
      if [ "$sig" = INT ]; then
        # the handler is there before the store: the signal only stops it
        checks=$((checks + 1))
        if [ "$status" -ne 0 ]; then
          fail "SIGINT at fdatasync $k of the first start: serve ended with status $status"
          show "$d/t.err"
        fi
        check "SIGINT at fdatasync $k of the first start: f.sfd unchanged" cmp -s "$d/f.sfd" "$FONT"
      fi
      round "after $sig at fdatasync $k of the first start" "$d"
      rm -rf "$d"
      [ "$sig" = KILL ] && [ "$served" = 1 ] && break
      k=$((k + 1))
    done
    [ "$sig" = KILL ] && syncs=$((k - 1))
    echo "$sig at each of the first start's $syncs store syncs: checked"
  done
  [ "$syncs" -gt 1 ] || fail "the first start made no fdatasync to interrupt"
fi

# --- a first start on a full disk -----------------------------------------------------
mkdir -p "$TMP/disk"
if mount -t tmpfs -o size=1m tmpfs "$TMP/disk" 2>/dev/null; then
  MOUNTED=$TMP/disk
  parts=$((parts + 1))
  cp "$FONT" "$TMP/disk/f.sfd"
  "$BIN" serve --bind 'tcp://127.0.0.1:*' "$TMP/disk/f.sfd" >"$TMP/disk.out" 2>"$TMP/disk.err" </dev/null &
  pid=$!
  if wait_line "$TMP/disk.out" "$pid"; then
    fail "serve started on a disk too small for its store"
    kill -TERM "$pid"
  fi
  wait "$pid"
  st=$?
  check "full disk at the first start: exit status 1 (got $st)" [ "$st" -eq 1 ]
  check "full disk at the first start: says it did not start and left the file" \
    grep -q "cannot start: .*f.sfd was not changed" "$TMP/disk.err"
  check "full disk at the first start: no sanitizer report" no_sanitizer "$TMP/disk.err"
  check "full disk at the first start: f.sfd unchanged" cmp -s "$TMP/disk/f.sfd" "$FONT"
  # room again: the store is completed from the file
  mount -o remount,size=64m "$TMP/disk"
  round "after a full disk at the first start" "$TMP/disk"
  umount "$TMP/disk" && MOUNTED=
else
  echo "skipped: a first start on a full disk (mounting a tmpfs is not permitted here)"
fi

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ] || exit 1
[ "$parts" -gt 1 ] || exit 77
exit 0
