#!/bin/sh
# `ensemble diff` and `ensemble diff --visual` on two versions of an
# animation end to end: corpus animations edited by Python (a keyframe's
# value, a layer's colour), the change list naming layer, property and
# keyframe time, the strip as PNG and HTML read back by Pillow (the new
# frame differs from the old one at the edited frame and is equal at the
# first), identical versions (every corpus animation with itself: no
# differing pixel), and the errors (an SVG beside an animation, broken
# JSON, an SVG output, a version past the time limit). CTest runs it as `visdiff_anim.sh
# /path/to/build/ensemble`; without the corpus or Pillow it skips (77).
set -u

BIN=${1:?usage: visdiff_anim.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CORPUS=${ENSEMBLE_CORPUS:-$SRC/../shared/corpus}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/visdiff_anim.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
. "$HERE/checks.sh"

DOCS=$CORPUS/lottie/docs
BALL=$DOCS/docs_static_examples_bouncy_ball.json
PARENT=$DOCS/docs_static_examples_parenting.json
if [ ! -f "$BALL" ] || [ ! -f "$PARENT" ]; then
  echo "skipped: no Lottie corpus at $DOCS"
  exit 77
fi
if ! "$PY" -c 'import PIL' 2>/dev/null; then
  echo "skipped: no Pillow ($PY -c 'import PIL')"
  exit 77
fi

# run NAME STATUS COMMAND...: output in $TMP/out, $TMP/err
run() {
  name=$1
  want=$2
  shift 2
  timeout 120 "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  check "$name" "$rc" "$want"
  if grep -q -e 'Sanitizer' -e 'runtime error:' "$TMP/err"; then fail "$name: sanitizer report"; fi
  [ "$rc" -eq "$want" ] || sed 's/^/    | /' "$TMP/out" "$TMP/err" | head -n 10 >&2
  [ "$rc" -eq "$want" ]
}
has() { # has NAME FILE TEXT: FILE holds the line TEXT exactly
  checks=$((checks + 1))
  grep -qxF -e "$3" "$2" || { fail "$1: no line '$3'"; sed 's/^/    | /' "$2" | head -n 10 >&2; }
}

# The pairs, edited through Python's json module (re-indented: the diff
# compares values, not text):
# ball: the keyframe at 60 (where the ball lands) moved from (265, 441) to
#   (265, 300), and nothing else;
# parent: the null layer "Parent" (which two layers follow) given another
#   position at its keyframe 90, and the layer "Rectangle" another fill.
"$PY" - "$BALL" "$PARENT" "$TMP" <<'PYEOF'
import json, sys
ball = json.load(open(sys.argv[1]))
tr = ball["layers"][0]["shapes"][0]["it"][2]
assert tr["ty"] == "tr" and tr["p"]["k"][1]["t"] == 60 and tr["p"]["k"][1]["s"] == [265, 441]
tr["p"]["k"][1]["s"] = [265, 300]
json.dump(ball, open(sys.argv[3] + "/ball-new.json", "w"), indent=1)
par = json.load(open(sys.argv[2]))
p = par["layers"][0]
assert p["nm"] == "Parent" and p["ks"]["p"]["k"][1]["t"] == 90
p["ks"]["p"]["k"][1]["s"] = [300, 150]
rect = [l for l in par["layers"] if l["nm"] == "Rectangle"][0]
fill = [s for s in rect["shapes"][0]["it"] if s["ty"] == "fl"][0]
fill["c"]["k"] = [0.9, 0.1, 0.1]
json.dump(par, open(sys.argv[3] + "/parent-new.json", "w"))
PYEOF
[ -f "$TMP/parent-new.json" ] || { fail "Python could not edit the corpus files"; checks_end visdiff_anim; exit 1; }

# the text diff: one line per change, by layer and keyframe
run "diff ball" 1 "$BIN" diff "$BALL" "$TMP/ball-new.json"
has "diff ball" "$TMP/out" 'layer 0 "Layer": shape "Ellipse Group"/transform position keyframe t=60: s [265,441] → [265,300]'
checks=$((checks + 1))
[ "$(wc -l <"$TMP/out")" -eq 1 ] || fail "diff ball: more than the one change: $(cat "$TMP/out")"
run "diff parent" 1 "$BIN" diff "$PARENT" "$TMP/parent-new.json"
checks=$((checks + 1))
grep -q '^layer 0 "Parent": transform position keyframe t=90: s \[354.0059701492536,256.8597014925372\] → \[300,150\]$' \
  "$TMP/out" || fail "diff parent: no keyframe line: $(cat "$TMP/out")"
has "diff parent" "$TMP/out" 'layer 2 "Rectangle": shape "Rectangle"/"Fill" colour: [0.19607843137254902,0.3137254901960784,0.6901960784313725] → [0.9,0.1,0.1]'
run "diff same" 0 "$BIN" diff "$PARENT" "$PARENT"
checks=$((checks + 1))
[ ! -s "$TMP/out" ] || fail "diff of a file with itself wrote: $(cat "$TMP/out")"

# the strip as PNG: frames 0, 60, 119; the ball's column 60 differs, 0 not
run "visual ball png" 0 "$BIN" diff --visual "$BALL" "$TMP/ball-new.json" -o "$TMP/ball.png"
checks=$((checks + 1))
grep -q '^.*ball.png: 1 change; frames 0 (0 pixels differ), 60 ([1-9][0-9]* pixels differ), 119 ([0-9]* pixels differ)$' \
  "$TMP/err" || fail "visual ball: $(cat "$TMP/err")"
# parent: the keyframe's frame 90 between the first and last (the fill,
# which shows everywhere, is the layer's in and out points: those)
run "visual parent html" 0 "$BIN" diff --visual "$PARENT" "$TMP/parent-new.json" -o "$TMP/parent.html" --timeout 60
run "visual parent png" 0 "$BIN" visdiff "$PARENT" "$TMP/parent-new.json" -o "$TMP/parent.png" -q
checks=$((checks + 1))
[ ! -s "$TMP/err" ] || fail "visdiff -q wrote: $(cat "$TMP/err")"
run "visual same html" 0 "$BIN" diff --visual "$PARENT" "$PARENT" -o "$TMP/same.html"
run "visual same png" 0 "$BIN" diff --visual "$BALL" "$BALL" -o "$TMP/same.png"

# Pillow reads them back: the strip's cells by the layout docs/lottie.md
# gives (margin 8, row labels 40, frame numbers 16, cells 1-pixel framed
# and 6 apart), the page's images in its table
"$PY" - "$TMP" >"$TMP/py" 2>&1 <<'PYEOF'
import base64, io, re, sys
from PIL import Image
d = sys.argv[1]

def cells(path, frames, side):
    im = Image.open(path).convert("RGB")
    n = len(frames)
    w = 8 + 40 + n * (side + 2) + (n - 1) * 6 + 8
    h = 8 + 16 + 3 * (side + 2) + 2 * 6 + 8
    assert im.size == (w, h), (path, im.size, (w, h))
    out = []
    for i in range(n):
        x = 8 + 40 + i * (side + 2 + 6) + 1
        rows = []
        for r in range(3):
            y = 8 + 16 + r * (side + 2 + 6) + 1
            rows.append(im.crop((x, y, x + side, y + side)))
        out.append(rows)
    return out

def differ(a, b):
    return sum(1 for p, q in zip(a.getdata(), b.getdata()) if p != q)

VERM = (0xd5, 0x5e, 0x00)
ball = cells(d + "/ball.png", [0, 60, 119], 240)
assert differ(ball[0][0], ball[0][1]) == 0, "ball frame 0 differs"
assert VERM not in set(ball[0][2].getdata()), "ball frame 0 marked"
assert differ(ball[1][0], ball[1][1]) > 1000, "ball frame 60 the same"
assert VERM in set(ball[1][2].getdata()), "ball frame 60 not marked"
# the ball lands higher: its lowest row at frame 60 is above the old one's
# (the box round what differs, drawn on the new row, left out)
def lowest(im):
    return max(y for y in range(240) for x in range(0, 240, 2) if im.getpixel((x, y)) not in ((255, 255, 255), VERM))
lo_old, lo_new = lowest(ball[1][0]), lowest(ball[1][1])
assert lo_new < lo_old - 30, (lo_old, lo_new)
same = cells(d + "/same.png", [0, 17, 34, 51, 68, 85, 102, 119], 240)
for i, (o, n, m) in enumerate(same):
    assert differ(o, n) == 0, "same: column %d differs" % i
    assert VERM not in set(m.getdata()), "same: column %d marked" % i

page = open(d + "/parent.html", encoding="utf-8").read()
assert "http://" not in page and "https://" not in page
heads = re.findall(r"<th>frame (\d+)</th>", page)
assert heads == ["0", "90", "179"], heads
imgs = re.findall(r'<img alt="(old|new|difference), frame (\d+)"[^>]*src="data:image/png;base64,([^"]+)"', page)
assert len(imgs) == 9, len(imgs)
px = {(k, int(f)): Image.open(io.BytesIO(base64.b64decode(b))).convert("RGBA") for k, f, b in imgs}
for f in map(int, heads):
    # the rectangle's fill changed: every frame differs
    assert differ(px[("old", f)], px[("new", f)]) > 0, "parent frame %d the same" % f
# the parent's keyframe moved its children: at 90 far more differs than at 0
d0, d90 = differ(px[("old", 0)], px[("new", 0)]), differ(px[("old", 90)], px[("new", 90)])
assert d90 > d0 * 1.5, (d0, d90)
assert 'layer 0 &quot;Parent&quot;' in page or 'layer 0 "Parent"' in page
assert "transform position keyframe t=90: s [354.0059701492536,256.8597014925372] → [300,150]" in page
same = open(d + "/same.html", encoding="utf-8").read()
assert "No changes." in same and "pixels differ" not in same and same.count("the same</td>") == 8
print("strips ok: ball lowest row at 60 %d -> %d; parent differing pixels at 0: %d, at 90: %d" % (lo_old, lo_new, d0, d90))
PYEOF
checks=$((checks + 1))
grep -q "^strips ok" "$TMP/py" || { fail "Pillow's reading of the strips"; sed 's/^/    | /' "$TMP/py" >&2; }
cat "$TMP/py"

# a keyframe inside a precomposition: its frame is the precomposition's
# time plus the start time of the layer that shows it (20 + 10)
STAR=$DOCS/docs_static_examples_precomp_star-comp.json
if [ -f "$STAR" ]; then
  "$PY" - "$STAR" "$TMP" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["layers"][0]["refId"] == d["assets"][0]["id"] == "Star"
d["layers"][0]["st"] = 10
l = d["assets"][0]["layers"][0]
ease = {"o": {"x": [0], "y": [0]}, "i": {"x": [1], "y": [1]}}
l["ks"]["o"] = {"a": 1, "k": [dict(t=0, s=[100], **ease), dict(t=20, s=[100], **ease), {"t": 40, "s": [100]}]}
json.dump(d, open(sys.argv[2] + "/pre-old.json", "w"))
l["ks"]["o"]["k"][1]["s"] = [0]
json.dump(d, open(sys.argv[2] + "/pre-new.json", "w"))
PYEOF
  run "precomposition text" 1 "$BIN" diff "$TMP/pre-old.json" "$TMP/pre-new.json"
  has "precomposition text" "$TMP/out" 'precomposition "Star" layer 0 "Shape Layer": transform opacity keyframe t=20: s [100] → [0]'
  run "precomposition strip" 0 "$BIN" diff --visual "$TMP/pre-old.json" "$TMP/pre-new.json" -o "$TMP/pre.png"
  checks=$((checks + 1))
  grep -q 'pre.png: 1 change; frames 0 (0 pixels differ), 30 ([1-9][0-9]* pixels differ), 59 (0 pixels differ)$' \
    "$TMP/err" || fail "precomposition strip: $(cat "$TMP/err")"
fi

# no false highlights: every corpus animation with itself renders its
# strip with no differing pixel in any frame
n=0
for f in $(find "$CORPUS/lottie" -name '*.json' | sort); do
  n=$((n + 1))
  timeout 120 "$BIN" diff --visual "$f" "$f" -o "$TMP/self.png" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  checks=$((checks + 1))
  if [ $rc -ne 0 ] || ! grep -q '^.*self.png: 0 changes; frames ' "$TMP/err" ||
    grep -q '([1-9][0-9]* pixels differ)' "$TMP/err"; then
    fail "$f with itself: status $rc: $(tail -n 1 "$TMP/err")"
  fi
done
echo "$n corpus animations with themselves: no differing pixel"

# errors: two kinds, broken JSON, an SVG output, a bad timeout; nothing written
printf '<svg xmlns="http://www.w3.org/2000/svg"/>\n' >"$TMP/d.svg"
run "svg and animation" 1 "$BIN" diff --visual "$TMP/d.svg" "$BALL" -o "$TMP/x.png"
checks=$((checks + 1))
grep -q 'd.svg is a drawing and .*bouncy_ball.json an animation: compare two versions of one kind of file' "$TMP/err" ||
  fail "svg and animation: $(cat "$TMP/err")"
run "svg and animation, text" 2 "$BIN" diff "$TMP/d.svg" "$BALL"
printf '{"v":"5.7.0","fr":10,"ip":0,"op":10,"layers":[}\n' >"$TMP/broken.json"
run "broken json" 1 "$BIN" diff --visual "$BALL" "$TMP/broken.json" -o "$TMP/x.png"
checks=$((checks + 1))
grep -q 'broken.json: line 1, column 47' "$TMP/err" || fail "broken json: $(cat "$TMP/err")"
run "svg output" 2 "$BIN" diff --visual "$BALL" "$TMP/ball-new.json" -o "$TMP/x.svg"
checks=$((checks + 1))
grep -q "an animation's visual diff is a strip of rendered frames: write it as .png or .html" "$TMP/err" ||
  fail "svg output: $(cat "$TMP/err")"
run "bad timeout" 2 "$BIN" diff --visual "$BALL" "$BALL" -o "$TMP/x.png" --timeout 0
# a version rlottie takes too long on (a million copies of the ball): the
# time limit, said with the version; nothing written
"$PY" - "$BALL" "$TMP/slow.json" <<'PYEOF'
import json, sys
b = json.load(open(sys.argv[1]))
it = b["layers"][0]["shapes"][0]["it"]
z = {"a": 0, "k": [0, 0]}
it.insert(len(it) - 1, {"ty": "rp", "nm": "rep", "c": {"a": 0, "k": 1000000}, "o": {"a": 0, "k": 0}, "m": 1,
                        "tr": {"ty": "tr", "p": {"a": 0, "k": [0.001, 0]}, "a": z, "s": {"a": 0, "k": [100, 100]},
                               "r": {"a": 0, "k": 0}, "so": {"a": 0, "k": 100}, "eo": {"a": 0, "k": 100}}})
json.dump(b, open(sys.argv[2], "w"))
PYEOF
run "time limit" 1 "$BIN" diff --visual "$BALL" "$TMP/slow.json" -o "$TMP/x.png" --timeout 1
checks=$((checks + 1))
grep -q 'x.png: the new version: loading the animation took longer than 1000 ms' "$TMP/err" ||
  fail "time limit: $(cat "$TMP/err")"
checks=$((checks + 1))
[ ! -e "$TMP/x.png" ] && [ ! -e "$TMP/x.svg" ] || fail "a failed visual diff wrote its output"

checks_end visdiff_anim
