#!/bin/sh
# `cmake --install` into a scratch prefix, moved after installing: the
# installed `ensemble serve --http` finds the web client's files (the page,
# the compiled client, the animation player) from its own location and
# serves them. Usage: install_web.sh BUILD_DIR. 77: skipped.
set -u
BUILD=${1:?usage: install_web.sh BUILD_DIR}
[ -e "$BUILD/web/ensemble.wasm" ] || { echo "skipped: the build has no web client (no emcc)"; exit 77; }
command -v curl >/dev/null 2>&1 || { echo "skipped: no curl"; exit 77; }
TMP=$(mktemp -d)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$TMP/serve.log" ] && sed 's/^/  serve: /' "$TMP/serve.log"; exit 1; }

cmake --install "$BUILD" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1 || { cat "$TMP/install.log"; fail "cmake --install"; }
mv "$TMP/prefix" "$TMP/moved" # found from the program's place, not from the configured prefix
BIN=$TMP/moved/bin/ensemble
[ -x "$BIN" ] || fail "no bin/ensemble installed"
for f in include/ensemble.h share/ensemble/web/index.html share/ensemble/web/ensemble.wasm; do
  [ -e "$TMP/moved/$f" ] || fail "$f not installed"
done
echo "ok: installed bin/ensemble, the headers and share/ensemble/web"

printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect id="r" width="4" height="4"/></svg>\n' >"$TMP/d.svg"
timeout 60 "$BIN" serve --bind 'tcp://127.0.0.1:*' --http 127.0.0.1:0 "$TMP/d.svg" >"$TMP/serve.out" 2>"$TMP/serve.log" &
PID=$!
URL=""
for _ in $(seq 1 100); do
  URL=$(sed -n 's/^web \(http[^ ]*\).*/\1/p' "$TMP/serve.out")
  [ -n "$URL" ] && break
  sleep 0.1
done
[ -n "$URL" ] || fail "serve printed no web address"
for path in "" ensemble.wasm app/main.js; do
  got=$(curl -s -o "$TMP/got" -w '%{http_code}' "$URL$path")
  [ "$got" = 200 ] || fail "GET /$path: $got"
done
grep -q 'app/main.js' "$TMP/moved/share/ensemble/web/index.html" || fail "index.html"
echo "ok: the moved install serves the page, the client and the views at $URL"
# the animation player is built only when its npm package is there (cmake/web.cmake)
if [ -e "$BUILD/web/vendor/lottie_light.min.js" ]; then
  got=$(curl -s -o "$TMP/got" -w '%{http_code}' "${URL}vendor/lottie_light.min.js")
  [ "$got" = 200 ] || fail "GET /vendor/lottie_light.min.js: $got"
  cmp -s "$TMP/got" "$BUILD/web/vendor/lottie_light.min.js" || fail "the player served is not the one built"
  echo "ok: and the animation player"
else
  echo "the build has no animation player (npm ci in vendor/web): not checked"
fi
