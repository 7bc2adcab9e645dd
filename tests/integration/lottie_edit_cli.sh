#!/bin/sh
# Animation edits through the command line: `ensemble edit` on a .json
# and a .tgs, in the text form and in JSON lines, checked with Python's own
# reading of the output (the values the commands set, nothing else
# changed), the output drawn by `ensemble render`, and a failing command
# that writes nothing and names its line. CTest runs it as
# `lottie_edit_cli.sh /path/to/build/ensemble`.
set -u

BIN=${1:?usage: lottie_edit_cli.sh /path/to/ensemble}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lottie_edit_cli.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

checks=0
failures=0
fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}

# A blue square moving right over a red solid, a null layer, written as
# an exporter would (indented).
"$PY" - "$TMP/anim.json" <<'PYEOF'
import json, sys
def static(v): return {"a": 0, "k": v}
def ks(p): return {"a": static([0, 0]), "p": p, "s": static([100, 100]), "r": static(0), "o": static(100)}
anim = {"v": "5.7.0", "nm": "edit me", "fr": 10, "ip": 0, "op": 21, "w": 100, "h": 100, "layers": [
    {"ty": 4, "ind": 2, "nm": "Square Layer", "ip": 0, "op": 21, "st": 0,
     "ks": ks({"a": 1, "k": [{"t": 0, "s": [20, 50], "o": {"x": [0], "y": [0]}, "i": {"x": [1], "y": [1]}},
                             {"t": 10, "s": [80, 50]}]}),
     "shapes": [{"ty": "gr", "nm": "box", "it": [
         {"ty": "rc", "nm": "rect", "p": static([0, 0]), "s": static([20, 20]), "r": static(0)},
         {"ty": "fl", "nm": "paint", "c": static([0, 0, 1, 1]), "o": static(100), "r": 1},
         {"ty": "tr", "p": static([0, 0]), "a": static([0, 0]), "s": static([100, 100]), "r": static(0), "o": static(100)}]}]},
    {"ty": 3, "ind": 3, "nm": "mover", "ip": 0, "op": 21, "st": 0, "ks": ks(static([0, 30]))},
    {"ty": 1, "ind": 1, "nm": "background", "ip": 0, "op": 21, "st": 0, "sc": "#ff0000", "sw": 100, "sh": 100,
     "ks": ks(static([0, 0]))}]}
open(sys.argv[1], "w").write(json.dumps(anim, indent=4) + "\n")
PYEOF

# --- the text form, every command --------------------------------------------------------------
cat >"$TMP/script" <<'EOS'
# keyframes of the square's position
set-value "Square Layer.p" 5 [50, 90]
add-keyframe "Square Layer.position" 15 [80,80]
move-keyframe "Square Layer.p" 15 18
set-easing "Square Layer.p" 0 ease-in-out
set-easing "Square Layer.p" 5 0.2 0 0.8 1
delete-keyframe "Square Layer.p" 18
# its opacity keyframed from the in point
set-value "Square Layer.o" 20 0
set-colour "Square Layer/box/paint" #00ff00
set-colour background 0 0 0
rename "Square Layer/box" "the box"
reparent 2 mover
reorder mover 2
shift-layer background 2
set-in-out background 2 19
stretch-layer "Square Layer" 1.5
duplicate-layer [1]
shift-range 25 5
EOS
checks=$((checks + 1))
if "$BIN" edit "$TMP/anim.json" -o "$TMP/out.json" --commands "$TMP/script" 2>"$TMP/err"; then
  "$PY" - "$TMP/anim.json" "$TMP/out.json" <<'PYEOF' || fail "the text form's edits: see above"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
bad = []
def want(what, got, expect):
    if got != expect: bad.append("%s: %r, want %r" % (what, got, expect))
L = {l["nm"]: l for l in b["layers"]}
sq = L["Square Layer"]
kf = sq["ks"]["p"]["k"]
# stretched by 1.5 from its in point 0: times 0, 5, 10 became 0, 7.5, 15
want("position times", [k["t"] for k in kf], [0, 7.5, 15])
want("position values", [k["s"] for k in kf], [[20, 50], [50, 90], [80, 50]])
want("easing out of 0", (kf[0]["o"], kf[0]["i"]), ({"x": [0.42], "y": [0]}, {"x": [0.58], "y": [1]}))
want("easing out of 5", (kf[1]["o"], kf[1]["i"]), ({"x": [0.2], "y": [0]}, {"x": [0.8], "y": [1]}))
want("last keyframe has no easing", sorted(kf[2].keys()), ["s", "t"])
op = sq["ks"]["o"]
want("opacity animated", (op["a"], [(k["t"], k["s"]) for k in op["k"]]), (1, [(0, [100]), (35, [0])]))  # 20, stretched to 30, past 25 by 5
want("square out point", sq["op"], 31.5 + 5)
want("fill colour", sq["shapes"][0]["it"][1]["c"]["k"], [0, 1, 0, 1])
want("group renamed", sq["shapes"][0]["nm"], "the box")
want("parent", sq.get("parent"), 3)
want("order", [l["nm"] for l in b["layers"]], ["Square Layer", "background copy", "background", "mover"])
bg = L["background"]
want("solid colour", bg["sc"], "#000000")
want("background in/out", (bg["ip"], bg["op"], bg["st"]), (2, 19, 0))
cp = L["background copy"]
want("copy ind", cp["ind"], 4)
want("composition out point", b["op"], 21)  # before 25: stays
# what no command touched
want("untouched mover", L["mover"]["ks"], a["layers"][1]["ks"])
want("untouched meta", {k: b[k] for k in ("v", "nm", "fr", "ip", "w", "h")}, {k: a[k] for k in ("v", "nm", "fr", "ip", "w", "h")})
for m in bad: print("  " + m, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
else
  fail "edit with every command: $(cat "$TMP/err")"
fi

# only the edited lines differ: the untouched mover layer's lines are all there
checks=$((checks + 1))
"$PY" - "$TMP/anim.json" "$TMP/out.json" <<'PYEOF' || fail "an untouched layer's text changed"
import sys
a = open(sys.argv[1]).read(); b = open(sys.argv[2]).read()
start = a.index('"nm": "mover"'); end = a.index('"nm": "background"')
block = a[a.rindex("{", 0, start):a.rindex("}", 0, end) + 1]
sys.exit(0 if block in b else 1)
PYEOF

checks=$((checks + 1))
"$BIN" render "$TMP/out.json" --frame 7 -o "$TMP/f7.png" >/dev/null 2>"$TMP/err" || fail "render of the edited animation: $(cat "$TMP/err")"

# --- JSON lines, into a .tgs ------------------------------------------------------------------------
cat >"$TMP/script.jsonl" <<'EOS'
{"cmd":"set-value","prop":"Square Layer.p","t":10,"value":[70,20]}
{"cmd":"set-easing","prop":"Square Layer.p","t":0,"easing":"hold"}
{"cmd":"reparent","layer":"Square Layer","parent":"mover"}
{"cmd":"reparent","layer":"Square Layer","parent":null}
{"cmd":"set-colour","target":"Square Layer/box/paint","colour":[1,0.5,0]}
{"cmd":"shift-layer","layer":"mover","frames":-1}
EOS
checks=$((checks + 1))
if "$BIN" edit "$TMP/anim.json" -o "$TMP/out.tgs" --commands "$TMP/script.jsonl" 2>"$TMP/err"; then
  "$PY" - "$TMP/out.tgs" <<'PYEOF' || fail "the JSON lines' edits in the .tgs"
import gzip, json, sys
b = json.loads(gzip.open(sys.argv[1]).read())
sq = b["layers"][0]
ok = (sq["ks"]["p"]["k"][1]["s"] == [70, 20] and sq["ks"]["p"]["k"][0]["h"] == 1 and "parent" not in sq
      and sq["shapes"][0]["it"][1]["c"]["k"] == [1, 0.5, 0, 1] and (b["layers"][1]["ip"], b["layers"][1]["op"]) == (-1, 20))
sys.exit(0 if ok else 1)
PYEOF
else
  fail "edit with JSON lines into a .tgs: $(cat "$TMP/err")"
fi
checks=$((checks + 1))
echo 'rename [0] "from a tgs"' | "$BIN" edit "$TMP/out.tgs" -o "$TMP/again.tgs" 2>"$TMP/err" || fail "edit of a .tgs: $(cat "$TMP/err")"
"$PY" -c "import gzip, sys; sys.exit(0 if b'\"from a tgs\"' in gzip.open('$TMP/again.tgs').read() else 1)" ||
  fail "the .tgs edit is not in the file"

# --- failures write nothing and say where ---------------------------------------------------------
for bad in 'set-value "Square Layer.p" 10 [1,2,3]' 'move-keyframe "Square Layer.p" 10 0' 'delete-keyframe nobody.p 0' \
           'reparent mover 2' 'frobnicate 1' 'set-easing "Square Layer.p" 10 ease' 'set-value "Square Layer.p" x 1'; do
  checks=$((checks + 1))
  rm -f "$TMP/no.json"
  printf 'rename [0] fine\n%s\n' "$bad" | "$BIN" edit "$TMP/out.json" -o "$TMP/no.json" 2>"$TMP/err"
  st=$?
  [ $st -eq 1 ] || fail "'$bad': status $st, want 1"
  [ -e "$TMP/no.json" ] && fail "'$bad': something was written"
  grep -q '<stdin>:2:' "$TMP/err" || fail "'$bad': the message does not name line 2: $(cat "$TMP/err")"
done

checks=$((checks + 1))
"$BIN" edit --help 2>&1 | grep -q 'set-value PROP FRAME VALUE' || fail "edit --help does not tell the animation commands"

echo "lottie_edit_cli: $checks checks, $failures failures"
[ "$failures" -eq 0 ] || exit 1
exit 0
