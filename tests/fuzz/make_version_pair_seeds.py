#!/usr/bin/python3
"""Writes seeds of fuzz_version_pairs and fuzz_merge_files: pairs of
consecutive real versions cut down to a few objects each, so that the
fuzzers start from real structure. Not part of the build; deterministic:

  tests/fuzz/make_version_pair_seeds.py CORPUS tests/fuzz/corpus

writes CORPUS's pairs into corpus/fuzz_version_pairs/ (format byte, v1,
separator, v2) and into corpus/fuzz_merge_files/ as real-* (base v1, ours
v2, theirs v1: one side's real revision; fuzz_merge_files' layout).

CORPUS holds sfd/dejavu-history (DejaVuSansMono revisions; Bitstream Vera
licence and public domain) and svg/history/adwaita-faces (GNOME's
faces.svg revisions; CC-BY-SA 3.0 / LGPLv3). Their licences go beside the
seeds (LICENSE.seeds in each, which the fuzz targets read as one more
input)."""
import os
import re
import sys
import xml.etree.ElementTree as ET

SEP = b"\n@@ENSEMBLE-NEXT@@\n"


def sfd_parts(path):
    text = open(path, "rb").read()
    head_end = text.index(b"\nBeginChars:") + 1
    chars_end = text.index(b"\nEndChars") + 1
    body = text[head_end:chars_end]
    first_nl = body.index(b"\n") + 1
    begin_line, body = body[:first_nl], body[first_nl:]
    blocks = {}
    order = []
    for m in re.finditer(rb"StartChar: (\S+)\n.*?\nEndChar\n", body, re.S):
        blocks[m.group(1)] = m.group(0)
        order.append(m.group(1))
    return text[:head_end], begin_line, blocks, order, text[chars_end:]


def sfd_plain(block):
    # no references, kerning or lookups into glyphs the cut leaves out
    return not re.search(rb"\n(Refer|Kerns2|KernsSLIF|Ligature2|Substitution2|AlternateSubs2|MultipleSubs2|Position2|PairPos2):", block)


def sfd_cut(head, begin_line, blocks, names):
    size = begin_line.split()[1]
    out = head + b"BeginChars: " + size + b" " + str(len(names)).encode() + b"\n\n"
    out += b"\n".join(blocks[n] for n in names)
    return out + b"EndChars\nEndSplineFont\n"


def sfd_strip(block):
    # a composite's references name glyphs by their place in the whole font
    return re.sub(rb"\nRefer: [^\n]*", b"", block)


def sfd_seeds(corpus, outdir):
    # the successive revisions add glyphs: each seed holds the glyphs
    # around the added ones in both versions, and the added ones in v2
    d = os.path.join(corpus, "sfd/dejavu-history")
    vs = ["DejaVuSansMono.358190f.sfd", "DejaVuSansMono.9a517dc.sfd", "DejaVuSansMono.ae12ffe.sfd"]
    n = 0
    for a, b in zip(vs, vs[1:]):
        h1, bl1, b1, o1, t1 = sfd_parts(os.path.join(d, a))
        h2, bl2, b2, o2, t2 = sfd_parts(os.path.join(d, b))
        added = [x for x in o2 if x not in b1]
        for k, x in enumerate(added[:4]):
            at = o2.index(x)
            near = [y for y in o2[max(0, at - 3):at + 4] if y in b1 and b1[y] == b2[y] and sfd_plain(b1[y])][:4]
            v1 = sfd_cut(h1, bl1, b1, near)
            blocks = dict(b2)
            blocks[x] = sfd_strip(b2[x])
            v2 = sfd_cut(h2, bl2, blocks, [y for y in o2 if y in near or y == x])
            name = "dejavu-%s-%s-%d" % (a.split(".")[1], b.split(".")[1], k)
            open(os.path.join(outdir, name), "wb").write(b"\x01" + v1 + SEP + v2)
            n += 1
    return n


NS = {
    "": "http://www.w3.org/2000/svg",
    "svg": "http://www.w3.org/2000/svg",
    "xlink": "http://www.w3.org/1999/xlink",
    "sodipodi": "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "inkscape": "http://www.inkscape.org/namespaces/inkscape",
    "dc": "http://purl.org/dc/elements/1.1/",
    "cc": "http://creativecommons.org/ns#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
}


def svg_cut(root, ids):
    out = ET.Element(root.tag, {k: v for k, v in root.attrib.items() if k in ("width", "height", "viewBox", "id")})
    out.text = "\n  "
    for e in ids:
        c = e
        c.tail = "\n  "
        out.append(c)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(out) + b"\n"


def svg_seeds(corpus, outdir):
    for p, uri in NS.items():
        if p != "svg":
            ET.register_namespace(p, uri)
    d = os.path.join(corpus, "svg/history/adwaita-faces")
    vs = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
    n = 0
    for a, b in zip(vs, vs[1:]):
        r1 = ET.parse(os.path.join(d, a)).getroot()
        r2 = ET.parse(os.path.join(d, b)).getroot()
        by1 = {e.get("id"): e for e in r1.iter() if e.get("id")}
        by2 = {e.get("id"): e for e in r2.iter() if e.get("id")}
        changed, same = [], []
        for i, e in by1.items():
            if i not in by2 or e is r1:
                continue
            s1, s2 = ET.tostring(e), ET.tostring(by2[i])
            if len(s1) > 6000 or len(s2) > 6000 or e.tag.endswith("}svg"):
                continue
            (changed if s1 != s2 else same).append(i)
        if not changed:
            continue
        pick = sorted(changed)[:3] + sorted(same)[:2]
        # an element and one of its ancestors would be taken twice
        pick = [i for i in pick if not any(i != j and by1[i] in by1[j].iter() for j in pick)]
        v1 = svg_cut(r1, [by1[i] for i in pick])
        v2 = svg_cut(r2, [by2[i] for i in pick])
        name = "adwaita-faces-%s-%s" % (a.split(".")[0], b.split(".")[0])
        open(os.path.join(outdir, name), "wb").write(b"\x00" + v1 + SEP + v2)
        n += 1
    return n


def merge_seeds(pairdir, outdir):
    # fuzz_merge_files: options (bit 0: a drawing), base 0x1E ours 0x1E theirs
    n = 0
    for name in sorted(os.listdir(pairdir)):
        if name.startswith("LICENSE"):
            continue
        data = open(os.path.join(pairdir, name), "rb").read()
        v1, v2 = data[1:].split(SEP, 1)
        opt = b"\x00" if data[0] & 1 else b"\x01"
        open(os.path.join(outdir, "real-" + name), "wb").write(opt + v1 + b"\x1e" + v2 + b"\x1e" + v1)
        n += 1
    return n


def licence(corpus, outdir):
    lic = open(os.path.join(corpus, "sfd/dejavu/LICENSE"), "rb").read()
    with open(os.path.join(outdir, "LICENSE.seeds"), "wb") as f:
        f.write(b"The seeds named dejavu-* are cut from revisions of DejaVuSansMono.sfd\n"
                b"(dejavu-fonts/dejavu-fonts), under the licence below.\n"
                b"The seeds named adwaita-faces-* are cut from revisions of src/faces.svg\n"
                b"of GNOME's adwaita-icon-theme, under CC-BY-SA 3.0\n"
                b"(https://creativecommons.org/licenses/by-sa/3.0/) or LGPLv3.\n\n" + lic)


def main():
    corpus, top = sys.argv[1], sys.argv[2]
    outdir = os.path.join(top, "fuzz_version_pairs")
    os.makedirs(outdir, exist_ok=True)
    n = sfd_seeds(corpus, outdir) + svg_seeds(corpus, outdir)
    licence(corpus, outdir)
    m = merge_seeds(outdir, os.path.join(top, "fuzz_merge_files"))
    licence(corpus, os.path.join(top, "fuzz_merge_files"))
    print("%d pairs, %d merge seeds" % (n, m))


main()
