#!/bin/sh
# Lottie animations through the command line: `ensemble cat` gives every
# animation back byte for byte (to standard output and with -o; a .tgs's
# JSON inside too, a .lottie whole), `ensemble
# info` lists the layers where an independent reading (Python's json
# module) finds them, with their keyframes, shapes and counts; `ensemble
# diff` and `ensemble merge` on versions of an animation; a file that is
# not Lottie gets a clear error. Over the bundled seeds always, over the
# shared corpus when it is there. CTest runs it as
# `lottie_cli.sh /path/to/build/ensemble`.
set -u

BIN=${1:?usage: lottie_cli.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CORPUS=${ENSEMBLE_CORPUS:-$SRC/../shared/corpus}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lottie_cli.XXXXXX") || exit 1
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

# The lines `ensemble info` gives for the main composition's layers and its
# counts, computed from Python's own reading of the file.
expect_info() {
  "$PY" - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
def fmt(v):
    if v is None: return "-"
    if isinstance(v, bool): return "?"
    if isinstance(v, int): return str(v)
    if isinstance(v, float): return "%g" % v
    if isinstance(v, str): return "".join("\\n" if c == "\n" else "?" if ord(c) < 0x20 else c for c in v)
    return "?"
def objs_list(v):
    return isinstance(v, list) and len(v) > 0 and all(isinstance(x, dict) for x in v)
def keyframes(o):
    n = 0
    for k, v in o.items():
        if isinstance(v, dict): n += keyframes(v)
        elif objs_list(v):
            for x in v: n += (k == "k") + keyframes(x)
    return n
for l in d["layers"] if objs_list(d["layers"]) else []:
    print("    layer ind=%s parent=%s ty=%s ip=%s op=%s keyframes=%d nm=%s" % (
        fmt(l.get("ind")), fmt(l.get("parent")), fmt(l.get("ty")), fmt(l.get("ip")), fmt(l.get("op")), keyframes(l),
        fmt(l.get("nm"))))
PYEOF
}

expect_counts() {
  "$PY" - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
def objs_list(v):
    return isinstance(v, list) and len(v) > 0 and all(isinstance(x, dict) for x in v)
c = dict(layers=0, inner=0, shapes=0, assets=0, precomps=0, markers=0, keyframes=0, animated=0)
def walk(o, top):
    for k, v in o.items():
        if isinstance(v, dict):
            walk(v, False)
        elif objs_list(v):
            if k == "k": c["animated"] += 1
            for x in v:
                if k == "layers": c["layers" if top else "inner"] += 1
                elif k in ("shapes", "it"): c["shapes"] += 1
                elif k == "assets":
                    c["assets"] += 1
                    if isinstance(x.get("layers"), list): c["precomps"] += 1
                elif k == "markers": c["markers"] += 1
                elif k == "k": c["keyframes"] += 1
                walk(x, False)
walk(d, True)
print("layers %d inner %d shapes %d assets %d precomps %d markers %d animated %d keyframes %d" % (
    c["layers"], c["inner"], c["shapes"], c["assets"], c["precomps"], c["markers"], c["animated"], c["keyframes"]))
PYEOF
}

# The same counts from `ensemble info`.
got_counts() {
  awk '
    $1 == "layers" { l = $2; inner = 0; if ($0 ~ /precompositions/) { s = $0; sub(/.*\(and /, "", s); inner = s + 0 } }
    $1 == "shapes" { sh = $2 }
    $1 == "assets" { a = $2; s = $0; sub(/.*\(/, "", s); p = s + 0 }
    $1 == "markers" { m = $2 }
    $1 == "animated" { an = $2; k = $4 }
    END { printf "layers %d inner %d shapes %d assets %d precomps %d markers %d animated %d keyframes %d\n", l, inner, sh, a, p, m, an, k }' "$1"
}

check_file() {
  f=$1
  checks=$((checks + 1))
  if ! "$BIN" cat "$f" >"$TMP/out.json" 2>"$TMP/err"; then
    fail "cat $f: $(cat "$TMP/err")"
    return
  fi
  cmp -s "$f" "$TMP/out.json" || fail "cat $f: other bytes"
  rm -f "$TMP/o.json"
  "$BIN" cat -o "$TMP/o.json" "$f" 2>"$TMP/err" && cmp -s "$f" "$TMP/o.json" || fail "cat -o $f: $(cat "$TMP/err")"
  "$BIN" info "$f" >"$TMP/info" 2>"$TMP/err" || { fail "info $f: $(cat "$TMP/err")"; return; }
  grep '^    layer ' "$TMP/info" >"$TMP/got_layers"
  expect_info "$f" >"$TMP/want_layers" 2>"$TMP/err" || { fail "python could not read $f: $(cat "$TMP/err")"; return; }
  if ! cmp -s "$TMP/want_layers" "$TMP/got_layers"; then
    fail "info $f: layers differ from Python's reading"
    diff "$TMP/want_layers" "$TMP/got_layers" | head -n 10 >&2
  fi
  expect_counts "$f" >"$TMP/want_counts"
  got_counts "$TMP/info" >"$TMP/got_counts"
  if ! cmp -s "$TMP/want_counts" "$TMP/got_counts"; then
    fail "info $f: counts differ from Python's reading: want $(cat "$TMP/want_counts"), got $(cat "$TMP/got_counts")"
  fi
}

files=$(ls "$SRC"/tests/fuzz/corpus/fuzz_lottie/*.json | grep -v '/bad-')
ncorpus=0
if [ -d "$CORPUS/lottie" ]; then
  corpus_files=$(find "$CORPUS/lottie" -name '*.json' | LC_ALL=C sort)
  ncorpus=$(echo "$corpus_files" | grep -c .)
  files="$files
$corpus_files"
fi
for f in $files; do check_file "$f"; done

# A file that is not Lottie: a clear error, exit status 1, nothing written.
printf '{"a": 1}\n' >"$TMP/plain.json"
checks=$((checks + 1))
if "$BIN" cat "$TMP/plain.json" >"$TMP/out" 2>"$TMP/err"; then fail "cat of a plain JSON object succeeded"; fi
grep -q 'line 1, column 1: not a Lottie animation: the top object has no "fr"' "$TMP/err" || fail "plain JSON: $(cat "$TMP/err")"
printf '{"fr": 30, "ip": 0,\n "op": 60, "layers": [}\n' >"$TMP/broken.json"
checks=$((checks + 1))
"$BIN" info "$TMP/broken.json" >"$TMP/out" 2>"$TMP/err" && fail "info of broken JSON succeeded"
grep -q 'broken.json: line 2, column 23: ' "$TMP/err" || fail "broken JSON: $(cat "$TMP/err")"

# Telegram's .tgs: gzip around the JSON; cat -o a .json gives the JSON inside
# byte for byte, and cat -o a .tgs compresses again
checks=$((checks + 1))
"$PY" -c "import gzip, sys; open('$TMP/a.tgs', 'wb').write(gzip.compress(open(sys.argv[1], 'rb').read()))" \
  "$SRC/tests/fuzz/corpus/fuzz_lottie/compact.json"
"$BIN" cat -o "$TMP/a.json" "$TMP/a.tgs" 2>"$TMP/err" && cmp -s "$TMP/a.json" "$SRC/tests/fuzz/corpus/fuzz_lottie/compact.json" ||
  fail ".tgs to .json: $(cat "$TMP/err")"
"$BIN" cat -o "$TMP/b.tgs" "$TMP/a.json" 2>"$TMP/err" &&
  "$PY" -c "import gzip, sys; sys.exit(gzip.open('$TMP/b.tgs').read() != open('$TMP/a.json', 'rb').read())" ||
  fail ".json to .tgs: $(cat "$TMP/err")"
"$BIN" info "$TMP/a.tgs" | grep -q '^  frame rate    30 fps$' || fail "info of a .tgs"

# dotLottie: a zip with a manifest, the animation and an image. cat gives
# the archive back byte for byte and the animation inside as .json; a merge
# of an edited copy replaces that animation only, the image as it was.
"$PY" - "$SRC/tests/fuzz/corpus/fuzz_lottie/compact.json" "$TMP" <<'PYEOF'
import json, sys, zipfile
anim = open(sys.argv[1], "rb").read()
def make(path, a):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", json.dumps({"version": "1", "generator": "test", "animations": [{"id": "main"}]}))
        z.writestr("animations/main.json", a)
        z.writestr("images/img_0.png", bytes(range(256)) * 4)
make(sys.argv[2] + "/base.lottie", anim)
make(sys.argv[2] + "/ours.lottie", anim.replace(b'"nm":"m"', b'"nm":"marker one"'))
PYEOF
checks=$((checks + 1))
"$BIN" cat -o "$TMP/same.lottie" "$TMP/base.lottie" 2>"$TMP/err" && cmp -s "$TMP/same.lottie" "$TMP/base.lottie" ||
  fail ".lottie back: $(cat "$TMP/err")"
"$BIN" cat -o "$TMP/inside.json" "$TMP/base.lottie" 2>"$TMP/err" &&
  cmp -s "$TMP/inside.json" "$SRC/tests/fuzz/corpus/fuzz_lottie/compact.json" || fail ".lottie to .json: $(cat "$TMP/err")"
checks=$((checks + 1))
if "$BIN" merge "$TMP/base.lottie" "$TMP/ours.lottie" "$TMP/base.lottie" -o "$TMP/merged.lottie" 2>"$TMP/err"; then
  "$PY" - "$TMP" <<'PYEOF' || fail ".lottie merge: the archive does not hold ours' animation and the image as they were"
import sys, zipfile
t = sys.argv[1]
m, o, b = (zipfile.ZipFile(t + n) for n in ("/merged.lottie", "/ours.lottie", "/base.lottie"))
ok = m.read("animations/main.json") == o.read("animations/main.json")
ok = ok and m.read("images/img_0.png") == b.read("images/img_0.png") and m.read("manifest.json") == b.read("manifest.json")
ok = ok and m.testzip() is None
sys.exit(0 if ok else 1)
PYEOF
else
  fail ".lottie merge: $(cat "$TMP/err")"
fi
printf 'PK\003\004 not a zip at all' >"$TMP/bad.lottie"
checks=$((checks + 1))
"$BIN" info "$TMP/bad.lottie" >"$TMP/out" 2>"$TMP/err" && fail "info of a broken .lottie succeeded"
grep -q 'bad.lottie: line 1, column 1: a .lottie (zip) archive that libzip cannot open' "$TMP/err" || fail "broken .lottie: $(cat "$TMP/err")"

# diff and merge on three versions of one animation, edited by Python
BASE=$SRC/tests/fuzz/corpus/fuzz_lottie/compact.json
"$PY" - "$BASE" "$TMP" <<'PYEOF'
import json, sys
base = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(base)
ours = base.replace('"nm":"g"', '"nm":"group"')
theirs = base.replace('{"t":30,"s":[100],"h":1}', '{"t":30,"s":[50],"h":1}')
assert ours != base and theirs != base
open(sys.argv[2] + "/base.json", "w").write(base)
open(sys.argv[2] + "/ours.json", "w").write(ours)
open(sys.argv[2] + "/theirs.json", "w").write(theirs)
open(sys.argv[2] + "/want.json", "w").write(ours.replace('{"t":30,"s":[100],"h":1}', '{"t":30,"s":[50],"h":1}'))
# theirs re-indented by a JSON library: the same animation, other text
open(sys.argv[2] + "/pretty.json", "w").write(json.dumps(json.loads(theirs), indent=2, ensure_ascii=False))
PYEOF
checks=$((checks + 1))
"$BIN" diff "$TMP/base.json" "$TMP/base.json" >"$TMP/out" 2>"$TMP/err" || fail "diff of a file with itself: $(cat "$TMP/out" "$TMP/err")"
checks=$((checks + 1))
"$BIN" diff "$TMP/base.json" "$TMP/ours.json" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] || fail "diff of two versions: status not 1: $(cat "$TMP/err")"
grep -qx 'layer 1 "aé😀 ": shape "group" renamed from "g"' "$TMP/out" || fail "diff does not tell the shape renamed: $(cat "$TMP/out")"
checks=$((checks + 1))
"$BIN" diff "$TMP/theirs.json" "$TMP/pretty.json" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] || fail "a re-indented file differs: $(cat "$TMP/out" "$TMP/err")"
checks=$((checks + 1))
if "$BIN" merge "$TMP/base.json" "$TMP/ours.json" "$TMP/theirs.json" -o "$TMP/merged.json" 2>"$TMP/err"; then
  cmp -s "$TMP/merged.json" "$TMP/want.json" || fail "merge: not both edits in the text as written: $(cat "$TMP/merged.json")"
else
  fail "merge of two clean edits: $(cat "$TMP/err")"
fi
checks=$((checks + 1))
"$BIN" merge "$TMP/base.json" "$TMP/ours.json" "$TMP/pretty.json" -o "$TMP/merged2.json" 2>"$TMP/err" || fail "merge with a re-indented side: $(cat "$TMP/err")"
"$PY" -c "
import json, sys
m = json.load(open('$TMP/merged2.json')); w = json.load(open('$TMP/want.json'))
sys.exit(0 if m == w else 1)" || fail "merge with a re-indented side: not both edits"

echo "lottie_cli: $checks checks ($ncorpus corpus animations), $failures failures"
[ "$failures" -eq 0 ] || exit 1
[ "$ncorpus" -gt 0 ] || { echo "skipped: the corpus parts (no shared corpus)"; }
exit 0
