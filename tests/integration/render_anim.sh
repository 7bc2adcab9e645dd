#!/bin/sh
# `ensemble render` on Lottie animations end to end: one frame, a range into
# a directory, an animated PNG read back by Pillow frame by frame against
# the single frames, a .tgs, errors and exit statuses, nothing written on
# failure, and the progress bar only on a terminal. CTest runs it as
# `render_anim.sh /path/to/build/ensemble`; without Pillow the APNG checks
# are skipped (exit 77 if nothing else could run).
set -u

BIN=${1:?usage: render_anim.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CORPUS=${ENSEMBLE_CORPUS:-$SRC/../shared/corpus}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/render_anim.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
. "$HERE/checks.sh"

# run NAME STATUS COMMAND...: output in $TMP/out, $TMP/err
run() {
  name=$1
  want=$2
  shift 2
  timeout 120 "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  check "$name" "$rc" "$want"
  if grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/err"; then fail "$name: sanitizer report"; fi
  [ "$rc" -eq "$want" ] || sed 's/^/    | /' "$TMP/err" | head -n 10 >&2
  [ "$rc" -eq "$want" ]
}
has_err() {
  checks=$((checks + 1))
  grep -q -e "$2" "$TMP/err" || fail "$1: stderr lacks '$2'"
}
is_png() {
  checks=$((checks + 1))
  [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$1 is not a PNG"
}

# A blue 20 x 20 square keyframed from (20, 50) at frame 0 to (80, 50) at
# frame 10 over a red solid layer, 100 x 100 at 10 fps.
A=$TMP/square.json
cat >"$A" <<'JSON'
{"v":"5.7.0","nm":"square","fr":10,"ip":0,"op":11,"w":100,"h":100,"layers":[
 {"ty":4,"ind":2,"nm":"square","ip":0,"op":11,"st":0,"ks":{"a":{"a":0,"k":[0,0]},
  "p":{"a":1,"k":[{"t":0,"s":[20,50],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":10,"s":[80,50]}]},
  "s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}},
  "shapes":[{"ty":"rc","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[20,20]},"r":{"a":0,"k":0}},
            {"ty":"fl","c":{"a":0,"k":[0,0,1,1]},"o":{"a":0,"k":100},"r":1}]},
 {"ty":1,"ind":1,"nm":"background","ip":0,"op":11,"st":0,"sc":"#ff0000","sw":100,"sh":100,
  "ks":{"a":{"a":0,"k":[0,0]},"p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}}}]}
JSON

run "help" 0 "$BIN" render --help && grep -q -e "--frames A..B" "$TMP/out" || fail "help lacks --frames"

# one frame; the first by default
run "frame 10" 0 "$BIN" render "$A" --frame 10 -o "$TMP/f10.png" && has_err "frame 10" "frame 10, 100 x 100 pixels"
is_png "$TMP/f10.png"
run "first frame" 0 "$BIN" render "$A" -o "$TMP/first.png" && has_err "first frame" "frame 0,"
run "half size" 0 "$BIN" render "$A" --frame 5 --width 50 -o "$TMP/half.png" && has_err "half size" "50 x 50"

# a range into a directory, made when absent, names with the frame number
run "frames 2..4" 0 "$BIN" render "$A" --frames 2..4 -o "$TMP/dir" && has_err "frames 2..4" "3 frames (2..4)"
for f in 0002 0003 0004; do is_png "$TMP/dir/square-$f.png"; done
checks=$((checks + 1))
[ "$(ls "$TMP/dir" | wc -l)" -eq 3 ] || fail "frames 2..4 wrote $(ls "$TMP/dir" | wc -l) files"
run "frames 8.." 0 "$BIN" render "$A" --frames 8.. -o "$TMP/dir" && has_err "frames 8.." "3 frames (8..10)"
checks=$((checks + 1))
cmp -s "$TMP/dir/square-0010.png" "$TMP/f10.png" || fail "frame 10 of a range differs from frame 10 alone"

# the animated PNG: every frame, at 10 fps
run "animate" 0 "$BIN" render "$A" --animate -o "$TMP/anim.png" && has_err "animate" "11 frames (0..10) at 10 fps"
is_png "$TMP/anim.png"
run "animate part" 0 "$BIN" render "$A" --animate --frames 3..5 -o "$TMP/part.png"

# errors: nothing written, statuses as docs/cli.md says
run "frame past the end" 1 "$BIN" render "$A" --frame 11 -o "$TMP/no.png" && has_err "frame past the end" "outside the animation's 0..10"
run "backwards range" 1 "$BIN" render "$A" --frames 5..2 -o "$TMP/no" && has_err "backwards range" "the first is after the last"
run "frame and frames" 2 "$BIN" render "$A" --frame 1 --frames 1..2 -o "$TMP/no.png"
run "bad range" 2 "$BIN" render "$A" --frames 3-4 -o "$TMP/no"
run "animate one frame" 2 "$BIN" render "$A" --animate --frame 3 -o "$TMP/no.png"
printf '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>' >"$TMP/d.svg"
run "frames of a drawing" 2 "$BIN" render "$TMP/d.svg" --frame 1 -o "$TMP/no.png" && has_err "frames of a drawing" "not a Lottie animation"
printf '{"v":"5.7.0","fr":10,"ip":0,"op":11,"w":100,"h":100,"layers":[{"ty":4,"ks":' >"$TMP/cut.json"
run "cut short" 1 "$BIN" render "$TMP/cut.json" -o "$TMP/no.png"
sed 's/"w":100,"h":100/"w":9000000,"h":9000000/' "$A" >"$TMP/huge.json"
run "huge" 1 "$BIN" render "$TMP/huge.json" -o "$TMP/no.png" && has_err "huge" "beyond the render limit"
checks=$((checks + 1))
[ ! -e "$TMP/no.png" ] && [ ! -e "$TMP/no" ] || fail "a failed render wrote a file"

# a .tgs: the same animation gzipped
gzip -c "$A" >"$TMP/square.tgs"
run "tgs" 0 "$BIN" render "$TMP/square.tgs" --frame 10 -o "$TMP/tgs10.png"
checks=$((checks + 1))
cmp -s "$TMP/tgs10.png" "$TMP/f10.png" || fail "the .tgs's frame 10 differs from the JSON's"

# the progress bar: on a terminal (script(1) gives one), never in a pipe
run "animate in a pipe" 0 "$BIN" render "$A" --animate --width 4096 --frames 0..5 -o "$TMP/big.png"
checks=$((checks + 1))
! grep -q '6/6 frames' "$TMP/err" || fail "a progress bar went to a pipe"
rm -f "$TMP/big.png"
if command -v script >/dev/null 2>&1; then
  # six frames at 4096 x 4096 take seconds: past the half second the bar waits
  timeout 300 script -qec "'$BIN' render '$A' --animate --width 4096 --frames 0..5 -o '$TMP/big.png'" /dev/null \
    >"$TMP/tty" 2>&1
  check "animate on a terminal" $? 0
  checks=$((checks + 1))
  grep -q '\] 6/6 frames' "$TMP/tty" || { fail "no progress bar on a terminal"; od -c "$TMP/tty" | tail -5 >&2; }
  rm -f "$TMP/big.png"
else
  echo "note: no script(1): the progress bar on a terminal is not checked"
fi

# Pillow reads the APNG back: 11 frames of 100 ms, each the frame rendered alone
if "$PY" -c 'import PIL' 2>/dev/null; then
  run "frames 0..10" 0 "$BIN" render "$A" --frames 0..10 -o "$TMP/all"
  "$PY" - "$TMP" <<'PY' >"$TMP/out" 2>&1
import sys
from PIL import Image
d = sys.argv[1]
anim = Image.open(d + "/anim.png")
assert anim.is_animated and anim.n_frames == 11, anim.n_frames
assert round(anim.info["duration"]) == 100, anim.info
for i in range(11):
    anim.seek(i)
    got = anim.convert("RGBA")
    want = Image.open("%s/all/square-%04d.png" % (d, i)).convert("RGBA")
    assert got.size == (100, 100)
    assert list(got.getdata()) == list(want.getdata()), "frame %d differs" % i
anim.seek(0)
f0 = anim.convert("RGBA")
assert f0.getpixel((20, 50)) == (0, 0, 255, 255) and f0.getpixel((80, 50)) == (255, 0, 0, 255)
anim.seek(10)
f10 = anim.convert("RGBA")
assert f10.getpixel((80, 50)) == (0, 0, 255, 255) and f10.getpixel((20, 50)) == (255, 0, 0, 255)
part = Image.open(d + "/part.png")
assert part.n_frames == 3
half = Image.open(d + "/half.png").convert("RGBA")
assert half.size == (50, 50) and half.getpixel((25, 25)) == (0, 0, 255, 255)
print("apng ok")
PY
  checks=$((checks + 1))
  grep -q "apng ok" "$TMP/out" || { fail "Pillow's reading of the APNG"; sed 's/^/    | /' "$TMP/out" >&2; }
else
  echo "note: no Pillow ($PY -c 'import PIL'): the APNG is not read back"
fi

# a corpus animation when there is one: all its frames as an APNG
BALL=$CORPUS/lottie/docs/docs_static_examples_bouncy_ball.json
if [ -f "$BALL" ]; then
  run "bouncy ball" 0 "$BIN" render "$BALL" --animate -o "$TMP/ball.png" && has_err "bouncy ball" "120 frames (0..119)"
fi

checks_end render_anim
