#!/usr/bin/python3
"""Checks `ensemble import` output against the Tupi project it came from,
read here on its own (zipfile and ElementTree, not Ensemble's reader):
the main composition's layers (count, order, names, in and out points),
every tween's keyframes (times and values) and the list of what was not
mapped. Usage: tupi_check.py PROJECT.tup OUT.json NOTES.json
Exits 0 when all holds, 1 with the differences listed."""
import json
import math
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

SHAPES = {"path", "rect", "ellipse", "line", "group"}
errors = []

def fail(msg):
    errors.append(msg)

def canon(e):
    """An element as a comparable value, whitespace between elements left out."""
    return (e.tag, tuple(sorted(e.attrib.items())), (e.text or "").strip(), tuple(canon(c) for c in e))

def pos_of(item):
    p = item.find("properties")
    nums = re.findall(r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?", p.get("pos", "(0,0)") if p is not None else "(0,0)")
    return float(nums[0]), float(nums[1])

def close(a, b, what):
    if isinstance(a, list):
        if len(a) != len(b) or any(abs(x - y) > 0.002 for x, y in zip(a, b)):
            fail("%s: %r, expected %r" % (what, a, b))
    elif abs(a - b) > 0.002:
        fail("%s: %r, expected %r" % (what, a, b))

def steps(tw, tag):
    out = []
    for s in tw.findall("step"):
        e = s.find(tag)
        if e is not None:
            out.append((int(s.get("value")), e))
    return out

def check_keys(prop, expected, what):
    """expected: [(t, [values])]; one step is a static value."""
    if len(expected) == 1:
        if prop.get("a") != 0:
            fail("%s: one step should be a static value" % what)
            return
        v = prop["k"] if isinstance(prop["k"], list) else [prop["k"]]
        close(v[:len(expected[0][1])], expected[0][1], what)
        return
    if prop.get("a") != 1:
        fail("%s: not animated" % what)
        return
    keys = prop["k"]
    if len(keys) != len(expected):
        fail("%s: %d keyframes, expected %d" % (what, len(keys), len(expected)))
        return
    for k, (t, v) in zip(keys, expected):
        if k["t"] != t:
            fail("%s: keyframe at %r, expected %r" % (what, k["t"], t))
        close(k["s"][:len(v)], v, "%s at %d" % (what, t))

def tween_layer(lay, obj, frame_index, layer_opacity, where):
    item = [c for c in obj if c.tag != "tweening"][0]
    px, py = pos_of(item)
    tws = obj.findall("tweening")
    origin = None
    for tw in tws:
        if tw.get("type") in ("1", "2", "3") and origin is None:
            origin = [float(v) for v in tw.get("origin", "0,0").split(",")]
    ax, ay = (px + origin[0], py + origin[1]) if origin else (0.0, 0.0)
    ks = lay["ks"]
    close(ks["a"]["k"][:2], [ax, ay], where + " anchor")
    for tw in tws:
        ty = tw.get("type")
        if ty == "0":
            o = [float(v) for v in tw.get("origin").split(",")]
            st = steps(tw, "position")
            x0, y0 = float(st[0][1].get("x")), float(st[0][1].get("y"))
            exp = [(frame_index + k, [ax + o[0] - px + float(e.get("x")) - x0, ay + o[1] - py + float(e.get("y")) - y0])
                   for k, e in st]
            check_keys(ks["p"], exp, where + " position")
        elif ty == "1":
            check_keys(ks["r"], [(frame_index + k, [float(e.get("angle"))]) for k, e in steps(tw, "rotation")],
                       where + " rotation")
        elif ty == "2":
            check_keys(ks["s"], [(frame_index + k, [float(e.get("sx")) * 100, float(e.get("sy")) * 100])
                                 for k, e in steps(tw, "scale")], where + " scale")
        elif ty == "3":
            exp = []
            for k, e in steps(tw, "shear"):
                sh, sv = float(e.get("sh")), float(e.get("sv"))
                exp.append((frame_index + k, [math.degrees(math.atan(sv)) if sv else -math.degrees(math.atan(sh))]))
            check_keys(ks["sk"], exp, where + " skew")
        elif ty == "4":
            check_keys(ks["o"], [(frame_index + k, [float(e.get("opacity")) * 100 * layer_opacity])
                                 for k, e in steps(tw, "opacity")], where + " opacity")
        elif ty == "5":
            exp = [(frame_index + k, [int(e.get(c)) / 255 for c in ("red", "green", "blue")] + [1])
                   for k, e in steps(tw, "color")]
            kind = {"0": ["st"], "1": ["fl"], "2": ["st", "fl"]}[tw.get("fillType", "0")]
            found = 0
            for g in lay["shapes"]:
                for it in g["it"]:
                    if it["ty"] in kind:
                        found += 1
                        check_keys(it["c"], exp, where + " colour of " + it["ty"])
            if not found:
                fail(where + ": no shape takes the colour tween")

def main():
    tup, out, notes_path = sys.argv[1:4]
    doc = json.load(open(out))
    notes = json.load(open(notes_path))["not_mapped"]
    z = zipfile.ZipFile(tup)
    names = z.namelist()
    scenes = sorted((n for n in names if n.endswith(".tps")),
                    key=lambda n: (int(re.search(r"\d+", n.split("/")[-1]).group()), n))
    project = ET.fromstring(z.read([n for n in names if n.endswith("project.tpp")][0]))
    meta = project.find("project/meta")
    w, h = [int(v) for v in meta.find("dimension").text.split(",")]
    if (doc["w"], doc["h"]) != (w, h):
        fail("size %dx%d, expected %dx%d" % (doc["w"], doc["h"], w, h))
    scene = ET.fromstring(z.read(scenes[0]))
    fps = float(scene.get("fps") or meta.find("fps").text)
    close(doc["fr"], fps, "frame rate")

    lib = [n for n in names if n.endswith("library.tpl")]
    libtypes = {}
    if lib:
        for o in ET.fromstring(z.read(lib[0])).iter("object"):
            libtypes[o.get("id")] = o.get("type")
    expected = []  # (name, ip, op, tween object or None, frame index, layer opacity[, placed image])
    length = 0
    for lay in reversed(scene.findall("layer")):
        lname = lay.get("name")
        lop = float(lay.get("opacity", "1"))
        frames = lay.findall("frame")
        length = max(length, len(frames))
        tweened, runs, images = [], [], []
        for i, f in enumerate(frames):
            static = []
            for obj in reversed(list(f)):
                if obj.tag != "object":
                    continue
                sym = obj.find("symbol")
                if sym is not None:
                    if libtypes.get(sym.get("id")) == "2":
                        key = canon(obj)
                        for im in images:
                            if im[2] == i and im[3] == key:
                                im[2] = i + 1
                                break
                        else:
                            images.append(["%s / %s / image %s" % (lname, f.get("name"), sym.get("id")), i, i + 1, key,
                                           sym])
                    continue
                if obj.find("tweening") is not None:
                    tnames = ", ".join(t.get("name") for t in obj.findall("tweening"))
                    span = max([int(t.get("frames", "1")) for t in obj.findall("tweening")] + [1])
                    tweened.append(("%s / %s / tween %s" % (lname, f.get("name"), tnames), i, i + span, obj, i, lop))
                    length = max(length, i + span)
                elif any(c.tag in SHAPES for c in obj):
                    static.append(canon(obj))
            if not static:
                continue
            if runs and runs[-1][2] == i and runs[-1][3] == static:
                runs[-1][2] = i + 1
            else:
                runs.append(["%s / %s" % (lname, f.get("name")), i, i + 1, static])
        expected += tweened + [(m[0], m[1], m[2], None, m[1], lop, m[4]) for m in reversed(images)]
        expected += [(r[0], r[1], r[2], None, r[1], lop) for r in runs]
    length = max(length, 1)
    bg = scene.find("background")
    for f in (bg if bg is not None else []):
        name = f.get("name", "")
        drawn = any(c.tag in SHAPES for o in f.findall("object") for c in o)
        if "foreground" in name and drawn:
            expected.insert(0, ("foreground", 0, length, None, 0, 1))
        elif "dynamic" not in name and drawn:
            expected.append(("background", 0, length, None, 0, 1))
    total = length
    for i, sc in enumerate(scenes[1:], 2):
        later = ET.fromstring(z.read(sc))
        n = max([len(l.findall("frame")) for l in later.findall("layer")] + [1])
        for l in later.findall("layer"):
            for fi, f in enumerate(l.findall("frame")):
                for t in f.findall("object/tweening"):
                    n = max(n, fi + max(int(t.get("frames", "1")), 1))
        expected.append(('scene %d "%s"' % (i, later.get("name")), total, total + n, None, 0, 1))
        total += n
    if doc["op"] != total:
        fail("out point %d, expected %d" % (doc["op"], total))
    expected.append(("background colour", 0, total, None, 0, 1))

    layers = doc["layers"]
    if len(layers) != len(expected):
        fail("%d layers, expected %d: %s" % (len(layers), len(expected), [e[0] for e in expected]))
    for lay, (name, ip, op, obj, fi, lop, *img) in zip(layers, expected):
        if lay["nm"] != name:
            fail("layer %r, expected %r" % (lay["nm"], name))
            continue
        if ip is not None and (lay["ip"], lay["op"]) != (ip, op):
            fail("%s: in/out %d..%d, expected %d..%d" % (name, lay["ip"], lay["op"], ip, op))
        if obj is not None:
            tween_layer(lay, obj, fi, lop, name)
        if img:
            # an image layer: placed at pos plus the matrix's move, scaled by it
            m = [float(v) for v in re.findall(r"[-+]?[0-9]*\.?[0-9]+", img[0].find("properties").get("transform"))]
            px, py = pos_of(img[0])
            if lay["ty"] != 2 or not lay["refId"].startswith("image_"):
                fail(name + ": not an image layer")
            close(lay["ks"]["p"]["k"][:2], [px + m[4], py + m[5]], name + " position")
            close(lay["ks"]["s"]["k"][:2], [m[0] * 100, m[3] * 100], name + " scale")

    # what has no Lottie counterpart is listed
    whats = " | ".join(n["what"] for n in notes)
    src = b"".join(z.read(n) for n in scenes)
    if b"<storyboard" in src and "storyboard" not in whats:
        fail("the storyboard is not listed")
    if re.search(rb"<svg id=", src) and "SVG image" not in whats:
        fail("an SVG from the library is not listed")
    if re.search(rb"<text[ >]", src) and "text item" not in whats:
        fail("a text item is not listed")
    if lib and ET.fromstring(z.read(lib[0])).findall(".//object[@type='3']") and "sound" not in whats:
        fail("a sound is not listed")

    for e in errors:
        print("tupi_check: " + e)
    print("tupi_check: %s: %d layers, %d tween layers, %d notes checked" %
          (tup.split("/")[-1], len(layers), sum(1 for e in expected if e[3] is not None), len(notes)))
    return 1 if errors else 0

if __name__ == "__main__":
    sys.exit(main())
