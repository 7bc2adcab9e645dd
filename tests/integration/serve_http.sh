#!/bin/sh
# `ensemble invite` and `ensemble serve --http` from the command line: the
# invites file (mode 0600, hashes only), --list and --revoke, exit codes;
# serve's web address, the web client's files, /status with and without a
# token, the refusal of a public address without invites, and no token in
# anything serve prints; demo --http. (Browsers joining are
# tests/integration/test_ws.c.)
# CTest runs it as `serve_http.sh /path/to/build/ensemble`.
set -u

BIN=${1:?usage: serve_http.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
DRAWING=$SRC/tests/resources/drawings/mdi/abacus.svg
WAIT=${ENS_SERVE_WAIT:-60}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/serve_http.XXXXXX") || exit 1
PID=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

checks=0
failures=0
fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}
# run DESC STATUS CMD...: CMD's stdout in $TMP/out, stderr in $TMP/err
run() {
  checks=$((checks + 1))
  desc=$1
  want=$2
  shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$desc: exit $got, wanted $want"
    sed 's/^/    | /' "$TMP/err" | head -n 8 >&2
    return 1
  fi
  return 0
}
has() { grep -q -F -- "$3" "$TMP/$2" || fail "$1: no '$3' in $2"; }
# get PATH: HTTP status of GET PATH on the server, body in $TMP/body
get() {
  curl -s --path-as-is -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$PORT$1"
}

# wait_for PATTERN FILE: until the process $PID writes a line matching
# PATTERN to FILE, exits, or WAIT seconds pass
wait_for() {
  local deadline=$(($(date +%s) + WAIT))
  while ! grep -q "$1" "$2" 2>/dev/null; do
    kill -0 "$PID" 2>/dev/null || break
    [ "$(date +%s)" -ge "$deadline" ] && break
    sleep 0.05
  done
}

command -v curl >/dev/null 2>&1 || { echo "skipped: no curl"; exit 77; }

# --- invite
run "invite without a file" 2 "$BIN" invite alice && has "invite without a file" err "--keys DIR or --invites FILE"
run "invite --list with a name" 2 "$BIN" invite --list --invites "$TMP/inv" alice
run "invite" 0 "$BIN" invite --invites "$TMP/inv" --http 127.0.0.1:8080 "Alice Liddell"
token=$(sed -n 's/^token //p' "$TMP/out")
[ "$(printf %s "$token" | wc -c)" -eq 43 ] || fail "invite printed '$token', not a 43-character token"
printf %s "$token" | grep -q '^[A-Za-z0-9_-]*$' || fail "the token is not URL-safe: $token"
has "invite's link" out "link http://127.0.0.1:8080/#token=$token"
[ "$(stat -c %a "$TMP/inv")" = 600 ] || fail "the invites file is not mode 600"
grep -q -F "$token" "$TMP/inv" && fail "the invites file holds the token itself"
grep -q " Alice Liddell\$" "$TMP/inv" || fail "the invites file does not name Alice Liddell"
run "invite the same name again" 1 "$BIN" invite --invites "$TMP/inv" "Alice Liddell" &&
  has "invite the same name again" err "already invited"
run "invite bob" 0 "$BIN" invite -i "$TMP/inv" bob
bob=$(sed -n 's/^token //p' "$TMP/out")
has "invite without --http" out "link http://HOST:PORT/#token=$bob"
run "invite --list" 0 "$BIN" invite --list -i "$TMP/inv"
[ "$(cat "$TMP/out")" = "Alice Liddell
bob" ] || fail "invite --list printed '$(cat "$TMP/out")'"
run "invite --revoke" 0 "$BIN" invite --revoke -i "$TMP/inv" bob
run "invite --revoke again" 1 "$BIN" invite --revoke -i "$TMP/inv" bob && has "revoke again" err "not invited"
run "invite --list after revoke" 0 "$BIN" invite --list -i "$TMP/inv"
[ "$(cat "$TMP/out")" = "Alice Liddell" ] || fail "after revoke, --list printed '$(cat "$TMP/out")'"
mkdir "$TMP/keys"
run "invite --keys" 0 "$BIN" invite --keys "$TMP/keys" carol
[ -f "$TMP/keys/invites" ] || fail "invite --keys DIR did not write DIR/invites"
printf 'not a hash line\n' >"$TMP/broken"
run "invite on a broken file" 1 "$BIN" invite -i "$TMP/broken" dave && has "broken file" err "broken:1:"

# --- serve --http: refusals
cp "$DRAWING" "$TMP/d.svg"
run "serve --http public without invites" 2 "$BIN" serve --bind tcp://127.0.0.1:0 --http 0.0.0.0:0 "$TMP/d.svg" &&
  has "public without invites" err "without invites --http binds only to this machine"
run "serve --cert without --key" 2 "$BIN" serve --http 127.0.0.1:0 --cert "$TMP/x" "$TMP/d.svg"
run "serve --web-root without --http" 2 "$BIN" serve --web-root "$TMP" "$TMP/d.svg"
run "serve --http with a bad address" 2 "$BIN" serve --bind tcp://127.0.0.1:0 --http nonsense "$TMP/d.svg" &&
  has "bad address" err "ADDR:PORT"
cmp -s "$DRAWING" "$TMP/d.svg" || fail "a refused serve changed the drawing"
# with invites a public address is allowed, with a warning without TLS (the
# address is one this machine cannot bind: the start fails after the warning)
run "serve --http public with invites, no TLS" 1 "$BIN" serve --bind tcp://127.0.0.1:0 --http 192.0.2.1:0 \
  --invites "$TMP/inv" "$TMP/d.svg" &&
  has "public without TLS" err "warning: --http 192.0.2.1:0 without --cert" &&
  has "public without TLS" err "cannot serve HTTP"
cmp -s "$DRAWING" "$TMP/d.svg" || fail "a failed serve changed the drawing"

# --- serve --http with invites
mkdir -p "$TMP/web/app"
printf '<!doctype html><title>t</title>\n' >"$TMP/web/index.html"
printf 'export {};\n' >"$TMP/web/app/x.mjs"
printf 'secret\n' >"$TMP/outside.txt"
"$BIN" serve --bind tcp://127.0.0.1:0 --http 127.0.0.1:0 --web-root "$TMP/web" --invites "$TMP/inv" "$TMP/d.svg" \
  >"$TMP/serve.out" 2>"$TMP/serve.err" &
PID=$!
wait_for '^web ' "$TMP/serve.out"
PORT=$(sed -n 's|^web http://127.0.0.1:\([0-9]*\)/$|\1|p' "$TMP/serve.out")
checks=$((checks + 1))
if [ -z "$PORT" ]; then
  fail "serve --http printed no web address"
  sed 's/^/    | /' "$TMP/serve.out" "$TMP/serve.err" >&2
else
  [ "$(get /)" = 200 ] && grep -q 'doctype' "$TMP/body" || fail "GET / is not index.html"
  [ "$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$PORT/app/x.mjs")" = "text/javascript; charset=utf-8" ] ||
    fail "a .mjs file is not served as JavaScript"
  [ "$(get /../outside.txt)" = 404 ] || fail "GET /../outside.txt is not 404"
  [ "$(get /%2e%2e/outside.txt)" = 404 ] || fail "GET /%2e%2e/outside.txt is not 404"
  grep -q secret "$TMP/body" && fail "a file outside the web root was served"
  [ "$(get /nothing.js)" = 404 ] || fail "a missing file is not 404"
  [ "$(get /status)" = 403 ] || fail "/status without a token is not 403"
  [ "$(get "/status?token=$bob")" = 403 ] || fail "/status with a revoked token is not 403"
  [ "$(get "/status?token=$token")" = 200 ] || fail "/status with a token is not 200"
  grep -q '^{"head":0,"hash":"[0-9a-f]\{16\}","kind":"svg","clients":0}$' "$TMP/body" ||
    fail "/status said: $(cat "$TMP/body")"
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "http://127.0.0.1:$PORT/status?token=$token")" = 200 ] ||
    fail "with invites, /status with a token answers any Host"
fi
kill "$PID" 2>/dev/null
wait "$PID"
st=$?
PID=
checks=$((checks + 1))
[ "$st" -eq 0 ] || fail "serve --http with invites exited $st on SIGTERM"
grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/serve.err" && fail "a sanitizer report from serve" &&
  sed 's/^/    | /' "$TMP/serve.err" | head -n 20 >&2
for f in serve.out serve.err; do
  grep -q -F "$token" "$TMP/$f" && fail "the token is in serve's $f"
  grep -q -F "$bob" "$TMP/$f" && fail "a revoked token is in serve's $f"
done
checks=$((checks + 1))

# --- with --keys DIR, the invites file is DIR/invites by default
if run "keygen" 0 "$BIN" keygen "$TMP/srv-keys" && run "keygen for a client" 0 "$BIN" keygen "$TMP/cli-keys"; then
  printf '%s alice\n' "$(cat "$TMP/cli-keys/ensemble.pub")" >"$TMP/authorized"
  run "invite --keys" 0 "$BIN" invite --keys "$TMP/srv-keys" dora
  dora=$(sed -n 's/^token //p' "$TMP/out")
  "$BIN" serve --bind tcp://127.0.0.1:0 --keys "$TMP/srv-keys" --authorized-keys "$TMP/authorized" \
    --http 127.0.0.1:0 --web-root "$TMP/web" "$TMP/d.svg" >"$TMP/serve.out" 2>"$TMP/serve.err" &
  PID=$!
  wait_for '^web ' "$TMP/serve.out"
  PORT=$(sed -n 's|^web http://127.0.0.1:\([0-9]*\)/$|\1|p' "$TMP/serve.out")
  checks=$((checks + 1))
  if [ -n "$PORT" ]; then
    [ "$(get /status)" = 403 ] || fail "with --keys DIR, DIR/invites is not used"
    [ "$(get "/status?token=$dora")" = 200 ] || fail "with --keys DIR, DIR/invites' token is refused"
  else
    fail "serve --keys --http printed no web address"
  fi
  kill "$PID" 2>/dev/null
  wait "$PID" 2>/dev/null
  PID=
fi

# --- without invites: loopback, and the Host must be this machine
"$BIN" serve --bind tcp://127.0.0.1:0 --http 127.0.0.1:0 --web-root "$TMP/web" "$TMP/d.svg" \
  >"$TMP/serve.out" 2>"$TMP/serve.err" &
PID=$!
wait_for '^web ' "$TMP/serve.out"
PORT=$(sed -n 's|^web http://127.0.0.1:\([0-9]*\)/$|\1|p' "$TMP/serve.out")
if [ -n "$PORT" ]; then
  [ "$(get /status)" = 200 ] || fail "without invites /status is not open on loopback"
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: rebound.example:80' "http://127.0.0.1:$PORT/status")" = 403 ] ||
    fail "without invites, a Host that is not this machine is answered"
else
  fail "serve --http without invites printed no web address"
fi
kill "$PID" 2>/dev/null
wait "$PID"
st=$?
PID=
[ "$st" -eq 0 ] || fail "serve --http without invites exited $st on SIGTERM"
grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/serve.err" && fail "a sanitizer report from serve"

# --- demo --http: the page's address, the live session behind it
"$BIN" demo --http 127.0.0.1:0 --seconds 3 --out "$TMP/demo-final.sfd" >"$TMP/demo.out" 2>"$TMP/demo.err" &
PID=$!
wait_for '^  watch ' "$TMP/demo.out"
PORT=$(sed -n 's|^  watch    http://127.0.0.1:\([0-9]*\)/ .*|\1|p' "$TMP/demo.out")
checks=$((checks + 1))
if [ -n "$PORT" ]; then
  [ "$(get /status)" = 200 ] && grep -q '"kind":"sfd","clients":[1-9]' "$TMP/body" ||
    fail "demo --http's /status: $(cat "$TMP/body")"
else
  fail "demo --http printed no address"
  sed 's/^/    | /' "$TMP/demo.out" "$TMP/demo.err" >&2
fi
wait "$PID"
st=$?
PID=
[ "$st" -eq 0 ] || fail "demo --http exited $st"

echo "serve_http: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
